package providers

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/httpjson"
	"github.com/openhuman-go/openhuman-go/services/search"
)

// SearXNG searches a self-hosted SearXNG instance (GET /search?format=json).
type SearXNG struct {
	BaseURL  string
	Language string
	http     *httpjson.Client
}

var _ search.Provider = (*SearXNG)(nil)

// NewSearXNG returns a SearXNG provider.
func NewSearXNG(baseURL, language string, timeout time.Duration) *SearXNG {
	return &SearXNG{BaseURL: trimSlash(baseURL), Language: language, http: client("SearXNG", timeout)}
}

// Name is "searxng".
func (s *SearXNG) Name() string { return "searxng" }

type searxngAnswer struct {
	Results []struct {
		Title         string   `json:"title"`
		URL           string   `json:"url"`
		Content       string   `json:"content"`
		Engine        string   `json:"engine"`
		PublishedDate *string  `json:"publishedDate"`
		Score         *float64 `json:"score"`
	} `json:"results"`
	UnresponsiveEngines [][]string `json:"unresponsive_engines"`
}

// Search asks SearXNG, with the headers its bot limiter expects of a real
// client (the HTTP transport adds Accept-Encoding: gzip).
func (s *SearXNG) Search(ctx context.Context, q search.Query) ([]search.Result, error) {
	v := url.Values{"q": {q.Text}, "format": {"json"}, "pageno": {"1"}, "safesearch": {"0"}}
	lang := s.Language
	if q.Language != "" {
		lang = q.Language
	}
	if lang != "" {
		v.Set("language", lang)
	}
	headers := map[string]string{"Accept": "application/json", "Accept-Language": acceptLanguage(lang)}
	var a searxngAnswer
	if err := s.http.Get(ctx, s.BaseURL+"/search?"+v.Encode(), headers, &a); err != nil {
		pe := classify(s.Name(), err, "")
		switch pe.Status {
		case 403:
			pe.Message = "SearXNG at " + s.BaseURL + " answered 403: add json to search.formats in its settings.yml (it allows only html by default)"
		case 404:
			pe.Message = "SearXNG at " + s.BaseURL + " answered 404 for /search: set [searxng] base_url to the instance's root, such as http://localhost:8080"
		case 429:
			pe.Message = "SearXNG at " + s.BaseURL + " answered 429: its bot limiter refused us (it allows few JSON requests per IP); set server.limiter: false in settings.yml, or add this host to pass_ip in limiter.toml"
		}
		return nil, pe
	}
	if len(a.Results) == 0 && len(a.UnresponsiveEngines) > 0 {
		var engines []string
		for _, e := range a.UnresponsiveEngines {
			if len(e) > 0 {
				engines = append(engines, strings.Join(e, ": "))
			}
		}
		return nil, search.Errf(s.Name(), search.Transient, 200, "SearXNG returned no results because its engines failed (%s)", strings.Join(engines, "; "))
	}
	out := make([]search.Result, 0, len(a.Results))
	for i, r := range a.Results {
		res := search.Result{Title: r.Title, URL: r.URL, Snippet: r.Content, Provider: s.Name(), Score: rankScore(i)}
		if r.Score != nil {
			res.Score = *r.Score
		}
		if r.PublishedDate != nil {
			res.Published = *r.PublishedDate
		}
		out = append(out, res)
	}
	return out, nil
}

func acceptLanguage(lang string) string {
	if lang == "" || lang == "all" || lang == "auto" {
		return "en-US,en;q=0.9"
	}
	return lang + ",en;q=0.8"
}

// rankScore scores a result by its position when the API gives none.
func rankScore(i int) float64 { return 1 / float64(i+1) }
