package contract

import "strconv"

// FilterSchema restricts memory reads by metadata. Every field is checked and
// applied; an unknown field is an error, never silently ignored.
func FilterSchema() *Schema {
	str := func(d string) *Schema { return String(d).MaxLen(1024) }
	return Object("Only return items whose metadata matches every field given.", nil, map[string]*Schema{
		"workspace":       Workspace("Workspace name."),
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
		"learning_kinds":  Array("Only learnings, and only of these kinds (preference, fact, ...).", Enum("", LearningKinds...)).Count(1, len(LearningKinds)),
		"tags_any":        Array("Match items carrying at least one of these tags.", String("").MaxLen(100)).Count(1, 50),
		"observed_after":  Timestamp("Only items observed at or after this RFC 3339 time."),
		"observed_before": Timestamp("Only items observed before this RFC 3339 time."),
	})
}

// MemoryRecall answers a question from memory, citing it.
var MemoryRecall = Tool{
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
}

// DefaultMinScore is memory.fetch's relevance floor in hybrid mode: a hit
// below it holds next to none of the query's words and is far from it in
// meaning (the rerank scores 0.3 for the best fused rank, plus the share
// of the query's word weight a note holds).
const DefaultMinScore = 0.1

// MemoryFetch ranks stored items against a query.
var MemoryFetch = Tool{
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
		"min_score": Number("Leave out hits scoring below this. In hybrid mode the score is relevance, about 1.3 for a note holding "+
			"every word of the query, and hits below "+strconv.FormatFloat(DefaultMinScore, 'g', -1, 64)+" are left out unless this says otherwise; keyword (BM25) "+
			"and vector (cosine) scores have no floor unless this sets one. 0 returns every hit.").Range(0, 1000),
		"snippets": Boolean("Give each hit a snippet: its sentence that best matches the query, the matching words in **bold**."),
		"explain":  Boolean("Give each hit the rank profile and the value and weight of each named feature its score came from."),
	}),
	Output: func() *Schema {
		hit := hitSchema()
		hit.Properties["snippet"] = out("string", "The sentence that best matches the query, its matching words in **bold**. Only with snippets: true.")
		hit.Properties["explain"] = explainSchema()
		s := pageOf("hits", hit)
		s.Properties["mode"] = out("string", "The retrieval mode used.")
		s.Properties["warnings"] = &Schema{Type: "array", Description: "Why the results are less than asked for, when they are.", Items: out("string", "")}
		return s
	}(),
	Annotations: readOnly("Fetch memory hits"),
	Service:     ServiceMemory, Method: "fetch", RPC: "openhuman.memory_fetch",
	Use: "memory.fetch for the raw stored notes that match some words",
}

// explainSchema is a hit's explanation, as Vespa's match-features: the
// features are named by the rank profile, and change with it.
func explainSchema() *Schema {
	return outObject("Where the score came from: the score is the sum of value × weight over the features of the last phase. Only with explain: true.",
		[]string{"profile", "features"}, map[string]*Schema{
			"profile": out("string", "The rank profile that scored the hit."),
			"features": {Type: "array", Items: outObject("", []string{"name", "phase", "value", "weight"}, map[string]*Schema{
				"name":   out("string", "The feature, as the rank profile names it."),
				"phase":  out("string", "The ranking phase that read it."),
				"value":  out("number", "Its value for this hit."),
				"weight": out("number", "The weight the profile gives it in that phase."),
			})},
		})
}

// MemoryList pages through stored items, newest first.
var MemoryList = Tool{
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
}

