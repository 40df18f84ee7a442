package providers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/httpjson"
	"github.com/openhuman-go/openhuman-go/services/search"
)

// Gemini answers with Google Search grounding.
type Gemini struct {
	BaseURL string // https://generativelanguage.googleapis.com
	Key     string
	Model   string // e.g. gemini-2.5-flash
	http    *httpjson.Client
}

var _ search.Answerer = (*Gemini)(nil)

// NewGemini returns a Gemini answerer.
func NewGemini(baseURL, key, model string, timeout time.Duration) *Gemini {
	if baseURL == "" {
		baseURL = "https://generativelanguage.googleapis.com"
	}
	if model == "" {
		model = "gemini-2.5-flash"
	}
	return &Gemini{BaseURL: trimSlash(baseURL), Key: key, Model: model, http: client("Gemini", timeout)}
}

// Name is "gemini".
func (g *Gemini) Name() string { return "gemini" }

type geminiAnswer struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"content"`
		GroundingMetadata struct {
			GroundingChunks []struct {
				Web struct {
					URI   string `json:"uri"`
					Title string `json:"title"`
				} `json:"web"`
			} `json:"groundingChunks"`
			GroundingSupports []GroundingSupport `json:"groundingSupports"`
		} `json:"groundingMetadata"`
	} `json:"candidates"`
}

// GroundingSupport ties a segment of the answer to the chunks behind it.
type GroundingSupport struct {
	Segment struct {
		StartIndex int `json:"startIndex"`
		EndIndex   int `json:"endIndex"`
	} `json:"segment"`
	GroundingChunkIndices []int `json:"groundingChunkIndices"`
}

// Answer calls :generateContent with the google_search tool, then turns the
// grounding supports into [n] markers (n = chunk index + 1) at the end of
// each supported segment.
func (g *Gemini) Answer(ctx context.Context, q search.Query) (*search.Answer, error) {
	body := map[string]any{
		"contents": []map[string]any{{"parts": []map[string]any{{"text": q.Text}}}},
		"tools":    []map[string]any{{"google_search": map[string]any{}}},
	}
	var a geminiAnswer
	u := fmt.Sprintf("%s/v1beta/models/%s:generateContent", g.BaseURL, g.Model)
	if err := g.http.Post(ctx, u, map[string]string{"x-goog-api-key": g.Key}, body, &a); err != nil {
		return nil, classify(g.Name(), err, "check OPENHUMAN_GEMINI_API_KEY")
	}
	if len(a.Candidates) == 0 {
		return nil, search.Errf(g.Name(), search.Malformed, 200, "Gemini returned no candidate")
	}
	c := a.Candidates[0]
	var text strings.Builder
	for _, p := range c.Content.Parts {
		text.WriteString(p.Text)
	}
	ans := &search.Answer{Model: g.Model}
	for i, ch := range c.GroundingMetadata.GroundingChunks {
		ans.Citations = append(ans.Citations, search.Citation{URL: ch.Web.URI, Title: ch.Web.Title})
		ans.Results = append(ans.Results, search.Result{Title: ch.Web.Title, URL: ch.Web.URI, Provider: g.Name(), Score: rankScore(i)})
	}
	ans.Text = InsertMarkers(text.String(), c.GroundingMetadata.GroundingSupports, len(ans.Citations))
	return ans, nil
}

// InsertMarkers places [n] markers after the supported segments of text.
// Offsets are UTF-8 byte offsets; markers go in from the last segment to
// the first so that earlier offsets stay valid. Indices that point at no
// chunk, and segments out of range, are ignored.
func InsertMarkers(text string, supports []GroundingSupport, chunks int) string {
	type mark struct {
		at    int
		label string
	}
	var marks []mark
	for _, s := range supports {
		end := s.Segment.EndIndex
		if end <= 0 || end > len(text) {
			continue
		}
		var b strings.Builder
		for _, idx := range s.GroundingChunkIndices {
			if idx >= 0 && idx < chunks {
				fmt.Fprintf(&b, "[%d]", idx+1)
			}
		}
		if b.Len() > 0 {
			marks = append(marks, mark{end, b.String()})
		}
	}
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].at > marks[j].at })
	for _, m := range marks {
		text = text[:m.at] + m.label + text[m.at:]
	}
	return text
}
