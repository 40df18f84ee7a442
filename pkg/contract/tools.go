package contract

import "encoding/json"

// Annotations are MCP tool hints. Pointers, because "false" is a statement
// and absence means "unknown" (and openWorldHint defaults to true in MCP).
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Tool describes one tool of the surface: how it is listed, checked and routed.
type Tool struct {
	Name        string
	Title       string
	Description string
	Input       *Schema
	// Output describes the result object. It is published in the tool
	// registry; MCP clients get results as text (and structuredContent for
	// Structured tools).
	Output      *Schema
	Annotations Annotations
	// Service and Method name the bus endpoint that serves the tool.
	Service string
	Method  string
	// RPC is the backing HTTP JSON-RPC method, "" when served in-layer.
	RPC string
	// Structured tools also return their result as structuredContent.
	Structured bool
	// Writes marks tools that change memory: each call is audited.
	Writes bool
	// Acts marks tools that pass the act gate (autonomy, the hourly action
	// budget): the writes, and running a sub-agent, which may write.
	Acts bool
	// Use completes "use <name> to ..." in the server instructions.
	Use string
	// Profiles are the MCP surfaces that list the tool (default: v2).
	Profiles []string
	// Needs says what configuration makes the tool available, for tools
	// a service offers only when configured ("" for the others).
	Needs string
}

// MCP surfaces. v2 is the current one; v1 is the older read-only memory
// tree. Tools of ProfileRPC are JSON-RPC methods only, never MCP tools.
const (
	ProfileV2  = "v2"
	ProfileV1  = "v1"
	ProfileRPC = "rpc"
)

// In reports whether the tool is listed in profile.
func (t Tool) In(profile string) bool {
	if len(t.Profiles) == 0 {
		return profile == ProfileV2
	}
	for _, p := range t.Profiles {
		if p == profile {
			return true
		}
	}
	return false
}

// CheckArguments decodes args (an object, or a JSON string holding one),
// checks them against the tool's input schema, and returns them decoded
// and re-encoded. Failures are INVALID_REQUEST naming the field.
func (t Tool) CheckArguments(args json.RawMessage) (map[string]any, json.RawMessage, error) {
	obj, err := DecodeArguments(args)
	if err == nil {
		err = t.Input.Validate(obj)
	}
	if err != nil {
		return nil, nil, AsError(err).With("tool", t.Name)
	}
	params, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, Errorf(CodeInvalidRequest, "arguments of %s cannot be re-encoded: %v", t.Name, err)
	}
	return obj, params, nil
}

// Subject is the NATS subject the tool's calls are sent to.
func (t Tool) Subject() string { return Subject(t.Service, t.Method) }

var (
	yes = func() *bool { b := true; return &b }()
	no  = func() *bool { b := false; return &b }()
)

func readOnly(title string) Annotations {
	return Annotations{Title: title, ReadOnlyHint: yes, OpenWorldHint: no}
}

// Limits shared by tools, the validator and the services.
const (
	DefaultLimit        = 10
	MaxLimit            = 100
	MaxLearnText        = 65536
	MaxQueryText        = 2000
	MaxForgetIDs        = 100
	DefaultLearningKind = "fact"
	DefaultConfidence   = 0.8
)

// LearningKinds are the values of memory.learn's kind.
var LearningKinds = []string{"preference", "fact", "procedure", "correction", "other"}

// ItemKinds are the kinds of stored items (filter.kinds).
var ItemKinds = []string{"document", "conversation", "learning"}

// ItemSources are where items came from (filter.sources).
var ItemSources = []string{"folder", "file", "link", "github", "rss", "composio", "conversation", "agent", "import"}

// FetchModes are the retrieval modes memory.fetch can name; an engine may
// support only some of them and answers UNSUPPORTED for the rest.
var FetchModes = []string{"keyword", "vector", "hybrid"}

