package search

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// AnswerParams are declared in pkg/contract, which generates their schema.
type AnswerParams = contract.AnswerParams

// AnswerInstructions tell a language model how to answer from web results.
const AnswerInstructions = `You answer the question using only the numbered web search results.
Cite every statement with the numbers of the results it comes from, in square brackets: [1] or [2][3].
If the results do not answer the question, say so in one sentence.
Do not add anything the results do not say. Be brief.`

// answerSources is how many results a written or extractive answer uses.
const answerSources = 5

// WebAnswer answers a question from the web with numbered citations: a
// grounded answerer first (Gemini with Google Search, then Tavily), or else
// search results written up by the language model, or else quoted. Model
// and Provider say which.
func (s *Service) WebAnswer(ctx context.Context, p AnswerParams) (*Page, error) {
	deep := p.Depth == contract.WebAnswerDeep
	depth := contract.WebAnswerQuick
	if deep {
		depth = contract.WebAnswerDeep
	}
	order := append(s.answerOrder(), s.searchOrder()...)
	if len(order) == 0 {
		return nil, contract.Errorf(contract.CodeUnavailable, "no answer or search provider is configured: set OPENHUMAN_GEMINI_API_KEY, a search provider's key, or enable SearXNG")
	}
	max := answerSources
	if deep {
		max = 2 * answerSources
	}
	return s.cached(ctx, "answer:"+depth, order, p.Query, max, func(ctx context.Context) (*Page, error) {
		page, err := s.answer(ctx, Query{Text: p.Query, MaxResults: max, Deep: deep})
		if err != nil {
			return nil, err
		}
		page.Answer = withSources(page.Answer, page.Citations)
		return page, nil
	})
}

func (s *Service) answer(ctx context.Context, q Query) (*Page, error) {
	var skips []Skip
	for _, name := range s.answerOrder() {
		if skip := s.admit(ctx, name); skip != nil {
			skips = append(skips, Skip{Provider: name, Reason: skip.reason})
			continue
		}
		start := time.Now()
		pctx, done := s.opts.Phase(ctx, "search answerer "+name)
		a, err := s.opts.Answerers[name].Answer(pctx, q)
		done(err)
		if err != nil {
			until := s.failed(name, err, time.Since(start))
			skips = append(skips, Skip{Provider: name, Reason: s.skipReason(err, until)})
			continue
		}
		s.succeeded(name, time.Since(start))
		results := dedupe(a.Results)
		if len(results) > q.MaxResults {
			results = results[:q.MaxResults]
		}
		citations := a.Citations
		if citations == nil {
			citations = citationsOf(results)
		}
		return &Page{Results: nonNilResults(results), Provider: name, Answer: a.Text, Citations: citations, FallbackFrom: nonNil(skips), Model: a.Model}, nil
	}
	// No answerer could: search, then write or quote.
	order := s.searchOrder()
	if len(order) == 0 {
		return nil, allFailed(skips)
	}
	page, err := s.search(ctx, q, order, false)
	if err != nil {
		e := contract.AsError(err)
		if fs, ok := e.Data["fallback_from"].([]Skip); ok {
			return nil, allFailed(append(skips, fs...))
		}
		return nil, err
	}
	page.FallbackFrom = append(nonNil(skips), page.FallbackFrom...)
	s.writeUp(ctx, q.Text, page)
	return page, nil
}

// writeUp fills page's answer from its results: written by the language
// model when there is one and its citations hold, else quoted.
func (s *Service) writeUp(ctx context.Context, question string, page *Page) {
	if len(page.Results) == 0 {
		page.Answer, page.Model = "The web search found nothing for that question.", "extractive"
		return
	}
	if s.opts.Writer != nil {
		sources := make([]string, len(page.Results))
		for i, r := range page.Results {
			sources[i] = r.Title + ": " + r.Snippet
		}
		written, err := s.opts.Writer.Write(ctx, question, sources)
		if err == nil {
			if checked, valid := contract.CheckCitations(written, len(page.Results)); valid > 0 {
				page.Answer, page.Model = checked, s.opts.Writer.Model()
				return
			}
			s.log.Debug("the language model's answer cited no source; quoting instead")
		} else {
			s.log.Warn("the language model could not be used; quoting the results", "err", contract.ErrorMessage(err))
		}
	}
	var b strings.Builder
	b.WriteString("From the web:")
	for i, r := range page.Results {
		if i == 3 {
			break
		}
		snippet := strings.TrimSpace(r.Snippet)
		if snippet == "" {
			snippet = r.Title
		}
		fmt.Fprintf(&b, "\n- %s [%d]", snippet, i+1)
	}
	page.Answer, page.Model = b.String(), "extractive"
}

// withSources ends an answer with its numbered source list, so a reader of
// the text alone can follow every [n].
func withSources(answer string, citations []Citation) string {
	if len(citations) == 0 {
		return answer
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(answer, "\n"))
	b.WriteString("\n\nSources:")
	for i, c := range citations {
		title := c.Title
		if title == "" {
			title = c.URL
		}
		fmt.Fprintf(&b, "\n[%d] %s — %s", i+1, title, c.URL)
	}
	return b.String()
}

func nonNilResults(r []Result) []Result {
	if r == nil {
		return []Result{}
	}
	return r
}
