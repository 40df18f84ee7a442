package clientaddr

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Over real connections from 127.0.0.1: trusted, the header names the
// client; not, it changes nothing.
func TestMiddleware(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []string
		xff     string
		want    string
	}{
		{"trusted proxy", []string{"127.0.0.1"}, "198.51.100.1", "198.51.100.1:0"},
		{"trusted proxy, no header", []string{"127.0.0.1"}, "", "127.0.0.1"},
		{"no trusted proxy", nil, "198.51.100.1", "127.0.0.1"},
		{"another proxy trusted", []string{"10.0.0.0/8"}, "198.51.100.1", "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trusted, err := ParseTrusted(tc.trusted)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(Middleware(trusted, slog.New(slog.DiscardHandler))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, peer := PeerFromContext(r.Context())
				_, _ = io.WriteString(w, r.RemoteAddr+" "+map[bool]string{true: "forwarded", false: "direct"}[peer])
			})))
			t.Cleanup(ts.Close)
			req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
			if tc.xff != "" {
				req.Header.Set("X-Forwarded-For", tc.xff)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got := string(body)
			if tc.want == "127.0.0.1" {
				if !strings.HasPrefix(got, "127.0.0.1:") || !strings.HasSuffix(got, " direct") || got == "127.0.0.1:0 direct" {
					t.Errorf("got %q, want the connection's own address", got)
				}
				return
			}
			if got != tc.want+" forwarded" {
				t.Errorf("got %q, want %q", got, tc.want+" forwarded")
			}
		})
	}
}