// FilterSchema restricts memory reads by metadata. Every field is checked and
// applied; an unknown field is an error, never silently ignored.
func FilterSchema() *Schema {
	str := func(d string) *Schema { return String(d).MaxLen(1024) }
	return Object("Only return items whose metadata matches every field given.", nil, map[string]*Schema{
		"workspace":       str("Workspace name."),
		"folder":          str("Folder path, exact."),
		"file_path":       str("File path, exact."),
		"language":        str("Language, e.g. go, markdown, en."),
		"repo":            str("Repository name or URL."),
		"commit":          str("Commit hash."),
		"url":             str("Source URL, exact."),
		"thread_id":       str("Conversation thread id."),
		"agent_id":        str("Agent that wrote the item."),
		"kinds":           Array("Item kinds to include.", Enum("", ItemKinds...)).Count(1, len(ItemKinds)),
		"sources":         Array("Item sources to include.", Enum("", ItemSources...)).Count(1, len(ItemSources)),
		"tags_any":        Array("Match items carrying at least one of these tags.", String("").MaxLen(100)).Count(1, 50),
		"observed_after":  Timestamp("Only items observed at or after this RFC 3339 time."),
		"observed_before": Timestamp("Only items observed before this RFC 3339 time."),
	})
}

// out is a schema for a result field: results promise what they hold, not
// that nothing else will ever appear, so objects stay open.
func out(typ, desc string) *Schema { return &Schema{Type: typ, Description: desc} }

func outObject(desc string, required []string, props map[string]*Schema) *Schema {
	return &Schema{Type: "object", Description: desc, Required: required, Properties: props}
}

func hitSchema() *Schema {
	return outObject("A stored item.", []string{"id", "kind", "text", "meta"}, map[string]*Schema{
		"id":         out("string", "Item id (a fingerprint of its content)."),
		"kind":       out("string", "document, conversation or learning."),
		"text":       out("string", "The item's text."),
		"meta":       out("object", "Metadata: source, provenance, observed_at, created_at, learning_kind, workspace, repo, tags, ..."),
		"score":      out("number", "Relevance; higher is better. Only on search results."),
		"confidence": out("number", "How sure the writer was, 0 to 1. Only on learnings."),
	})
}

func pageOf(field string, item *Schema) *Schema {
	return outObject("", []string{field}, map[string]*Schema{
		field:         {Type: "array", Items: item},
		"next_cursor": out("string", "Pass as cursor for the next page; absent on the last page."),
	})
}

func chunkRow() *Schema {
	return outObject("A memory-tree chunk.", []string{"id", "source_kind", "source_id", "owner", "timestamp_ms", "token_count", "content_preview", "tags"}, map[string]*Schema{
		"id": out("string", ""), "source_kind": out("string", ""), "source_id": out("string", ""), "source_ref": out("string", "Where in the source: a heading or a line range."),
		"owner": out("string", "Who stored it."), "timestamp_ms": out("integer", ""), "token_count": out("integer", ""),
		"content_preview": out("string", "Up to 500 characters."), "tags": {Type: "array", Items: out("string", "")},
	})
}

func chunkRows() *Schema { return &Schema{Type: "array", Items: chunkRow()} }

func limitSchema() *Schema {
	return Integer("Maximum number of results (1 to 100).").Range(1, MaxLimit).Def(DefaultLimit)
}

func cursorSchema() *Schema {
	return String("Opaque cursor from a previous next_cursor; omit to start from the beginning.").AllowBlank().MaxLen(512)
}

// Web tools' limits and names.
const (
	MaxSearchQuery        = 400 // what the search APIs take (Brave's q is at most 400 characters)
	DefaultSearchResults  = 5
	MaxSearchResults      = 20
	WebAnswerQuick        = "quick"
	WebAnswerDeep         = "deep"
	webResultsDescription = "Results, best first, deduplicated by normalized URL."
)

// SearchProviders are the providers web_search can be pinned to.
var SearchProviders = []string{"searxng", "brave", "tavily", "exa"}

func webQuery(desc string) *Schema { return String(desc).MaxLen(MaxSearchQuery) }

func maxResults() *Schema {
	return Integer("How many results (1 to 20).").Range(1, MaxSearchResults).Def(DefaultSearchResults)
}

