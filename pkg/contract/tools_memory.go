package contract

// MemoryRecall answers a question from memory, citing it.
var MemoryRecall = Tool{
	Name:  "memory.recall",
	Title: "Recall from memory",
	Description: "Ask a question and get an answer built only from what is stored in memory, with numbered " +
		"citations [n] pointing at the returned citations. Answers \"I don't know\" when nothing relevant is stored.",
	Input: inputFor[RecallParams](filterRules("filter", rules{
		"question": maxLen(MaxQueryText),
		"limit":    limitRule,
	})),
	Output:      outputFor[RecallResult](nil),
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
	Input: inputFor[FetchParams](filterRules("filter", rules{
		"query":     maxLen(MaxQueryText),
		"mode":      oneOf(FetchModes...),
		"limit":     limitRule,
		"cursor":    cursorRule,
		"min_score": between(0, 1000),
	})),
	Output:      outputFor[FetchResult](hitRules("hits")),
	Annotations: readOnly("Fetch memory hits"),
	Service:     ServiceMemory, Method: "fetch", RPC: "openhuman.memory_fetch",
	Use: "memory.fetch for the raw stored notes that match some words",
}

// MemoryList pages through stored items, newest first.
var MemoryList = Tool{
	Name:        "memory.list",
	Title:       "List memory items",
	Description: "Page through stored memory items, newest first. Use filter to narrow and next_cursor to continue.",
	Input: inputFor[ListParams](filterRules("filter", rules{
		"limit":  limitRule,
		"cursor": cursorRule,
	})),
	Output:      outputFor[ListResult](hitRules("items")),
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
	Input: inputFor[LearnParams](rules{
		"text":       maxLen(MaxLearnText),
		"kind":       allOf(oneOf(LearningKinds...), byDefault(DefaultLearningKind)),
		"confidence": allOf(between(0, 1), byDefault(DefaultConfidence)),
		"workspace":  workspaceName,
		"replaces":   maxLen(128),
	}),
	Output:      outputFor[LearnResult](rules{"seq": seqRule}),
	Annotations: Annotations{Title: "Learn", ReadOnlyHint: no, DestructiveHint: no, IdempotentHint: no, OpenWorldHint: no},
	Service:     ServiceMemory, Method: "learn", RPC: "openhuman.memory_learn", Writes: true, Acts: true, Idempotent: true,
	Use:     "memory.learn to store a new preference, fact, procedure or correction (replaces corrects a learning in place)",
	Summary: []SummaryField{LengthOf("text"), ValueOf("kind")},
}

// MemoryForget deletes items by id.
var MemoryForget = Tool{
	Name:  "memory.forget",
	Title: "Forget",
	Description: "Permanently delete memory items: by id (1 to 100 ids), or every item of a source (an ingested file, or a folder: " +
		"every file ingested under it) and/or of a workspace. dry_run counts what would go and deletes nothing. " +
		"The text and its index entries are gone for good.",
	Input: inputFor[ForgetParams](rules{
		"ids":       allOf(count(1, MaxForgetIDs), items(maxLen(128))),
		"source":    maxLen(4096),
		"workspace": workspaceName,
	}),
	Output:      outputFor[ForgetResult](rules{"seq": seqRule}),
	Annotations: Annotations{Title: "Forget", ReadOnlyHint: no, DestructiveHint: yes, IdempotentHint: yes, OpenWorldHint: no},
	Service:     ServiceMemory, Method: "forget", RPC: "openhuman.memory_forget", Writes: true, Acts: true, Idempotent: true,
	Use:     "memory.forget to delete items by id, or what a source or workspace holds, when the user asks",
	Summary: []SummaryField{CountOf("ids", "id_count"), LengthOf("source"), ValueOf("workspace"), ValueOf("dry_run")},
}
