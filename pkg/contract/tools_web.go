package contract

// Web tools' limits and names.
const (
	MaxSearchQuery       = 400 // what the search APIs take (Brave's q is at most 400 characters)
	DefaultSearchResults = 5
	MaxSearchResults     = 20
	WebAnswerQuick       = "quick"
	WebAnswerDeep        = "deep"
)

// SearchProviders are the providers web_search can be pinned to.
var SearchProviders = []string{"searxng", "brave", "tavily", "exa"}

// maxResults bounds web_search's max_results.
var maxResults = allOf(between(1, MaxSearchResults), byDefault(DefaultSearchResults))

// webNeeds is what the web tools need to be offered.
const webNeeds = "configure a search provider: enable SearXNG ([searxng] enabled = true and base_url, or OPENHUMAN_SEARXNG_ENABLED and OPENHUMAN_SEARXNG_BASE_URL) or set an API key such as OPENHUMAN_BRAVE_API_KEY"

func webAnnotations(title string) Annotations {
	return Annotations{Title: title, ReadOnlyHint: yes, OpenWorldHint: yes}
}

// WebSearch searches the web through the configured providers.
var WebSearch = Tool{
	Name:  "web_search",
	Title: "Web search",
	Description: "Search the web through the configured providers in order (SearXNG, Brave, Tavily, Exa), falling back " +
		"to the next when one fails; fallback_from says who was skipped and why. Set provider to use only that one.",
	Input: inputFor[SearchParams](rules{
		"query":       maxLen(MaxSearchQuery),
		"max_results": maxResults,
		"provider":    oneOf(SearchProviders...),
	}),
	Output:      webPage(false),
	Annotations: webAnnotations("Web search"),
	Service:     ServiceSearch, Method: "web_search", RPC: "openhuman.tools_web_search",
	Use: "web_search to find current pages on the web", Needs: webNeeds,
}

// WebAnswer answers a question from the web with citations.
var WebAnswer = Tool{
	Name:  "web_answer",
	Title: "Web answer",
	Description: "Answer a question from the web with numbered citations [n]: Gemini grounded in Google Search when " +
		"configured, else Tavily's answer, else web results written up by the configured language model or quoted. " +
		"model and provider say which.",
	Input: inputFor[AnswerParams](rules{
		"query": maxLen(MaxSearchQuery),
		"depth": allOf(oneOf(WebAnswerQuick, WebAnswerDeep), byDefault(WebAnswerQuick)),
	}),
	Output:      webPage(true),
	Annotations: webAnnotations("Web answer"),
	Service:     ServiceSearch, Method: "web_answer", RPC: "openhuman.tools_web_answer",
	Use: "web_answer to answer a question from the web with cited sources", Needs: webNeeds + " (or OPENHUMAN_GEMINI_API_KEY)",
}

// SearXNGSearch searches the user's SearXNG instance only.
var SearXNGSearch = Tool{
	Name:        "searxng_search",
	Title:       "SearXNG search",
	Description: "Search the configured self-hosted SearXNG instance only.",
	Input: inputFor[SearXNGParams](rules{
		"query":       maxLen(MaxSearchQuery),
		"max_results": between(1, MaxSearchResults),
	}),
	Output:      webPage(false),
	Annotations: webAnnotations("SearXNG search"),
	Service:     ServiceSearch, Method: "searxng_search", RPC: "openhuman.tools_searxng_search",
	Use:   "searxng_search to search the user's own SearXNG instance",
	Needs: "enable SearXNG: [searxng] enabled = true and base_url (or OPENHUMAN_SEARXNG_ENABLED=true and OPENHUMAN_SEARXNG_BASE_URL)",
}