// webPage is the result of the web tools.
func webPage(answer bool) *Schema {
	props := map[string]*Schema{
		"results": {Type: "array", Description: webResultsDescription, Items: outObject("", []string{"title", "url", "snippet", "provider", "score"}, map[string]*Schema{
			"title": out("string", ""), "url": out("string", "The page's URL as the provider gave it."), "snippet": out("string", ""),
			"provider": out("string", "Who found it."), "published": out("string", "Publication date, when known."),
			"score": out("number", "Relevance as the provider ranks it; higher is better."),
		})},
		"provider":  out("string", "The provider that answered."),
		"citations": {Type: "array", Description: "Sources: [n] in the answer is citations[n-1].", Items: outObject("", []string{"url"}, map[string]*Schema{"url": out("string", ""), "title": out("string", "")})},
		"fallback_from": {Type: "array", Description: "Providers tried or skipped before the one that answered, and why.", Items: outObject("", []string{"provider", "reason"}, map[string]*Schema{
			"provider": out("string", ""), "reason": out("string", ""),
		})},
		"cached": out("boolean", "True when served from the cache."),
	}
	required := []string{"results", "provider", "citations", "fallback_from"}
	if answer {
		props["answer"] = out("string", "The answer with [n] markers, ending with its numbered source list.")
		props["model"] = out("string", "How it was written: the grounded model (gemini-...), tavily, a language model's name, or extractive (quoted snippets).")
		required = append(required, "answer", "model")
	}
	return outObject("", required, props)
}

// webNeeds is what the web tools need to be offered.
const webNeeds = "configure a search provider: enable SearXNG ([searxng] enabled = true and base_url, or OPENHUMAN_SEARXNG_ENABLED and OPENHUMAN_SEARXNG_BASE_URL) or set an API key such as OPENHUMAN_BRAVE_API_KEY"

func webAnnotations(title string) Annotations {
	return Annotations{Title: title, ReadOnlyHint: yes, OpenWorldHint: yes}
}

