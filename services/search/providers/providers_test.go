package providers

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/search"
)

// The fakes below answer as each API documents: the shapes of their
// answers and of their failures.

// searxngFake is a SearXNG instance: formats are its settings.yml
// search.formats; with limiter on it refuses what its bot detection
// refuses (a Go-http-client user agent, no Accept-Language, no gzip).
type searxngFake struct {
	formats []string
	limiter bool
	answer  string
	delay   time.Duration
	last    *http.Request
}

func (f *searxngFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.last = r
	time.Sleep(f.delay)
	if r.URL.Path != "/search" {
		http.NotFound(w, r)
		return
	}
	format := r.URL.Query().Get("format")
	allowed := false
	for _, f := range f.formats {
		allowed = allowed || f == format
	}
	if !allowed {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "<html><body>403 Forbidden</body></html>")
		return
	}
	if f.limiter && (strings.Contains(r.UserAgent(), "Go-http-client") || r.Header.Get("Accept-Language") == "" ||
		!strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")) {
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, "Too Many Requests")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Encoding", "gzip")
	gz := gzip.NewWriter(w)
	io.WriteString(gz, f.answer)
	gz.Close()
}

const searxngResults = `{"query":"go generics","number_of_results":0,"results":[
 {"url":"https://go.dev/doc/tutorial/generics","title":"Tutorial: Getting started with generics","content":"This tutorial introduces the basics of generics in Go.","engine":"duckduckgo","engines":["duckduckgo","brave"],"score":2.5,"category":"general","publishedDate":"2022-03-15T00:00:00"},
 {"url":"https://example.com/no-content","title":"Only a title"},
 {"title":"No URL at all"}
],"answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[]}`

func expectErr(t *testing.T, err error, kind search.Kind, status int, parts ...string) *search.ProviderError {
	t.Helper()
	pe, ok := errors.AsType[*search.ProviderError](err)
	if !ok {
		t.Fatalf("error %v (%T), want *search.ProviderError", err, err)
	}
	if pe.Kind != kind || pe.Status != status {
		t.Fatalf("kind %d status %d, want %d and %d: %s", pe.Kind, pe.Status, kind, status, pe.Message)
	}
	for _, p := range parts {
		if !strings.Contains(pe.Message, p) {
			t.Fatalf("message %q lacks %q", pe.Message, p)
		}
	}
	return pe
}

func q(text string) search.Query { return search.Query{Text: text, MaxResults: 5} }

func TestSearXNGAnswersThroughItsLimiter(t *testing.T) {
	fake := &searxngFake{formats: []string{"html", "json"}, limiter: true, answer: searxngResults}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	p := NewSearXNG(srv.URL+"/", "en", 5*time.Second)
	results, err := p.Search(context.Background(), q("go generics"))
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 || results[0].Title != "Tutorial: Getting started with generics" || results[0].Score != 2.5 ||
		results[0].Published != "2022-03-15T00:00:00" || results[0].Provider != "searxng" || results[1].Snippet != "" {
		t.Fatalf("results %+v", results)
	}
	v := fake.last.URL.Query()
	if v.Get("q") != "go generics" || v.Get("language") != "en" || v.Get("pageno") != "1" {
		t.Fatalf("query %s", fake.last.URL.RawQuery)
	}
	if !strings.HasPrefix(fake.last.UserAgent(), "openhuman-go/") || fake.last.Header.Get("Accept") != "application/json" {
		t.Fatalf("headers %v", fake.last.Header)
	}
}

func TestSearXNGFailuresSayWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fake   *searxngFake
		kind   search.Kind
		status int
		parts  []string
	}{
		{"json disabled", &searxngFake{formats: []string{"html"}}, search.Auth, 403, []string{"answered 403: add json to search.formats in its settings.yml"}},
		{"engines failed", &searxngFake{formats: []string{"json"}, answer: `{"query":"x","results":[],"unresponsive_engines":[["google","timeout"],["duckduckgo","CAPTCHA"]]}`},
			search.Transient, 200, []string{"engines failed (google: timeout; duckduckgo: CAPTCHA)"}},
		{"an HTML page", &searxngFake{formats: []string{"json"}, answer: `<!DOCTYPE html><html>`}, search.Malformed, 200, []string{"not the JSON expected"}},
		{"over the size cap", &searxngFake{formats: []string{"json"}, answer: `{"results":[` + strings.Repeat(`{"title":"x"},`, MaxBody/10) + `]}`},
			search.Malformed, 200, []string{"over 4194304 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.fake)
			defer srv.Close()
			_, err := NewSearXNG(srv.URL, "en", 5*time.Second).Search(context.Background(), q("x"))
			expectErr(t, err, tc.kind, tc.status, tc.parts...)
		})
	}

	// Without our headers the limiter answers 429, and the message says how
	// to let us through.
	srv := httptest.NewServer(&searxngFake{formats: []string{"json"}, limiter: true})
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/search?q=x&format=json")
	if err != nil || resp.StatusCode != 429 {
		t.Fatalf("the fake limiter must refuse a bare Go client: %v %v", err, resp)
	}
	resp.Body.Close()
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(429) }))
	defer limited.Close()
	_, err = NewSearXNG(limited.URL, "en", time.Second).Search(context.Background(), q("x"))
	expectErr(t, err, search.Transient, 429, "bot limiter refused us", "server.limiter: false")

	_, err = NewSearXNG(srv.URL+"/searxng", "en", time.Second).Search(context.Background(), q("x"))
	expectErr(t, err, search.Auth, 404, "set [searxng] base_url to the instance's root")

	// Empty results with every engine answering is "nothing found", not a failure.
	empty := httptest.NewServer(&searxngFake{formats: []string{"json"}, answer: `{"query":"x","results":[],"unresponsive_engines":[]}`})
	defer empty.Close()
	if results, err := NewSearXNG(empty.URL, "", time.Second).Search(context.Background(), q("x")); err != nil || len(results) != 0 {
		t.Fatalf("no results: %v %v", results, err)
	}
}

func TestTimeoutsAreTransient(t *testing.T) {
	srv := httptest.NewServer(&searxngFake{formats: []string{"json"}, answer: searxngResults, delay: 300 * time.Millisecond})
	defer srv.Close()
	_, err := NewSearXNG(srv.URL, "en", 50*time.Millisecond).Search(context.Background(), q("x"))
	expectErr(t, err, search.Transient, 0, "no answer in time")

	down := NewBrave("http://127.0.0.1:1", "k", time.Second)
	_, err = down.Search(context.Background(), q("x"))
	expectErr(t, err, search.Transient, 0, "cannot be reached")
}