// MemoryLearn stores one learning.
var MemoryLearn = Tool{
	Name:  "memory.learn",
	Title: "Learn",
	Description: "Store one learning about the user or their work (a preference, fact, procedure or correction). " +
		"Storing the same text again is a replay, not a duplicate. Keep each learning to one self-contained statement. " +
		"Secrets (API keys, tokens, passwords, private keys) are removed before storing.",
	Input: Object("", []string{"text"}, map[string]*Schema{
		"text":       String("The learning, one self-contained statement.").MaxLen(MaxLearnText),
		"kind":       Enum("What sort of learning this is.", LearningKinds...).Def(DefaultLearningKind),
		"confidence": Number("How sure you are, 0 to 1.").Range(0, 1).Def(DefaultConfidence),
		"workspace": Workspace("Workspace the learning belongs to. A caller limited to workspaces must name one of them, " +
			"unless it has exactly one, which is then the default."),
		"replaces": String("Id of a learning this one corrects in place: the old one is kept, marked superseded_by the new one, " +
			"and no longer found by memory.fetch or memory.recall. The new one takes its workspace, and its kind unless kind is given.").MaxLen(128),
	}),
	Output: outObject("", []string{"id", "replayed"}, map[string]*Schema{
		"id":       out("string", "Id of the item holding the learning."),
		"replayed": out("boolean", "True when the same learning was already stored."),
		"redacted": {Type: "array", Description: "Kinds of secret removed before storing (api_key, password, ...).", Items: out("string", "")},
		"seq":      seqOut,
		"replaces": out("string", "The learning this one corrects, when replaces was given."),
	}),
	Annotations: Annotations{Title: "Learn", ReadOnlyHint: no, DestructiveHint: no, IdempotentHint: no, OpenWorldHint: no},
	Service:     ServiceMemory, Method: "learn", RPC: "openhuman.memory_learn", Writes: true, Acts: true, Idempotent: true,
	Use:     "memory.learn to store a new preference, fact, procedure or correction (replaces corrects a learning in place)",
	Summary: []SummaryField{LengthOf("text"), ValueOf("kind")},
}

// seqOut is a memory write's place in the replicated write stream.
var seqOut = out("integer", "With memory replication on: the write's sequence in the write stream. "+
	"A read with ctx.min_seq at least this sees the write on any replica (the gateway sets it for you).")

// MemoryForget deletes items by id.
var MemoryForget = Tool{
	Name:  "memory.forget",
	Title: "Forget",
	Description: "Permanently delete memory items: by id (1 to 100 ids), or every item of a source (an ingested file, or a folder: " +
		"every file ingested under it) and/or of a workspace. dry_run counts what would go and deletes nothing. " +
		"The text and its index entries are gone for good.",
	Input: Object("", nil, map[string]*Schema{
		"ids": Array("Item ids, as returned by memory.fetch, memory.list or memory.learn.", String("").MaxLen(128)).Count(1, MaxForgetIDs),
		"source": String("Instead of ids: an ingested file's source id (its absolute path, as memory.list and tree.list_sources show it) " +
			"or a folder, which takes every source under it.").MaxLen(4096),
		"workspace": Workspace("Instead of ids: every item of this workspace (with source: only that source's items in it)."),
		"dry_run":   Boolean("Count what would be forgotten (matched), and forget nothing."),
	}),
	Output: outObject("", []string{"forgotten", "not_found"}, map[string]*Schema{
		"forgotten": out("integer", "How many items were deleted."),
		"not_found": {Type: "array", Description: "Ids that were not stored.", Items: out("string", "")},
		"matched":   out("integer", "How many items the source or workspace held, or how many of the ids were stored: what a dry run would forget."),
		"seq":       seqOut,
	}),
	Annotations: Annotations{Title: "Forget", ReadOnlyHint: no, DestructiveHint: yes, IdempotentHint: yes, OpenWorldHint: no},
	Service:     ServiceMemory, Method: "forget", RPC: "openhuman.memory_forget", Writes: true, Acts: true, Idempotent: true,
	Use:     "memory.forget to delete items by id, or what a source or workspace holds, when the user asks",
	Summary: []SummaryField{CountOf("ids", "id_count"), LengthOf("source"), ValueOf("workspace"), ValueOf("dry_run")},
}
