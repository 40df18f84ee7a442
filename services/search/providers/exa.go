package providers

import (
	"context"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/httpjson"
	"github.com/openhuman-go/openhuman-go/services/search"
)

// Exa searches with Exa's neural search API.
type Exa struct {
	BaseURL string // https://api.exa.ai
	Key     string
	http    *httpjson.Client
}

var _ search.Provider = (*Exa)(nil)

// NewExa returns an Exa provider.
func NewExa(baseURL, key string, timeout time.Duration) *Exa {
	if baseURL == "" {
		baseURL = "https://api.exa.ai"
	}
	return &Exa{BaseURL: trimSlash(baseURL), Key: key, http: client("Exa", timeout)}
}

// Name is "exa".
func (e *Exa) Name() string { return "exa" }

// Search calls POST /search with highlights for snippets.
func (e *Exa) Search(ctx context.Context, q search.Query) ([]search.Result, error) {
	body := map[string]any{"query": q.Text, "numResults": min(q.MaxResults, 20), "contents": map[string]any{"highlights": map[string]any{"numSentences": 2}}}
	var a struct {
		Results []struct {
			Title         string   `json:"title"`
			URL           string   `json:"url"`
			PublishedDate string   `json:"publishedDate"`
			Score         *float64 `json:"score"`
			Text          string   `json:"text"`
			Highlights    []string `json:"highlights"`
		} `json:"results"`
	}
	if err := e.http.Post(ctx, e.BaseURL+"/search", map[string]string{"x-api-key": e.Key}, body, &a); err != nil {
		return nil, classify(e.Name(), err, "check OPENHUMAN_EXA_API_KEY")
	}
	out := make([]search.Result, 0, len(a.Results))
	for i, r := range a.Results {
		snippet := r.Text
		if len(r.Highlights) > 0 {
			snippet = r.Highlights[0]
		}
		res := search.Result{Title: r.Title, URL: r.URL, Snippet: snippet, Provider: e.Name(), Published: r.PublishedDate, Score: rankScore(i)}
		if r.Score != nil {
			res.Score = *r.Score
		}
		out = append(out, res)
	}
	return out, nil
}