var catalog = []Tool{
	{
		Name:  "web_search",
		Title: "Web search",
		Description: "Search the web through the configured providers in order (SearXNG, Brave, Tavily, Exa), falling back " +
			"to the next when one fails; fallback_from says who was skipped and why. Set provider to use only that one.",
		Input: Object("", []string{"query"}, map[string]*Schema{
			"query":       webQuery("What to search for."),
			"max_results": maxResults(),
			"provider":    Enum("Use only this provider, with no fallback; it must be configured.", SearchProviders...),
		}),
		Output:      webPage(false),
		Annotations: webAnnotations("Web search"),
		Service:     ServiceSearch, Method: "web_search", RPC: "openhuman.tools_web_search",
		Use: "web_search to find current pages on the web", Needs: webNeeds,
	},
	{
		Name:  "web_answer",
		Title: "Web answer",
		Description: "Answer a question from the web with numbered citations [n]: Gemini grounded in Google Search when " +
			"configured, else Tavily's answer, else web results written up by the configured language model or quoted. " +
			"model and provider say which.",
		Input: Object("", []string{"query"}, map[string]*Schema{
			"query": webQuery("The question."),
			"depth": Enum("quick (the default) or deep: more sources and a deeper search where the provider offers one.", WebAnswerQuick, WebAnswerDeep).Def(WebAnswerQuick),
		}),
		Output:      webPage(true),
		Annotations: webAnnotations("Web answer"),
		Service:     ServiceSearch, Method: "web_answer", RPC: "openhuman.tools_web_answer",
		Use: "web_answer to answer a question from the web with cited sources", Needs: webNeeds + " (or OPENHUMAN_GEMINI_API_KEY)",
	},
	{
		Name:        "searxng_search",
		Title:       "SearXNG search",
		Description: "Search the configured self-hosted SearXNG instance only.",
		Input: Object("", []string{"query"}, map[string]*Schema{
			"query":       webQuery("What to search for."),
			"max_results": Integer("How many results (1 to 20; default from [searxng] max_results).").Range(1, MaxSearchResults),
		}),
		Output:      webPage(false),
		Annotations: webAnnotations("SearXNG search"),
		Service:     ServiceSearch, Method: "searxng_search", RPC: "openhuman.tools_searxng_search",
		Use:   "searxng_search to search the user's own SearXNG instance",
		Needs: "enable SearXNG: [searxng] enabled = true and base_url (or OPENHUMAN_SEARXNG_ENABLED=true and OPENHUMAN_SEARXNG_BASE_URL)",
	},
	{
		Name:  "memory.recall",
		Title: "Recall from memory",
		Description: "Ask a question and get an answer built only from what is stored in memory, with numbered " +
			"citations [n] pointing at the returned citations. Answers \"I don't know\" when nothing relevant is stored.",
		Input: Object("", []string{"question"}, map[string]*Schema{
			"question": String("The question to answer from memory.").MaxLen(MaxQueryText),
			"filter":   FilterSchema(),
			"limit":    limitSchema(),
		}),
		Output: outObject("", []string{"answer", "citations", "model"}, map[string]*Schema{
			"answer": out("string", "The answer, with [n] markers pointing at citations[n-1]; starts with \"I don't know\" when memory holds nothing relevant."),
			"citations": {Type: "array", Items: outObject("", []string{"id", "kind", "snippet", "meta", "score"}, map[string]*Schema{
				"id": out("string", ""), "kind": out("string", ""), "snippet": out("string", "The quoted part of the item."),
				"meta": out("object", ""), "score": out("number", ""),
			})},
			"model":    out("string", "How the answer was written: extractive, or the language model's name."),
			"warnings": {Type: "array", Description: "Why the answer is less than it could be, when it is.", Items: out("string", "")},
		}),
		Annotations: readOnly("Recall from memory"),
		Service:     ServiceMemory, Method: "recall", RPC: "openhuman.memory_recall",
		Use: "memory.recall to answer a question from what the user told you before",
	},
	{
		Name:  "memory.fetch",
		Title: "Fetch memory hits",
		Description: "Raw memory items matching a query, best first, with scores and metadata. Use filter to " +
			"restrict by workspace, repo, kinds, sources, tags or time, and next_cursor to page.",
		Input: Object("", []string{"query"}, map[string]*Schema{
			"query":  String("Words to look for.").MaxLen(MaxQueryText),
			"mode":   Enum("hybrid (the default) fuses keyword (BM25 over words) and vector (embedding similarity) rankings.", FetchModes...),
			"filter": FilterSchema(),
			"limit":  limitSchema(),
			"cursor": cursorSchema(),
		}),
		Output: func() *Schema {
			s := pageOf("hits", hitSchema())
			s.Properties["mode"] = out("string", "The retrieval mode used.")
			s.Properties["warnings"] = &Schema{Type: "array", Description: "Why the results are less than asked for, when they are.", Items: out("string", "")}
			return s
		}(),
		Annotations: readOnly("Fetch memory hits"),
		Service:     ServiceMemory, Method: "fetch", RPC: "openhuman.memory_fetch",
		Use: "memory.fetch for the raw stored notes that match some words",
	},
	{
		Name:        "memory.list",
		Title:       "List memory items",
		Description: "Page through stored memory items, newest first. Use filter to narrow and next_cursor to continue.",
		Input: Object("", nil, map[string]*Schema{
			"filter": FilterSchema(),
			"limit":  limitSchema(),
			"cursor": cursorSchema(),
		}),
		Output:      pageOf("items", hitSchema()),
		Annotations: readOnly("List memory items"),
		Service:     ServiceMemory, Method: "list", RPC: "openhuman.memory_items_list",
		Use: "memory.list to browse what is stored, newest first",
	},
	{
		Name:  "memory.learn",
		Title: "Learn",
		Description: "Store one learning about the user or their work (a preference, fact, procedure or correction). " +
			"Storing the same text again is a replay, not a duplicate. Keep each learning to one self-contained statement. " +
			"Secrets (API keys, tokens, passwords, private keys) are removed before storing.",
		Input: Object("", []string{"text"}, map[string]*Schema{
			"text":       String("The learning, one self-contained statement.").MaxLen(MaxLearnText),
			"kind":       Enum("What sort of learning this is.", LearningKinds...).Def(DefaultLearningKind),
			"confidence": Number("How sure you are, 0 to 1.").Range(0, 1).Def(DefaultConfidence),
		}),
		Output: outObject("", []string{"id", "replayed"}, map[string]*Schema{
			"id":       out("string", "Id of the item holding the learning."),
			"replayed": out("boolean", "True when the same learning was already stored."),
			"redacted": {Type: "array", Description: "Kinds of secret removed before storing (api_key, password, ...).", Items: out("string", "")},
		}),
		Annotations: Annotations{Title: "Learn", ReadOnlyHint: no, DestructiveHint: no, IdempotentHint: no, OpenWorldHint: no},
		Service:     ServiceMemory, Method: "learn", RPC: "openhuman.memory_learn", Writes: true, Acts: true,
		Use: "memory.learn to store a new preference, fact, procedure or correction",
	},
	{
		Name:        "memory.forget",
		Title:       "Forget",
		Description: "Permanently delete memory items by id (1 to 100 ids). The text and its index entries are gone for good.",
		Input: Object("", []string{"ids"}, map[string]*Schema{
			"ids": Array("Item ids, as returned by memory.fetch, memory.list or memory.learn.", String("").MaxLen(128)).Count(1, MaxForgetIDs),
		}),
		Output: outObject("", []string{"forgotten", "not_found"}, map[string]*Schema{
			"forgotten": out("integer", "How many items were deleted."),
			"not_found": {Type: "array", Description: "Ids that were not stored.", Items: out("string", "")},
		}),
		Annotations: Annotations{Title: "Forget", ReadOnlyHint: no, DestructiveHint: yes, IdempotentHint: yes, OpenWorldHint: no},
		Service:     ServiceMemory, Method: "forget", RPC: "openhuman.memory_forget", Writes: true, Acts: true,
		Use: "memory.forget to delete items by id when the user asks",
	},
	{
		Name:  "memory.search",
		Title: "Search memory",
		Description: "Keyword search over memory-tree chunks (stored notes and ingested files), best first. " +
			"Returns chunk rows with a 500-character preview; read one whole with tree.read_chunk.",
		Input: Object("", []string{"query"}, map[string]*Schema{
			"query": String("Words to look for.").MaxLen(MaxQueryText),
			"k":     Integer("How many chunks (1 to 50).").Range(1, 50).Def(10),
		}),
		Output:      outObject("", []string{"chunks", "total"}, map[string]*Schema{"chunks": chunkRows(), "total": out("integer", "How many chunks match in all.")}),
		Annotations: readOnly("Search memory"),
		Service:     ServiceMemory, Method: "tree_search", RPC: "openhuman.memory_tree_search", Profiles: []string{ProfileV1},
		Use: "memory.search for chunks containing some words",
	},
	{
		Name:        "memory.recall",
		Title:       "Recall chunks",
		Description: "Semantic recall over memory-tree chunks: the chunks closest to the query in meaning and words, with scores.",
		Input: Object("", []string{"query"}, map[string]*Schema{
			"query": String("What to recall.").MaxLen(MaxQueryText),
			"k":     Integer("How many chunks (1 to 50).").Range(1, 50).Def(10),
		}),
		Output:      outObject("", []string{"chunks", "scores"}, map[string]*Schema{"chunks": chunkRows(), "scores": {Type: "array", Items: out("number", "")}}),
		Annotations: readOnly("Recall chunks"),
		Service:     ServiceMemory, Method: "tree_recall", RPC: "openhuman.memory_tree_recall", Profiles: []string{ProfileV1},
		Use: "memory.recall for the chunks most related to a topic",
	},
	{
		Name:        "tree.read_chunk",
		Title:       "Read a chunk",
		Description: "One chunk in full, by the id memory.search, memory.recall, memory.fetch or tree.browse returned.",
		Input: Object("", []string{"chunk_id"}, map[string]*Schema{
			"chunk_id": String("The chunk's id.").MaxLen(128),
		}),
		Output:      outObject("", []string{"chunk", "content"}, map[string]*Schema{"chunk": chunkRow(), "content": out("string", "The whole text.")}),
		Annotations: readOnly("Read a chunk"),
		Service:     ServiceMemory, Method: "tree_get_chunk", RPC: "openhuman.memory_tree_get_chunk", Profiles: []string{ProfileV2, ProfileV1},
		Use: "tree.read_chunk to read one chunk whole",
	},
	{
		Name:        "tree.browse",
		Title:       "Browse chunks",
		Description: "Page through chunks, newest first, narrowed by source kinds, source ids, entity ids, a time window and words.",
		Input: Object("", nil, map[string]*Schema{
			"source_kinds": Array("Source kinds: folder, file, conversation, agent, ...", String("").MaxLen(64)).Count(1, 20),
			"source_ids":   Array("Source ids, as tree.list_sources names them.", String("").MaxLen(4096)).Count(1, 100),
			"entity_ids":   Array("Entity ids, as tree.top_entities names them (kind:surface).", String("").MaxLen(512)).Count(1, 100),
			"since_ms":     Integer("Only chunks observed at or after this Unix time in milliseconds.").Range(0, 1e15),
			"until_ms":     Integer("Only chunks observed before this Unix time in milliseconds.").Range(0, 1e15),
			"query":        String("Only chunks containing any of these words.").MaxLen(MaxQueryText),
			"k":            Integer("How many chunks (1 to 100).").Range(1, 100).Def(10),
			"offset":       Integer("How many to skip, for paging.").Range(0, 1e9).Def(0),
		}),
		Output:      outObject("", []string{"chunks", "total"}, map[string]*Schema{"chunks": chunkRows(), "total": out("integer", "How many chunks match in all.")}),
		Annotations: readOnly("Browse chunks"),
		Service:     ServiceMemory, Method: "tree_list_chunks", RPC: "openhuman.memory_tree_list_chunks", Profiles: []string{ProfileV2, ProfileV1},
		Use: "tree.browse to page through chunks by source, entity or time",
	},
	{
		Name:        "tree.top_entities",
		Title:       "Top entities",
		Description: "The most mentioned entities (people and terms, emails, URLs, @handles, #hashtags), optionally of one kind.",
		Input: Object("", nil, map[string]*Schema{
			"kind": Enum("Only this kind.", "term", "email", "url", "handle", "hashtag"),
			"k":    Integer("How many (1 to 100).").Range(1, 100).Def(10),
		}),
		Output: outObject("", []string{"entities"}, map[string]*Schema{"entities": {Type: "array", Items: outObject("", []string{"entity_id", "kind", "surface", "count"}, map[string]*Schema{
			"entity_id": out("string", "kind:lowercased-surface"), "kind": out("string", ""), "surface": out("string", ""), "count": out("integer", "How many chunks mention it."),
		})}}),
		Annotations: readOnly("Top entities"),
		Service:     ServiceMemory, Method: "tree_top_entities", RPC: "openhuman.memory_tree_top_entities", Profiles: []string{ProfileV2, ProfileV1},
		Use: "tree.top_entities for who and what memory mentions most",
	},
	{
		Name:        "tree.list_sources",
		Title:       "List sources",
		Description: "Every source of memory (ingested files and folders, conversations, the clients that stored learnings) with chunk counts and last activity.",
		Input: Object("", nil, map[string]*Schema{
			"user_email_hint": String("The user's email address: sources that mention it are marked and listed first.").MaxLen(320),
		}),
		Output: outObject("", []string{"sources"}, map[string]*Schema{"sources": {Type: "array", Items: outObject("", []string{"source_id", "display_name", "source_kind", "chunk_count", "most_recent_ms"}, map[string]*Schema{
			"source_id": out("string", ""), "display_name": out("string", ""), "source_kind": out("string", ""),
			"chunk_count": out("integer", ""), "most_recent_ms": out("integer", ""), "mentions_user": out("boolean", ""),
		})}}),
		Annotations: readOnly("List sources"),
		Service:     ServiceMemory, Method: "tree_list_sources", RPC: "openhuman.memory_tree_list_sources", Profiles: []string{ProfileV2, ProfileV1},
		Use: "tree.list_sources to see where memory came from",
	},
	{
		Name:        "core.list_tools",
		Title:       "List core agent tools",
		Description: "The live catalog of tools the core agent can use: name, description and JSON Schema parameters.",
		Input:       Object("", nil, nil),
		Output: outObject("", []string{"tools"}, map[string]*Schema{
			"tools": {Type: "array", Items: outObject("", []string{"name", "description", "parameters"}, map[string]*Schema{
				"name": out("string", ""), "description": out("string", ""), "parameters": out("object", "JSON Schema of the arguments."),
			})},
		}),
		Annotations: readOnly("List core agent tools"),
		Service:     ServiceAgents, Method: "list_tools", Structured: true,
		Use: "core.list_tools to see every tool the core agent can call",
	},
	{
		Name:        "core.tool_instructions",
		Title:       "Core tool instructions",
		Description: "The Markdown tool-use instruction block given to prompt-guided agents, built from the live tool catalog.",
		Input:       Object("", nil, nil),
		Output: outObject("", []string{"instructions"}, map[string]*Schema{
			"instructions": out("string", "Markdown."),
		}),
		Annotations: readOnly("Core tool instructions"),
		Service:     ServiceAgents, Method: "tool_instructions", Structured: true,
		Use: "core.tool_instructions for the tool-use block agents are prompted with",
	},
	{
		Name:        "agent.list_subagents",
		Title:       "List sub-agents",
		Description: "The registered sub-agent definitions: id, name, when to use each, its tools, temperature, iteration cap and sandbox mode.",
		Input:       Object("", nil, nil),
		Output: outObject("", []string{"definitions"}, map[string]*Schema{
			"definitions": {Type: "array", Items: outObject("", []string{"id", "display_name", "when_to_use", "tools", "temperature", "max_iterations", "sandbox_mode"}, map[string]*Schema{
				"id": out("string", ""), "display_name": out("string", ""), "when_to_use": out("string", ""),
				"tools":       {Type: "array", Items: out("string", "")},
				"temperature": out("number", ""), "max_iterations": out("integer", ""),
				"sandbox_mode": out("string", "read_only or memory_write."),
			})},
		}),
		Annotations: readOnly("List sub-agents"),
		Service:     ServiceAgents, Method: "list_subagents", Structured: true,
		Use: "agent.list_subagents to see the specialist sub-agents",
	},
	{
		Name:  "agent.run_subagent",
		Title: "Run a sub-agent",
		Description: "Hand a task to one of the registered sub-agents (see agent.list_subagents) and get its final response. " +
			"The sub-agent works with a language model and only the tools of its definition; its memory writes pass the " +
			"approval gate and are audited.",
		Input: Object("", []string{"agent_id", "prompt"}, map[string]*Schema{
			"agent_id": String("Id of a registered sub-agent, as agent.list_subagents returns it (e.g. librarian, researcher).").MaxLen(64),
			"prompt":   String("The task, in full: the sub-agent sees nothing else of this conversation.").MaxLen(MaxLearnText),
		}),
		Output: outObject("", []string{"agent_id", "response", "steps", "tool_calls"}, map[string]*Schema{
			"agent_id": out("string", ""),
			"response": out("string", "The sub-agent's final answer."),
			"steps":    out("integer", "Language-model turns taken."),
			"tool_calls": {Type: "array", Description: "Every tool the sub-agent called, in order.", Items: outObject("", []string{"tool", "ok", "ms"}, map[string]*Schema{
				"tool": out("string", ""), "ok": out("boolean", ""), "ms": out("integer", "How long it took."),
				"error": out("string", "Why it failed, when it did."),
			})},
			"model": out("string", "The language model that ran it."),
		}),
		Annotations: Annotations{Title: "Run a sub-agent", ReadOnlyHint: no, DestructiveHint: yes, OpenWorldHint: yes},
		Service:     ServiceAgents, Method: "run_subagent", Structured: true, Acts: true,
		Use: "agent.run_subagent to hand a task to a specialist sub-agent",
	},
}

