package contract

import (
	"strings"
	"time"
)

// Memory tools' arguments. Each type is what the memory service binds a
// call to and, through inputFor, the schema tools/list publishes and the
// service enforces: a field's json tag names the argument, omitempty makes
// it optional, and its jsonschema tag is its description.

// Meta is the metadata that places an item: where it lives and what it
// belongs to. Filters match on it, tools return it, exports carry it, and
// it is part of an item's id.
type Meta struct {
	Workspace string `json:"workspace,omitempty" jsonschema:"Workspace name."`
	Folder    string `json:"folder,omitempty" jsonschema:"Folder path."`
	FilePath  string `json:"file_path,omitempty" jsonschema:"File path."`
	Language  string `json:"language,omitempty" jsonschema:"Language, e.g. go, markdown, en."`
	Repo      string `json:"repo,omitempty" jsonschema:"Repository name or URL."`
	Commit    string `json:"commit,omitempty" jsonschema:"Commit hash."`
	URL       string `json:"url,omitempty" jsonschema:"Source URL."`
	ThreadID  string `json:"thread_id,omitempty" jsonschema:"Conversation thread id."`
	AgentID   string `json:"agent_id,omitempty" jsonschema:"Agent that wrote the item."`
}

// Filter restricts memory reads by metadata. Every field is checked and
// applied; an unknown field is an error, never silently ignored.
type Filter struct {
	Meta
	Kinds          []string   `json:"kinds,omitempty" jsonschema:"Item kinds to include."`
	Sources        []string   `json:"sources,omitempty" jsonschema:"Item sources to include."`
	LearningKinds  []string   `json:"learning_kinds,omitempty" jsonschema:"Only learnings, and only of these kinds (preference, fact, ...)."`
	TagsAny        []string   `json:"tags_any,omitempty" jsonschema:"Match items carrying at least one of these tags."`
	ObservedAfter  *time.Time `json:"observed_after,omitempty" jsonschema:"Only items observed at or after this RFC 3339 time."`
	ObservedBefore *time.Time `json:"observed_before,omitempty" jsonschema:"Only items observed before this RFC 3339 time."`
	// Workspaces, when not nil, are the only workspaces an item may be of:
	// the caller's scope, which the memory service sets and no argument can.
	Workspaces []string `json:"-"`
	// SourceIDs, when not empty, are the only sources (as tree.list_sources
	// names them) an item may be of: forget by source sets them.
	SourceIDs []string `json:"-"`
}

// filterRules complete the schema of a filter argument named field.
func filterRules(field string, rs rules) rules {
	str := maxLen(1024)
	exact := allOf(str, exactMatch)
	rs[field] = described("Only return items whose metadata matches every field given.")
	for name, r := range map[string]rule{
		"workspace": workspaceName, "folder": exact, "file_path": exact, "language": str, "repo": str,
		"commit": str, "url": exact, "thread_id": str, "agent_id": str,
		"kinds":           allOf(count(1, len(ItemKinds)), items(oneOf(ItemKinds...))),
		"sources":         allOf(count(1, len(ItemSources)), items(oneOf(ItemSources...))),
		"learning_kinds":  allOf(count(1, len(LearningKinds)), items(oneOf(LearningKinds...))),
		"tags_any":        allOf(count(1, 50), items(maxLen(100))),
		"observed_after":  dateTime,
		"observed_before": dateTime,
	} {
		rs[field+"."+name] = r
	}
	return rs
}

// exactMatch says a filter's field matches the whole value, not a part.
func exactMatch(s *Schema) { s.Description = strings.TrimSuffix(s.Description, ".") + ", exact." }

// limitRule and cursorRule are the paging arguments' bounds.
var (
	limitRule  = allOf(between(1, MaxLimit), byDefault(DefaultLimit))
	cursorRule = allOf(blankOK, maxLen(512))
)

// RecallParams are memory.recall's arguments.
type RecallParams struct {
	Question string  `json:"question" jsonschema:"The question to answer from memory."`
	Filter   *Filter `json:"filter,omitempty"`
	Limit    int     `json:"limit,omitempty" jsonschema:"Maximum number of results (1 to 100)."`
}

