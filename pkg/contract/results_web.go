package contract

// The web tools' results, as the search service writes them.

// WebResult is one web page found.
type WebResult struct {
	Title     string  `json:"title" jsonschema:"The page's title."`
	URL       string  `json:"url" jsonschema:"The page's URL as the provider gave it."`
	Snippet   string  `json:"snippet" jsonschema:"What the provider quotes of the page."`
	Provider  string  `json:"provider" jsonschema:"Who found it."`
	Published string  `json:"published,omitempty" jsonschema:"Publication date, when known."`
	Score     float64 `json:"score" jsonschema:"Relevance as the provider ranks it; higher is better."`
}

// WebCitation is a source an answer cites as [n].
type WebCitation struct {
	URL   string `json:"url" jsonschema:"The source's URL."`
	Title string `json:"title,omitempty" jsonschema:"The source's title, when known."`
}

// ProviderSkip says why a provider was passed over.
type ProviderSkip struct {
	Provider string `json:"provider" jsonschema:"The provider passed over."`
	Reason   string `json:"reason" jsonschema:"Why."`
}

// WebPage is what the web tools return.
type WebPage struct {
	Results      []WebResult    `json:"results" jsonschema:"Results, best first, deduplicated by normalized URL."`
	Provider     string         `json:"provider" jsonschema:"The provider that answered."`
	Answer       string         `json:"answer,omitempty" jsonschema:"The answer with [n] markers, ending with its numbered source list."`
	Citations    []WebCitation  `json:"citations" jsonschema:"Sources: [n] in the answer is citations[n-1]."`
	FallbackFrom []ProviderSkip `json:"fallback_from" jsonschema:"Providers tried or skipped before the one that answered, and why."`
	// Model says how an answer was written: a provider's grounded model,
	// a language model's name, or "extractive" (quoted snippets).
	Model  string `json:"model,omitempty" jsonschema:"How it was written: the grounded model (gemini-...), tavily, a language model's name, or extractive (quoted snippets)."`
	Cached bool   `json:"cached,omitempty" jsonschema:"True when served from the cache."`
}

// webPage is the output schema of the web tools: web_answer always
// answers, and says how; a search never does.
func webPage(answer bool) *Schema {
	s := outputFor[WebPage](nil)
	if answer {
		s.Required = append(s.Required, "answer", "model")
	} else {
		delete(s.Properties, "answer")
		delete(s.Properties, "model")
	}
	return s
}
