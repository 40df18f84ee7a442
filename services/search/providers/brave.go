package providers

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/httpjson"
	"github.com/openhuman-go/openhuman-go/services/search"
)

// Brave searches Brave's web search API.
type Brave struct {
	BaseURL string // https://api.search.brave.com
	Key     string
	http    *httpjson.Client
}

var _ search.Provider = (*Brave)(nil)

// NewBrave returns a Brave provider.
func NewBrave(baseURL, key string, timeout time.Duration) *Brave {
	if baseURL == "" {
		baseURL = "https://api.search.brave.com"
	}
	return &Brave{BaseURL: trimSlash(baseURL), Key: key, http: client("Brave Search", timeout)}
}

// Name is "brave".
func (b *Brave) Name() string { return "brave" }

// Search calls GET /res/v1/web/search.
func (b *Brave) Search(ctx context.Context, q search.Query) ([]search.Result, error) {
	v := url.Values{"q": {q.Text}, "count": {strconv.Itoa(min(q.MaxResults, 20))}}
	var a struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
				Age         string `json:"age"`
				PageAge     string `json:"page_age"`
			} `json:"results"`
		} `json:"web"`
	}
	headers := map[string]string{"X-Subscription-Token": b.Key, "Accept": "application/json"}
	if err := b.http.Get(ctx, b.BaseURL+"/res/v1/web/search?"+v.Encode(), headers, &a); err != nil {
		return nil, classify(b.Name(), err, "check OPENHUMAN_BRAVE_API_KEY")
	}
	out := make([]search.Result, 0, len(a.Web.Results))
	for i, r := range a.Web.Results {
		published := r.PageAge
		if published == "" {
			published = r.Age
		}
		out = append(out, search.Result{Title: r.Title, URL: r.URL, Snippet: r.Description, Provider: b.Name(), Published: published, Score: rankScore(i)})
	}
	return out, nil
}
