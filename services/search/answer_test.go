package search

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

type fakeAnswerer struct {
	name   string
	answer *Answer
	err    error
	calls  atomic.Int32
	deep   atomic.Bool
}

func (f *fakeAnswerer) Name() string { return f.name }

func (f *fakeAnswerer) Answer(_ context.Context, q Query) (*Answer, error) {
	f.calls.Add(1)
	f.deep.Store(q.Deep)
	if f.err != nil {
		return nil, f.err
	}
	return f.answer, nil
}

type fakeWriter struct {
	text    string
	err     error
	sources []string
}

func (w *fakeWriter) Model() string { return "test-model" }

func (w *fakeWriter) Write(_ context.Context, _ string, sources []string) (string, error) {
	w.sources = sources
	return w.text, w.err
}

func answerService(answerers []*fakeAnswerer, providers []*fakeProvider, w Writer) *Service {
	opts := Options{Answerers: map[string]Answerer{}, Providers: map[string]Provider{}, Writer: w}
	for _, a := range answerers {
		opts.Answerers[a.name] = a
		opts.AnswerOrder = append(opts.AnswerOrder, a.name)
	}
	for _, p := range providers {
		opts.Providers[p.name] = p
		opts.SearchOrder = append(opts.SearchOrder, p.name)
	}
	return NewService(opts)
}

func TestAnswerFromTheFirstAnswererThatWorks(t *testing.T) {
	gemini := &fakeAnswerer{name: "gemini", err: Errf("gemini", Transient, 503, "Gemini answered 503")}
	tavily := &fakeAnswerer{name: "tavily", answer: &Answer{
		Text:    "Go 1.18 added generics.",
		Results: []Result{{Title: "Go 1.18 notes", URL: "https://go.dev/doc/go1.18", Snippet: "generics", Provider: "tavily"}},
		Model:   "tavily",
	}}
	s := answerService([]*fakeAnswerer{gemini, tavily}, nil, nil)
	p, err := s.WebAnswer(context.Background(), AnswerParams{Query: "when did Go get generics", Depth: "deep"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Provider != "tavily" || p.Model != "tavily" || !tavily.deep.Load() {
		t.Fatalf("provider %s model %s deep %v", p.Provider, p.Model, tavily.deep.Load())
	}
	if p.FallbackFrom[0] != (Skip{Provider: "gemini", Reason: "Gemini answered 503"}) {
		t.Fatalf("fallback_from %+v", p.FallbackFrom)
	}
	want := "Go 1.18 added generics.\n\nSources:\n[1] Go 1.18 notes — https://go.dev/doc/go1.18"
	if p.Answer != want || len(p.Citations) != 1 {
		t.Fatalf("answer %q citations %+v", p.Answer, p.Citations)
	}
}

func TestAnswerWrittenFromSearchResultsKeepsOnlyRealCitations(t *testing.T) {
	brave := okProvider("brave")
	w := &fakeWriter{text: "It is first [1] and also [7] second [2, 9]."}
	s := answerService(nil, []*fakeProvider{brave}, w)
	p, err := s.WebAnswer(context.Background(), AnswerParams{Query: "what"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Model != "test-model" || p.Provider != "brave" {
		t.Fatalf("model %s provider %s", p.Model, p.Provider)
	}
	if !strings.HasPrefix(p.Answer, "It is first [1] and also second [2].\n\nSources:\n[1] One — https://example.com/1\n[2] Two") {
		t.Fatalf("answer %q", p.Answer)
	}
	if len(w.sources) != 2 || w.sources[0] != "One: first brave" {
		t.Fatalf("sources given to the writer: %q", w.sources)
	}
}

func TestAnswerIsQuotedWhenTheWriterFailsOrCitesNothing(t *testing.T) {
	for name, w := range map[string]*fakeWriter{
		"cites nothing": {text: "Something with no sources [9]."},
		"fails":         {err: contract.Errorf(contract.CodeUnavailable, "LLM at http://x answered 500")},
		"no writer":     nil,
	} {
		var writer Writer
		if w != nil {
			writer = w
		}
		s := answerService(nil, []*fakeProvider{okProvider("searxng")}, writer)
		p, err := s.WebAnswer(context.Background(), AnswerParams{Query: "what"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Model != "extractive" || !strings.HasPrefix(p.Answer, "From the web:\n- first searxng [1]\n- second searxng [2]\n\nSources:") {
			t.Fatalf("%s: model %s answer %q", name, p.Model, p.Answer)
		}
	}
}

func TestAnswerFailureListsAnswerersAndSearchProviders(t *testing.T) {
	gemini := &fakeAnswerer{name: "gemini", err: Errf("gemini", Auth, 403, "Gemini answered 403; check OPENHUMAN_GEMINI_API_KEY")}
	s := answerService([]*fakeAnswerer{gemini}, []*fakeProvider{failing("exa", Transient, 0, "timeout")}, nil)
	_, err := s.WebAnswer(context.Background(), AnswerParams{Query: "q"})
	e := contract.AsError(err)
	if e.Code != contract.CodeUnavailable || !strings.Contains(e.Message, "gemini: Gemini answered 403") || !strings.Contains(e.Message, "exa: timeout") {
		t.Fatalf("err %v", err)
	}
	if _, err := NewService(Options{}).WebAnswer(context.Background(), AnswerParams{Query: "q"}); contract.ErrorCode(err) != contract.CodeUnavailable {
		t.Fatalf("nothing configured: %v", err)
	}
}

func TestAnswersAreCachedByDepth(t *testing.T) {
	g := &fakeAnswerer{name: "gemini", answer: &Answer{Text: "yes [1]", Citations: []Citation{{URL: "https://a.example", Title: "A"}}, Model: "gemini-2.5-flash"}}
	s := answerService([]*fakeAnswerer{g}, nil, nil)
	for _, depth := range []string{"quick", "quick", "deep", "deep"} {
		if _, err := s.WebAnswer(context.Background(), AnswerParams{Query: "q", Depth: depth}); err != nil {
			t.Fatal(err)
		}
	}
	if g.calls.Load() != 2 {
		t.Fatalf("answerer called %d times, want once per depth", g.calls.Load())
	}
}