// approvalItem is a call waiting for a decision.
func approvalItem() *Schema {
	return outObject("", []string{"id", "agent_id", "tool", "arguments", "client", "requested_ms", "expires_ms"}, map[string]*Schema{
		"id": out("string", "Pass to openhuman.approval_decide."), "agent_id": out("string", "The sub-agent asking."),
		"tool": out("string", "The tool it wants to call."), "arguments": out("object", "What it would call it with."),
		"client": out("string", "Who started the run."), "requested_ms": out("integer", ""),
		"expires_ms": out("integer", "When the call is denied if nobody decides."),
	})
}

func init() {
	catalog = append(catalog,
		Tool{
			Name: "approval.list", Title: "List pending approvals",
			Description: "Sub-agents' side-effecting calls waiting for a decision ([approval] mode = ask), oldest first.",
			Input:       Object("", nil, nil),
			Output: outObject("", []string{"mode", "pending"}, map[string]*Schema{
				"mode":    out("string", "The approval mode: auto, deny or ask."),
				"pending": {Type: "array", Items: approvalItem()},
			}),
			Annotations: readOnly("List pending approvals"),
			Service:     ServiceAgents, Method: "approval_list", RPC: "openhuman.approval_list", Profiles: []string{ProfileRPC},
			Use: "approval.list to see sub-agents' calls waiting for approval",
		},
		Tool{
			Name: "approval.decide", Title: "Decide a pending approval",
			Description: "Approve or deny one waiting call by id; the sub-agent goes on either way, told the outcome.",
			Input: Object("", []string{"id", "approve"}, map[string]*Schema{
				"id":      String("The id from openhuman.approval_list.").MaxLen(64),
				"approve": Boolean("true to let the call run, false to refuse it."),
				"reason":  String("Why, told to the sub-agent when denied.").MaxLen(500),
			}),
			Output: outObject("", []string{"id", "approved"}, map[string]*Schema{
				"id": out("string", ""), "approved": out("boolean", ""),
			}),
			Annotations: Annotations{Title: "Decide a pending approval", ReadOnlyHint: no, DestructiveHint: no, IdempotentHint: no, OpenWorldHint: no},
			Service:     ServiceAgents, Method: "approval_decide", RPC: "openhuman.approval_decide", Profiles: []string{ProfileRPC},
			Use: "approval.decide to approve or deny a sub-agent's waiting call",
		},
	)
}