// FetchParams are memory.fetch's arguments.
type FetchParams struct {
	Query  string  `json:"query" jsonschema:"Words to look for."`
	Mode   string  `json:"mode,omitempty" jsonschema:"hybrid (the default) fuses keyword (BM25 over words) and vector (embedding similarity) rankings."`
	Filter *Filter `json:"filter,omitempty"`
	Limit  int     `json:"limit,omitempty" jsonschema:"Maximum number of results (1 to 100)."`
	Cursor string  `json:"cursor,omitempty" jsonschema:"Opaque cursor from a previous next_cursor; omit to start from the beginning."`
	// MinScore leaves out hits below it; nil means DefaultMinScore in
	// hybrid mode and no floor in the others.
	MinScore *float64 `json:"min_score,omitempty" jsonschema:"Leave out hits scoring below this. In hybrid mode the score is relevance, about 1.3 for a note holding every word of the query, and hits below 0.1 are left out unless this says otherwise; keyword (BM25) and vector (cosine) scores have no floor unless this sets one. 0 returns every hit."`
	Snippets bool     `json:"snippets,omitempty" jsonschema:"Give each hit a snippet: its sentence that best matches the query, the matching words in **bold**."`
	// Explain gives each hit the feature values its score came from.
	Explain bool `json:"explain,omitempty" jsonschema:"Give each hit the rank profile and the value and weight of each named feature its score came from."`
}

// ListParams are memory.list's arguments.
type ListParams struct {
	Filter *Filter `json:"filter,omitempty"`
	Limit  int     `json:"limit,omitempty" jsonschema:"Maximum number of results (1 to 100)."`
	Cursor string  `json:"cursor,omitempty" jsonschema:"Opaque cursor from a previous next_cursor; omit to start from the beginning."`
}

// LearnParams are memory.learn's arguments.
type LearnParams struct {
	Text       string   `json:"text" jsonschema:"The learning, one self-contained statement."`
	Kind       string   `json:"kind,omitempty" jsonschema:"What sort of learning this is."`
	Confidence *float64 `json:"confidence,omitempty" jsonschema:"How sure you are, 0 to 1."`
	Workspace  string   `json:"workspace,omitempty" jsonschema:"Workspace the learning belongs to. A caller limited to workspaces must name one of them, unless it has exactly one, which is then the default."`
	// Replaces is a learning this one corrects in place.
	Replaces string `json:"replaces,omitempty" jsonschema:"Id of a learning this one corrects in place: the old one is kept, marked superseded_by the new one, and no longer found by memory.fetch or memory.recall. The new one takes its workspace, and its kind unless kind is given."`
}

// ForgetParams name what memory.forget deletes: items by id, or every item
// of a source (an ingested file, or a folder: every file ingested under
// it) or of a workspace, or both.
type ForgetParams struct {
	IDs       []string `json:"ids,omitempty" jsonschema:"Item ids, as returned by memory.fetch, memory.list or memory.learn."`
	Source    string   `json:"source,omitempty" jsonschema:"Instead of ids: an ingested file's source id (its absolute path, as memory.list and tree.list_sources show it) or a folder, which takes every source under it."`
	Workspace string   `json:"workspace,omitempty" jsonschema:"Instead of ids: every item of this workspace (with source: only that source's items in it)."`
	DryRun    bool     `json:"dry_run,omitempty" jsonschema:"Count what would be forgotten (matched), and forget nothing."`
}

// ExportParams are memory.export's arguments.
type ExportParams struct {
	Workspace string `json:"workspace,omitempty" jsonschema:"Only items of this workspace."`
	Since     string `json:"since,omitempty" jsonschema:"Only items observed at or after this RFC 3339 time."`
	Limit     int    `json:"limit,omitempty" jsonschema:"Items per page (1 to 1000); a page also ends before about 1 MB."`
	Cursor    string `json:"cursor,omitempty" jsonschema:"Opaque cursor from a previous next_cursor; omit to start from the beginning."`
}

// ImportParams are export records for memory's import method to store.
type ImportParams struct {
	Items []ExportRecord `json:"items"`
}
