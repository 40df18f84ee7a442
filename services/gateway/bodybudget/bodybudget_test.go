package bodybudget

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const mib = 1 << 20

// serve runs h behind a budget of total bytes, 4 MiB at most per request.
func serve(t *testing.T, total int64, h http.HandlerFunc) (*httptest.Server, *Budget) {
	t.Helper()
	b := New(total)
	refuse := func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "busy", http.StatusServiceUnavailable) }
	ts := httptest.NewServer(b.Middleware(4*mib, refuse)(h))
	t.Cleanup(ts.Close)
	return ts, b
}

// Bodies of declared length that do not fit are refused before they are
// read; those let in hold their bytes until their handler returns.
func TestDeclaredBodies(t *testing.T) {
	entered, hold := make(chan struct{}), make(chan struct{})
	ts, b := serve(t, 10*mib, func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			t.Error(err)
		}
		entered <- struct{}{}
		<-hold
	})
	type answer struct {
		status     int
		retryAfter string
	}
	answers := make(chan answer, 6)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			resp, err := http.Post(ts.URL, "application/octet-stream", bytes.NewReader(make([]byte, 4*mib)))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			answers <- answer{resp.StatusCode, resp.Header.Get("Retry-After")}
		})
	}
	<-entered
	<-entered
	// Two of 4 MiB fit in 10 MiB; the four others are answered while the
	// two are held.
	for range 4 {
		if a := <-answers; a.status != http.StatusServiceUnavailable || a.retryAfter != RetryAfter {
			t.Errorf("a body past the budget: %d, Retry-After %q", a.status, a.retryAfter)
		}
	}
	if got := b.InUse(); got != 8*mib {
		t.Errorf("%d bytes reserved with two bodies of 4 MiB held", got)
	}
	close(hold)
	wg.Wait()
	for range 2 {
		if a := <-answers; a.status != http.StatusOK {
			t.Errorf("a body within the budget: %d", a.status)
		}
	}
	if got := b.InUse(); got != 0 {
		t.Errorf("%d bytes still reserved once every handler returned", got)
	}
}

// A chunked body reserves as it is read, and the handler learns when the
// budget runs out; what it read is given back.
func TestChunkedBodies(t *testing.T) {
	var most int64
	var mu sync.Mutex
	var b *Budget
	ts, b := serve(t, 256<<10, func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4*mib))
		mu.Lock()
		most = max(most, b.InUse())
		mu.Unlock()
		if errors.Is(err, ErrExhausted) {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if err != nil {
			t.Error(err)
		}
	})
	for _, tc := range []struct {
		size int
		want int
	}{{100 << 10, http.StatusOK}, {mib, http.StatusServiceUnavailable}} {
		// An io.Reader of unknown length makes the client send chunks.
		req, _ := http.NewRequest(http.MethodPost, ts.URL, io.MultiReader(strings.NewReader(strings.Repeat("x", tc.size))))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if req.ContentLength > 0 || resp.StatusCode != tc.want || tc.want != http.StatusOK && resp.Header.Get("Retry-After") != RetryAfter {
			t.Errorf("a chunked body of %d bytes: %d, Retry-After %q, want %d", tc.size, resp.StatusCode, resp.Header.Get("Retry-After"), tc.want)
		}
	}
	if most > 256<<10 {
		t.Errorf("%d bytes reserved under a budget of 256 KiB", most)
	}
	if got := b.InUse(); got != 0 {
		t.Errorf("%d bytes still reserved once every handler returned", got)
	}
}
