package oauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document,
// MCP 2025-11-25): a client_id that is an https URL with a path names a
// JSON document, served there, describing the client. The server fetches
// it (five seconds and 16 KiB at most, no redirects, never through a
// proxy), checks that it names itself, and keeps it as long as its
// Cache-Control says, from a minute to a day. Addresses of this host's
// networks (loopback, private, link-local) are refused at the dial, so a
// document URL cannot make the server reach inside them, unless the
// server itself is public on loopback (a test setup).
const (
	docMaxBytes    = 16 << 10
	docTimeout     = 5 * time.Second
	docMinCache    = time.Minute
	docMaxCache    = 24 * time.Hour
	docFailCache   = 30 * time.Second
	docCacheLimit  = 1000
	docDefaultKeep = 5 * time.Minute
)

type documents struct {
	client *http.Client
	now    func() time.Time
	mu     sync.Mutex
	cache  map[string]cachedDoc
}

type cachedDoc struct {
	client  Client
	err     error
	expires time.Time
}

func newDocuments(roots *x509.CertPool, allowPrivate bool, now func() time.Time) *documents {
	dialer := &net.Dialer{Timeout: docTimeout, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, _ := net.SplitHostPort(address)
		if ip := net.ParseIP(host); ip != nil && !allowPrivate && internalIP(ip) {
			return fmt.Errorf("the address %s is on a network of this host's (loopback, private or link-local), which metadata documents may not be fetched from", ip)
		}
		return nil
	}}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   docTimeout,
		ResponseHeaderTimeout: docTimeout,
		MaxIdleConns:          10,
		IdleConnTimeout:       time.Minute,
	}
	return &documents{
		client: &http.Client{Transport: transport, Timeout: docTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		now:   now,
		cache: map[string]cachedDoc{},
	}
}

func internalIP(ip net.IP) bool {
	cgnat := &net.IPNet{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)}
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || cgnat.Contains(ip)
}

// isDocumentID reports whether a client_id is a metadata document's URL:
// https, with a path other than /.
func isDocumentID(id string) bool {
	u, err := url.Parse(id)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Path != "" && u.Path != "/" && u.Fragment == "" && u.User == nil
}

// get returns the client the document at id describes.
func (d *documents) get(ctx context.Context, id string) (Client, error) {
	now := d.now()
	d.mu.Lock()
	c, ok := d.cache[id]
	d.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.client, c.err
	}
	client, keep, err := d.fetch(ctx, id)
	if err != nil {
		keep = docFailCache
		if errors.Is(err, context.Canceled) {
			return Client{}, err
		}
	}
	d.mu.Lock()
	if len(d.cache) >= docCacheLimit {
		for k, v := range d.cache {
			if !now.Before(v.expires) || len(d.cache) >= docCacheLimit {
				delete(d.cache, k)
			}
		}
	}
	d.cache[id] = cachedDoc{client: client, err: err, expires: now.Add(keep)}
	d.mu.Unlock()
	return client, err
}

func (d *documents) fetch(ctx context.Context, id string) (Client, time.Duration, error) {
	fail := func(format string, a ...any) (Client, time.Duration, error) {
		return Client{}, 0, invalidClient("the client metadata document at " + quoteSafe(id) + " " + fmt.Sprintf(format, a...))
	}
	ctx, cancel := context.WithTimeout(ctx, docTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return fail("is not a URL that can be fetched")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return fail("could not be fetched: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail("answered %d, not 200 (redirects are not followed)", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, docMaxBytes+1))
	if err != nil {
		return fail("could not be read: %v", err)
	}
	if len(body) > docMaxBytes {
		return fail("is over %d KiB", docMaxBytes>>10)
	}
	var doc struct {
		oauthex.ClientRegistrationMetadata
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return fail("is not a JSON client metadata document: %v", err)
	}
	switch {
	case doc.ClientID != id:
		return fail("names the client %q, not its own URL: client_id must be the document's URL exactly", doc.ClientID)
	case strings.TrimSpace(doc.ClientName) == "":
		return fail("has no client_name")
	case len(doc.RedirectURIs) == 0:
		return fail("has no redirect_uris")
	case doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none":
		return fail("asks for token_endpoint_auth_method %q; this server takes only none for such clients", doc.TokenEndpointAuthMethod)
	}
	for _, u := range doc.RedirectURIs {
		if msg := checkRedirectURI(u); msg != "" {
			return fail("lists a %s", msg)
		}
	}
	c := Client{ID: id, Name: clip(doc.ClientName, 200), URI: doc.ClientURI, RedirectURIs: doc.RedirectURIs, AuthMethod: "none",
		Scope: doc.Scope, Document: true}
	return c, cacheFor(resp.Header.Get("Cache-Control")), nil
}

// cacheFor is how long to keep a document its Cache-Control allows.
func cacheFor(cc string) time.Duration {
	keep := docDefaultKeep
	for _, part := range strings.Split(cc, ",") {
		part = strings.TrimSpace(strings.ToLower(part))
		if part == "no-store" || part == "no-cache" {
			keep = docMinCache
		}
		if v, ok := strings.CutPrefix(part, "max-age="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				keep = time.Duration(n) * time.Second
			}
		}
	}
	return min(max(keep, docMinCache), docMaxCache)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
