package contract

// The web tools' arguments.

// SearchParams are web_search's arguments.
type SearchParams struct {
	Query      string `json:"query" jsonschema:"What to search for."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"How many results (1 to 20)."`
	Provider   string `json:"provider,omitempty" jsonschema:"Use only this provider, with no fallback; it must be configured."`
}

// AnswerParams are web_answer's arguments.
type AnswerParams struct {
	Query string `json:"query" jsonschema:"The question."`
	Depth string `json:"depth,omitempty" jsonschema:"quick (the default) or deep: more sources and a deeper search where the provider offers one."`
}

// SearXNGParams are searxng_search's arguments: web_search's without a
// provider to pin, since SearXNG is the only one it asks.
type SearXNGParams struct {
	Query      string `json:"query" jsonschema:"What to search for."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"How many results (1 to 20; default from [searxng] max_results)."`
}
