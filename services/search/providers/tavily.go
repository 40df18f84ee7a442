package providers

import (
	"context"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/httpjson"
	"github.com/openhuman-go/openhuman-go/services/search"
)

// Tavily searches with Tavily, and answers with its include_answer.
type Tavily struct {
	BaseURL string // https://api.tavily.com
	Key     string
	http    *httpjson.Client
}

var (
	_ search.Provider = (*Tavily)(nil)
	_ search.Answerer = (*Tavily)(nil)
)

// NewTavily returns a Tavily provider.
func NewTavily(baseURL, key string, timeout time.Duration) *Tavily {
	if baseURL == "" {
		baseURL = "https://api.tavily.com"
	}
	return &Tavily{BaseURL: trimSlash(baseURL), Key: key, http: client("Tavily", timeout)}
}

// Name is "tavily".
func (t *Tavily) Name() string { return "tavily" }

type tavilyAnswer struct {
	Answer  string `json:"answer"`
	Results []struct {
		Title         string  `json:"title"`
		URL           string  `json:"url"`
		Content       string  `json:"content"`
		Score         float64 `json:"score"`
		PublishedDate string  `json:"published_date"`
	} `json:"results"`
}

func (t *Tavily) call(ctx context.Context, q search.Query, answer bool) (*tavilyAnswer, error) {
	depth := "basic"
	if q.Deep {
		depth = "advanced"
	}
	body := map[string]any{"query": q.Text, "max_results": min(q.MaxResults, 20), "include_answer": answer, "search_depth": depth}
	var a tavilyAnswer
	if err := t.http.Post(ctx, t.BaseURL+"/search", map[string]string{"Authorization": "Bearer " + t.Key}, body, &a); err != nil {
		return nil, classify(t.Name(), err, "check OPENHUMAN_TAVILY_API_KEY")
	}
	return &a, nil
}

func (t *Tavily) results(a *tavilyAnswer) []search.Result {
	out := make([]search.Result, 0, len(a.Results))
	for _, r := range a.Results {
		out = append(out, search.Result{Title: r.Title, URL: r.URL, Snippet: r.Content, Provider: t.Name(), Published: r.PublishedDate, Score: r.Score})
	}
	return out
}

// Search calls POST /search.
func (t *Tavily) Search(ctx context.Context, q search.Query) ([]search.Result, error) {
	a, err := t.call(ctx, q, false)
	if err != nil {
		return nil, err
	}
	return t.results(a), nil
}

// Answer calls POST /search with include_answer. Tavily's answer carries no
// markers; its sources come as the citations.
func (t *Tavily) Answer(ctx context.Context, q search.Query) (*search.Answer, error) {
	a, err := t.call(ctx, q, true)
	if err != nil {
		return nil, err
	}
	if a.Answer == "" {
		return nil, search.Errf(t.Name(), search.Malformed, 200, "Tavily returned no answer")
	}
	return &search.Answer{Text: a.Answer, Results: t.results(a), Model: "tavily"}, nil
}
