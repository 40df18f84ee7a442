package contract

// TreeSearch is the v1 surface's keyword search over chunks (memory.search).
var TreeSearch = Tool{
	Name:  "memory.search",
	Title: "Search memory",
	Description: "Keyword search over memory-tree chunks (stored notes and ingested files), best first. " +
		"Returns chunk rows with a 500-character preview; read one whole with tree.read_chunk.",
	Input:       treeQuery("Words to look for."),
	Output:      chunkList(),
	Annotations: readOnly("Search memory"),
	Service:     ServiceMemory, Method: "tree_search", RPC: "openhuman.memory_tree_search", Profiles: []string{ProfileV1},
	Use: "memory.search for chunks containing some words",
}

// TreeRecall is the v1 surface's memory.recall: chunks closest to a query.
var TreeRecall = Tool{
	Name:        "memory.recall",
	Title:       "Recall chunks",
	Description: "Semantic recall over memory-tree chunks: the chunks closest to the query in meaning and words, with scores.",
	Input:       treeQuery("What to recall."),
	Output:      scoredChunks(),
	Annotations: readOnly("Recall chunks"),
	Service:     ServiceMemory, Method: "tree_recall", RPC: "openhuman.memory_tree_recall", Profiles: []string{ProfileV1},
	Use: "memory.recall for the chunks most related to a topic",
}

// TreeReadChunk reads one chunk whole.
var TreeReadChunk = Tool{
	Name:        "tree.read_chunk",
	Title:       "Read a chunk",
	Description: "One chunk in full, by the id memory.search, memory.recall, memory.fetch or tree.browse returned.",
	Input:       inputFor[ReadChunkParams](rules{"chunk_id": maxLen(128)}),
	Output:      fullChunk(),
	Annotations: readOnly("Read a chunk"),
	Service:     ServiceMemory, Method: "tree_get_chunk", RPC: "openhuman.memory_tree_get_chunk", Profiles: []string{ProfileV2, ProfileV1},
	Use: "tree.read_chunk to read one chunk whole",
}

// TreeBrowse pages through chunks by source, entity, time or words.
var TreeBrowse = Tool{
	Name:        "tree.browse",
	Title:       "Browse chunks",
	Description: "Page through chunks, newest first, narrowed by source kinds, source ids, entity ids, a time window and words.",
	Input: inputFor[BrowseParams](rules{
		"source_kinds": allOf(count(1, 20), items(maxLen(64))),
		"source_ids":   allOf(count(1, 100), items(maxLen(4096))),
		"entity_ids":   allOf(count(1, 100), items(maxLen(512))),
		"since_ms":     between(0, 1e15),
		"until_ms":     between(0, 1e15),
		"query":        maxLen(MaxQueryText),
		"k":            allOf(between(1, 100), byDefault(10)),
		"offset":       allOf(between(0, 1e9), byDefault(0)),
	}),
	Output:      chunkList(),
	Annotations: readOnly("Browse chunks"),
	Service:     ServiceMemory, Method: "tree_list_chunks", RPC: "openhuman.memory_tree_list_chunks", Profiles: []string{ProfileV2, ProfileV1},
	Use: "tree.browse to page through chunks by source, entity or time",
}

// TreeTopEntities lists the most mentioned entities.
var TreeTopEntities = Tool{
	Name:        "tree.top_entities",
	Title:       "Top entities",
	Description: "The most mentioned entities (people and terms, emails, URLs, @handles, #hashtags), optionally of one kind.",
	Input: inputFor[TopEntitiesParams](rules{
		"kind": oneOf(EntityKinds...),
		"k":    allOf(between(1, 100), byDefault(10)),
	}),
	Output:      outputFor[EntityList](nil),
	Annotations: readOnly("Top entities"),
	Service:     ServiceMemory, Method: "tree_top_entities", RPC: "openhuman.memory_tree_top_entities", Profiles: []string{ProfileV2, ProfileV1},
	Use: "tree.top_entities for who and what memory mentions most",
}

// TreeListSources lists where memory came from.
var TreeListSources = Tool{
	Name:        "tree.list_sources",
	Title:       "List sources",
	Description: "Every source of memory (ingested files and folders, conversations, the clients that stored learnings) with chunk counts and last activity.",
	Input:       inputFor[ListSourcesParams](rules{"user_email_hint": maxLen(320)}),
	Output:      outputFor[SourceList](nil),
	Annotations: readOnly("List sources"),
	Service:     ServiceMemory, Method: "tree_list_sources", RPC: "openhuman.memory_tree_list_sources", Profiles: []string{ProfileV2, ProfileV1},
	Use: "tree.list_sources to see where memory came from",
}
