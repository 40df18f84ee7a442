package oauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// testCA makes a CA and a certificate it signs for 127.0.0.1.
func testCA(t *testing.T) (*x509.CertPool, tls.Certificate) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "openhuman test CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return pool, tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}
}

// documentHost serves client metadata documents over TLS on loopback,
// counting fetches.
type documentHost struct {
	url     string
	fetches atomic.Int32
	docs    map[string]func(base string) (int, string, string) // path → status, Cache-Control, body
}

func serveDocuments(t *testing.T, cert tls.Certificate, docs map[string]func(string) (int, string, string)) *documentHost {
	h := &documentHost{docs: docs}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.fetches.Add(1)
		f := h.docs[r.URL.Path]
		if f == nil {
			http.NotFound(w, r)
			return
		}
		status, cc, body := f(h.url)
		if cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		if status == http.StatusFound {
			http.Redirect(w, r, body, status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	h.url = srv.URL
	return h
}

func doc(name, redirect string) func(string) (int, string, string) {
	return func(base string) (int, string, string) {
		return 200, "max-age=3600", `{"client_id":"` + base + `/client.json","client_name":"` + name + `","redirect_uris":["` + redirect + `"],"grant_types":["authorization_code"],"response_types":["code"],"token_endpoint_auth_method":"none"}`
	}
}

// TestClientMetadataDocument: a client_id that is an https URL is the
// client its document describes, fetched once within its cache time.
func TestClientMetadataDocument(t *testing.T) {
	roots, cert := testCA(t)
	host := serveDocuments(t, cert, map[string]func(string) (int, string, string){
		"/client.json": doc("Doc Client", "http://127.0.0.1:7777/callback"),
		"/liar.json": func(string) (int, string, string) {
			return 200, "", `{"client_id":"https://elsewhere.example/client.json","client_name":"Liar","redirect_uris":["https://app.example/cb"]}`
		},
		"/big.json": func(base string) (int, string, string) {
			return 200, "", `{"client_id":"` + base + `/big.json","client_name":"` + strings.Repeat("x", 20<<10) + `","redirect_uris":["https://app.example/cb"]}`
		},
		"/moved.json": func(base string) (int, string, string) { return http.StatusFound, "", base + "/client.json" },
		"/secret.json": func(base string) (int, string, string) {
			return 200, "", `{"client_id":"` + base + `/secret.json","client_name":"S","redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`
		},
		"/custom.json": func(base string) (int, string, string) {
			return 200, "", `{"client_id":"` + base + `/custom.json","client_name":"C","redirect_uris":["cursor://x/cb"]}`
		},
		"/nonamed.json": func(base string) (int, string, string) {
			return 200, "", `{"client_id":"` + base + `/nonamed.json","redirect_uris":["https://app.example/cb"]}`
		},
	})
	e := serve(t, mustOpenStore(t), func(o *oauth.Options) { o.DocumentRoots = roots })
	id := host.url + "/client.json"
	a := e.newAuthorization(id, "http://127.0.0.1:7777/callback")
	tok := e.tokens(a, both())
	who, err := e.verify(tok["access_token"].(string))
	if err != nil || !strings.HasPrefix(who.Name, "oauth:doc-client:") {
		t.Fatalf("%+v %v", who, err)
	}
	if status, out := e.refresh(id, tok["refresh_token"].(string)); status != http.StatusOK {
		t.Fatalf("refresh %d %v", status, out)
	}
	if n := host.fetches.Load(); n != 1 {
		t.Errorf("the document was fetched %d times within its max-age, want once", n)
	}
	// Its redirect URIs bind it like a registered client's.
	if resp, _ := e.authorize(e.newAuthorization(id, "https://evil.example/cb").query()); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unlisted redirect: %d", resp.StatusCode)
	}
	for path, want := range map[string]string{
		"/liar.json":    "not its own URL",
		"/big.json":     "over 16 KiB",
		"/moved.json":   "not 200",
		"/secret.json":  "takes only none",
		"/custom.json":  "neither https nor http on a loopback",
		"/nonamed.json": "no client_name",
		"/missing.json": "not 200",
	} {
		resp, body := e.authorize(e.newAuthorization(host.url+path, "https://app.example/cb").query())
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, want) || resp.Header.Get("Location") != "" {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	t.Run("a document whose CA is not trusted", func(t *testing.T) {
		plain := serve(t, mustOpenStore(t), nil)
		resp, body := plain.authorize(plain.newAuthorization(id, "http://127.0.0.1:7777/callback").query())
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "could not be fetched") {
			t.Errorf("%d %s", resp.StatusCode, body)
		}
	})
}

// TestClientMetadataDocumentSSRF: a server public on a real host name
// does not fetch documents from this host's own networks.
func TestClientMetadataDocumentSSRF(t *testing.T) {
	roots, cert := testCA(t)
	host := serveDocuments(t, cert, map[string]func(string) (int, string, string){"/client.json": doc("Doc", "https://app.example/cb")})
	srv := oauth.New(oauth.Options{PublicURL: "https://memory.example.com", Store: mustOpenStore(t), DocumentRoots: roots})
	q := url.Values{"response_type": {"code"}, "client_id": {host.url + "/client.json"}, "redirect_uri": {"https://app.example/cb"}}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, oauth.PathAuthorize+"?"+q.Encode(), nil))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "network of this host") {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	if n := host.fetches.Load(); n != 0 {
		t.Errorf("the loopback document was fetched %d times", n)
	}
}
