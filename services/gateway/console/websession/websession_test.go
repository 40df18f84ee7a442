package websession

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// signedIn starts a session and returns the request carrying its cookie.
func signedIn(t *testing.T, m *Manager, r *http.Request) (*http.Request, *http.Cookie) {
	t.Helper()
	w := httptest.NewRecorder()
	if _, err := m.Start(w, r, Identity{Token: "laptop", Workspaces: []string{"work"}}); err != nil {
		t.Fatal(err)
	}
	cookies := w.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", cookies)
	}
	next := httptest.NewRequest(http.MethodGet, r.URL.String(), nil)
	next.TLS = r.TLS
	next.AddCookie(cookies[0])
	return next, cookies[0]
}

func TestSessions(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	store := NewMemoryStore()
	store.now = c.now
	m := New(Options{TTL: time.Hour, Store: store, Now: c.now})

	r, cookie := signedIn(t, m, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/console/", nil))
	if cookie.Name != "openhuman-session" || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Secure || cookie.Path != "/" {
		t.Errorf("cookie over plain HTTP %+v", cookie)
	}
	s, err := m.Find(r)
	if err != nil || s == nil || s.Token != "laptop" || s.Workspaces[0] != "work" || len(s.CSRF) < 40 {
		t.Fatalf("found %+v %v", s, err)
	}
	// The store holds the cookie's hash, never the cookie.
	for k := range store.sessions {
		if k == cookie.Value || strings.Contains(k, cookie.Value) {
			t.Error("the store keeps the cookie's value")
		}
	}
	c.t = c.t.Add(time.Hour)
	if s, _ := m.Find(r); s != nil {
		t.Error("a session outlived its TTL")
	}

	r, _ = signedIn(t, m, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/console/", nil))
	w := httptest.NewRecorder()
	if err := m.End(w, r); err != nil {
		t.Fatal(err)
	}
	if s, _ := m.Find(r); s != nil {
		t.Error("a session survived End")
	}
	if got := w.Result().Cookies(); len(got) != 1 || got[0].MaxAge >= 0 {
		t.Errorf("End's cookie %+v", got)
	}

	// Over TLS, or when told a proxy terminates it: Secure and __Host-.
	tlsReq := httptest.NewRequest(http.MethodGet, "https://memory.example.com/console/", nil)
	if _, cookie := signedIn(t, m, tlsReq); cookie.Name != "__Host-openhuman-session" || !cookie.Secure || cookie.Path != "/" || cookie.Domain != "" {
		t.Errorf("cookie over TLS %+v", cookie)
	}
	behind := New(Options{Secure: true})
	if _, cookie := signedIn(t, behind, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/console/", nil)); cookie.Name != "__Host-openhuman-session" || !cookie.Secure {
		t.Errorf("cookie behind a TLS proxy %+v", cookie)
	}
}

func TestCSRF(t *testing.T) {
	m := New(Options{})
	r, _ := signedIn(t, m, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/console/", nil))
	s, _ := m.Find(r)
	var refused []int
	deny := func(w http.ResponseWriter, _ *http.Request, status int, _ string) {
		refused = append(refused, status)
		w.WriteHeader(status)
	}
	ran := 0
	h := CrossOrigin(deny)(RequireCSRF(deny)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran++ })))
	send := func(method, csrf, header, fetchSite string, withSession bool) {
		req := httptest.NewRequest(method, "http://127.0.0.1/console/memory/forget", strings.NewReader(url.Values{"csrf": {csrf}, "id": {"x"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if header != "" {
			req.Header.Set(Header, header)
		}
		if fetchSite != "" {
			req.Header.Set("Sec-Fetch-Site", fetchSite)
		}
		if withSession {
			req = req.WithContext(NewContextWithSession(req.Context(), s))
		}
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	send(http.MethodPost, s.CSRF, "", "same-origin", true)  // the form
	send(http.MethodPost, "", s.CSRF, "same-origin", true)  // htmx's header
	send(http.MethodGet, "", "", "cross-site", false)       // a link from anywhere
	send(http.MethodPost, "", "", "same-origin", true)      // no token
	send(http.MethodPost, "stale", "", "same-origin", true) // another token
	send(http.MethodPost, s.CSRF, "", "", false)            // no session
	send(http.MethodPost, s.CSRF, "", "cross-site", true)   // another site's page
	if ran != 3 || len(refused) != 4 {
		t.Errorf("ran %d, refused %v", ran, refused)
	}
}