// apiFake serves one JSON API: check inspects the request and returns the
// status and body to answer with.
func apiFake(t *testing.T, check func(r *http.Request, body map[string]any) (int, http.Header, string)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if r.Body != nil {
			raw, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(raw, &body)
		}
		status, header, answer := check(r, body)
		for k, v := range header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestBrave(t *testing.T) {
	srv := apiFake(t, func(r *http.Request, _ map[string]any) (int, http.Header, string) {
		switch r.Header.Get("X-Subscription-Token") {
		case "good":
			if r.URL.Path != "/res/v1/web/search" || r.URL.Query().Get("count") != "5" || r.URL.Query().Get("q") != "go" {
				return 400, nil, `{"error":{"detail":"bad request"}}`
			}
			return 200, nil, `{"type":"search","web":{"type":"search","results":[
				{"title":"The Go Programming Language","url":"https://go.dev/","description":"Go is an open source programming language.","age":"2 days ago","page_age":"2026-11-28T10:00:00"},
				{"title":"Go (game)","url":"https://en.wikipedia.org/wiki/Go_(game)","description":"A board game."}]}}`
		case "limited":
			return 429, http.Header{"X-Ratelimit-Reset": {"1, 1419704"}}, `{"type":"ErrorResponse","error":{"code":"RATE_LIMITED","detail":"Request rate limit exceeded for plan.","status":429}}`
		case "long":
			return 422, nil, `{"type":"ErrorResponse","error":{"id":"y","status":422,"code":"VALIDATION","detail":"Unable to validate request parameter(s).","meta":{"errors":[{"loc":["query","q"],"msg":"ensure this value has at most 400 characters"}]}}}`
		case "quota":
			return 402, nil, `{"type":"ErrorResponse","error":{"code":"QUOTA_LIMITED","detail":"Monthly quota exceeded.","status":402}}`
		case "quota-resets":
			return 402, http.Header{"Retry-After": {"3600"}}, `{"type":"ErrorResponse","error":{"code":"QUOTA_LIMITED","detail":"Monthly quota exceeded.","status":402}}`
		}
		return 422, nil, `{"type":"ErrorResponse","error":{"id":"x","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."}}`
	})
	results, err := NewBrave(srv.URL, "good", time.Second).Search(context.Background(), q("go"))
	if err != nil || len(results) != 2 || results[0].Snippet != "Go is an open source programming language." || results[0].Published != "2026-11-28T10:00:00" || results[1].Score >= results[0].Score {
		t.Fatalf("results %+v, %v", results, err)
	}
	_, err = NewBrave(srv.URL, "bad", time.Second).Search(context.Background(), q("go"))
	expectErr(t, err, search.Auth, 422, "The provided subscription token is invalid.", "check OPENHUMAN_BRAVE_API_KEY")
	_, err = NewBrave(srv.URL, "limited", time.Second).Search(context.Background(), q("go"))
	expectErr(t, err, search.Transient, 429, "rate limit resets in 1 s")
	// The same 422 for a bad request is about this request only.
	_, err = NewBrave(srv.URL, "long", time.Second).Search(context.Background(), q("go"))
	expectErr(t, err, search.Transient, 422, "Unable to validate request")
	_, err = NewBrave(srv.URL, "quota", time.Second).Search(context.Background(), q("go"))
	if pe := expectErr(t, err, search.Quota, 402, "Monthly quota exceeded.", "quota is used up"); pe.RetryAfter != 0 {
		t.Errorf("retry after %s with no Retry-After", pe.RetryAfter)
	}
	// Retry-After says when the quota resets.
	_, err = NewBrave(srv.URL, "quota-resets", time.Second).Search(context.Background(), q("go"))
	if pe := expectErr(t, err, search.Quota, 402, "Monthly quota exceeded."); pe.RetryAfter != time.Hour {
		t.Errorf("retry after %s, want 1h from Retry-After: 3600", pe.RetryAfter)
	}
}

func TestTavily(t *testing.T) {
	srv := apiFake(t, func(r *http.Request, body map[string]any) (int, http.Header, string) {
		switch r.Header.Get("Authorization") {
		case "Bearer tvly-good":
			if r.URL.Path != "/search" || body["query"] != "go" || body["max_results"] != 5.0 {
				return 400, nil, `{"detail":{"error":"bad request"}}`
			}
			answer := ""
			if body["include_answer"] == true {
				answer = "Go is a language made at Google."
			}
			return 200, nil, `{"query":"go","answer":"` + answer + `","results":[{"title":"Go","url":"https://go.dev/","content":"Build simple, secure, scalable systems.","score":0.91,"published_date":"2026-01-02"}],"response_time":1.1}`
		case "Bearer tvly-plan":
			return 432, nil, `{"detail":{"error":"This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com"}}`
		case "Bearer tvly-payg":
			return 433, nil, `{"detail":{"error":"This request exceeds the pay-as-you-go limit."}}`
		case "Bearer tvly-busy":
			return 429, nil, `{"detail":{"error":"Your request has been blocked due to excessive requests."}}`
		}
		return 401, nil, `{"detail":{"error":"Unauthorized: missing or invalid API key."}}`
	})
	tv := NewTavily(srv.URL, "tvly-good", time.Second)
	results, err := tv.Search(context.Background(), q("go"))
	if err != nil || len(results) != 1 || results[0].Score != 0.91 || results[0].Snippet != "Build simple, secure, scalable systems." {
		t.Fatalf("search %+v %v", results, err)
	}
	a, err := tv.Answer(context.Background(), q("go"))
	if err != nil || a.Text != "Go is a language made at Google." || len(a.Results) != 1 || a.Model != "tavily" {
		t.Fatalf("answer %+v %v", a, err)
	}
	for key, want := range map[string]struct {
		kind   search.Kind
		status int
		part   string
	}{
		"tvly-bad":  {search.Auth, 401, "missing or invalid API key.; check OPENHUMAN_TAVILY_API_KEY"},
		"tvly-plan": {search.Quota, 432, "exceeds your plan's set usage limit"},
		"tvly-payg": {search.Quota, 433, "pay-as-you-go limit"},
		"tvly-busy": {search.Transient, 429, "excessive requests"},
	} {
		_, err := NewTavily(srv.URL, key, time.Second).Search(context.Background(), q("go"))
		expectErr(t, err, want.kind, want.status, want.part)
	}
}

func TestExa(t *testing.T) {
	srv := apiFake(t, func(r *http.Request, body map[string]any) (int, http.Header, string) {
		switch r.Header.Get("x-api-key") {
		case "good":
			if body["numResults"] != 5.0 {
				return 400, nil, `{"error":"numResults missing"}`
			}
			return 200, nil, `{"requestId":"r1","results":[{"id":"https://go.dev/","title":"Go","url":"https://go.dev/","publishedDate":"2026-01-01T00:00:00.000Z","score":0.42,"highlights":["Go is expressive, concise, clean, and efficient."]},{"title":"Text only","url":"https://example.com/t","text":"Some page text."}]}`
		case "broke":
			return 402, nil, `{"error":"You have run out of credits."}`
		case "weird":
			return 400, nil, `{"error":"Invalid query."}`
		}
		return 401, nil, `{"error":"Invalid API key"}`
	})
	results, err := NewExa(srv.URL, "good", time.Second).Search(context.Background(), q("go"))
	if err != nil || len(results) != 2 || results[0].Snippet != "Go is expressive, concise, clean, and efficient." || results[0].Score != 0.42 || results[1].Snippet != "Some page text." {
		t.Fatalf("results %+v %v", results, err)
	}
	_, err = NewExa(srv.URL, "bad", time.Second).Search(context.Background(), q("go"))
	expectErr(t, err, search.Auth, 401, "Invalid API key", "check OPENHUMAN_EXA_API_KEY")
	_, err = NewExa(srv.URL, "broke", time.Second).Search(context.Background(), q("go"))
	expectErr(t, err, search.Quota, 402, "run out of credits")
	// A 400 about this query is not a reason to stop using Exa.
	_, err = NewExa(srv.URL, "weird", time.Second).Search(context.Background(), q("go"))
	expectErr(t, err, search.Transient, 400, "Invalid query.")
}

func TestGeminiGroundedAnswer(t *testing.T) {
	text := "Café prices rose in 2025. Tea stayed flat."
	first := len("Café prices rose in 2025.") // bytes, not characters
	srv := apiFake(t, func(r *http.Request, body map[string]any) (int, http.Header, string) {
		if r.Header.Get("x-goog-api-key") != "good" {
			return 400, nil, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}`
		}
		if r.URL.Path != "/v1beta/models/gemini-2.5-flash:generateContent" {
			return 404, nil, `{"error":{"code":404,"message":"models/x is not found for API version v1beta","status":"NOT_FOUND"}}`
		}
		tools, _ := json.Marshal(body["tools"])
		if string(tools) != `[{"google_search":{}}]` {
			return 400, nil, `{"error":{"code":400,"message":"no grounding tool","status":"INVALID_ARGUMENT"}}`
		}
		answer := map[string]any{"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}},
			"groundingMetadata": map[string]any{
				"webSearchQueries": []string{"cafe prices 2025"},
				"groundingChunks": []any{
					map[string]any{"web": map[string]any{"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/a", "title": "coffee.example"}},
					map[string]any{"web": map[string]any{"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/b", "title": "tea.example"}},
				},
				"groundingSupports": []any{
					map[string]any{"segment": map[string]any{"startIndex": 0, "endIndex": first, "text": "Café prices rose in 2025."}, "groundingChunkIndices": []int{0, 1, 7}},
					map[string]any{"segment": map[string]any{"startIndex": first + 1, "endIndex": len(text), "text": "Tea stayed flat."}, "groundingChunkIndices": []int{1}},
					map[string]any{"segment": map[string]any{"startIndex": 0, "endIndex": 9999}, "groundingChunkIndices": []int{0}},
				},
			},
		}}}
		raw, _ := json.Marshal(answer)
		return 200, nil, string(raw)
	})
	a, err := NewGemini(srv.URL, "good", "", time.Second).Answer(context.Background(), q("cafe prices"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Café prices rose in 2025.[1][2] Tea stayed flat.[2]"; a.Text != want {
		t.Fatalf("answer %q, want %q", a.Text, want)
	}
	if a.Model != "gemini-2.5-flash" || len(a.Citations) != 2 || a.Citations[1].Title != "tea.example" || len(a.Results) != 2 {
		t.Fatalf("answer %+v", a)
	}
	_, err = NewGemini(srv.URL, "bad", "", time.Second).Answer(context.Background(), q("x"))
	expectErr(t, err, search.Auth, 400, "API key not valid", "check OPENHUMAN_GEMINI_API_KEY")
	_, err = NewGemini(srv.URL, "good", "gemini-0-nope", time.Second).Answer(context.Background(), q("x"))
	expectErr(t, err, search.Auth, 404, "is not found", "check search.providers.gemini.base_url and model")
}

func TestInsertMarkersIgnoresWhatPointsNowhere(t *testing.T) {
	s := []GroundingSupport{{GroundingChunkIndices: []int{0}}, {GroundingChunkIndices: []int{-1, 3}}}
	s[0].Segment.EndIndex = 2
	s[1].Segment.EndIndex = 4
	if got := InsertMarkers("abcd", s, 1); got != "ab[1]cd" {
		t.Fatalf("got %q", got)
	}
	if got := InsertMarkers("abcd", nil, 0); got != "abcd" {
		t.Fatalf("got %q", got)
	}
}