// MaxDelegationDepth bounds sub-agents running sub-agents: a run started
// by a client is depth 0, one it starts depth 1, and so on.
const MaxDelegationDepth = 2

// Tools returns every tool definition of every profile, in listing order.
// The values are shared: callers must not modify them.
func Tools() []Tool { return catalog }

// ToolsFor returns the tools of one profile, in listing order.
func ToolsFor(profile string) []Tool {
	var out []Tool
	for _, t := range catalog {
		if t.In(profile) {
			out = append(out, t)
		}
	}
	return out
}

// ToolFor finds a tool of a profile by name.
func ToolFor(profile, name string) (Tool, bool) {
	for _, t := range catalog {
		if t.Name == name && t.In(profile) {
			return t, true
		}
	}
	return Tool{}, false
}

// ToolByName finds a tool by name in the default profile, then in v1, then
// among the JSON-RPC-only methods.
func ToolByName(name string) (Tool, bool) {
	for _, p := range []string{ProfileV2, ProfileV1, ProfileRPC} {
		if t, ok := ToolFor(p, name); ok {
			return t, true
		}
	}
	return Tool{}, false
}

// LiveTools returns the tools of profile whose endpoint subject is in
// served, in listing order: a tool is offered only while something can
// answer it.
func LiveTools(profile string, served map[string]bool) []Tool {
	var out []Tool
	for _, t := range ToolsFor(profile) {
		if served[t.Subject()] {
			out = append(out, t)
		}
	}
	return out
}
