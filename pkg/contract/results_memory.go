package contract

// Memory tools' results, as the memory service writes them and the
// gateway's console reads them.

// Hit is an item as tools return it.
type Hit struct {
	ID         string   `json:"id" jsonschema:"Item id (a fingerprint of its content)."`
	Kind       string   `json:"kind" jsonschema:"document, conversation or learning."`
	Text       string   `json:"text" jsonschema:"The item's text."`
	Meta       HitMeta  `json:"meta" jsonschema:"Metadata: where the item came from, who wrote it, when, and what it belongs to."`
	Score      *float64 `json:"score,omitempty" jsonschema:"Relevance; higher is better. Only on search results."`
	Confidence *float64 `json:"confidence,omitempty" jsonschema:"How sure the writer was, 0 to 1. Only on learnings."`
	Snippet    string   `json:"snippet,omitempty" jsonschema:"The sentence that best matches the query, its matching words in **bold**. Only from memory.fetch with snippets: true."`
	// Explain is where the score came from, when the fetch asked for it.
	Explain *Explanation `json:"explain,omitempty" jsonschema:"Where the score came from: the score is the sum of value × weight over the features of the last phase. Only from memory.fetch with explain: true."`
}

// HitMeta is an item's metadata as tools return it: where it came from,
// who wrote it, when, and what it belongs to.
type HitMeta struct {
	Source       string   `json:"source" jsonschema:"Where the item came from: folder, file, link, conversation, client, agent, import, ..."`
	Provenance   string   `json:"provenance" jsonschema:"Who wrote it: mcp:<client>, rpc, cli, agent:<id>, import:<tool>, ..."`
	LearningKind string   `json:"learning_kind,omitempty" jsonschema:"For learnings: what sort (preference, fact, procedure, correction, other)."`
	ObservedAt   string   `json:"observed_at" jsonschema:"When what it says was observed (RFC 3339)."`
	CreatedAt    string   `json:"created_at" jsonschema:"When it was first stored (RFC 3339)."`
	Tags         []string `json:"tags,omitempty" jsonschema:"Tags."`
	SourceID     string   `json:"source_id,omitempty" jsonschema:"What it came from: a file's path, thread:<id> for a conversation."`
	SourceRef    string   `json:"source_ref,omitempty" jsonschema:"Where in its source: a heading, a line range, a turn's time."`
	// SupersededBy is the learning that corrects this one in place.
	SupersededBy string `json:"superseded_by,omitempty" jsonschema:"The learning that corrects this one in place, when one does."`
	Meta
}

// Explanation is where a hit's score came from, as Vespa's
// match-features show it: the rank profile that scored the hit and the
// value of each named feature it read, with the weight the profile gives
// it in the phase that read it. The score is the sum of value × weight
// over the features of the last phase that scored the hit.
type Explanation struct {
	Profile  string         `json:"profile" jsonschema:"The rank profile that scored the hit."`
	Features []FeatureValue `json:"features"`
}

// FeatureValue is one named feature of a hit.
type FeatureValue struct {
	Name   string  `json:"name" jsonschema:"The feature, as the rank profile names it."`
	Phase  string  `json:"phase" jsonschema:"The ranking phase that read it."`
	Value  float64 `json:"value" jsonschema:"Its value for this hit."`
	Weight float64 `json:"weight" jsonschema:"The weight the profile gives it in that phase."`
}

// Product is what the feature adds to the score of its phase.
func (f FeatureValue) Product() float64 { return f.Value * f.Weight }

// LearnResult says which item holds a learning.
type LearnResult struct {
	ID       string `json:"id" jsonschema:"Id of the item holding the learning."`
	Replayed bool   `json:"replayed" jsonschema:"True when the same learning was already stored."`
	// Redacted names the kinds of secret removed before storing.
	Redacted []string `json:"redacted,omitempty" jsonschema:"Kinds of secret removed before storing (api_key, password, ...)."`
	// Seq is the write stream's sequence of the learning, when replicated:
	// a read with min_seq at least this sees it on any replica.
	Seq uint64 `json:"seq,omitempty"`
	// Replaces is the learning this one corrects, kept and marked
	// superseded.
	Replaces string `json:"replaces,omitempty" jsonschema:"The learning this one corrects, when replaces was given."`
}

// ForgetResult counts what was removed and names ids that were not there.
type ForgetResult struct {
	Forgotten int      `json:"forgotten" jsonschema:"How many items were deleted."`
	NotFound  []string `json:"not_found" jsonschema:"Ids that were not stored."`
	// Matched is how many items a source or workspace held: what a dry
	// run would forget.
	Matched *int `json:"matched,omitempty" jsonschema:"How many items the source or workspace held, or how many of the ids were stored: what a dry run would forget."`
	// Seq is the write stream's sequence of the forget, when replicated.
	Seq uint64 `json:"seq,omitempty"`
}

// seqRule describes a memory write's place in the replicated write stream.
var seqRule = described("With memory replication on: the write's sequence in the write stream. " +
	"A read with ctx.min_seq at least this sees the write on any replica (the gateway sets it for you).")

// FetchResult is memory.fetch's result: one page of hits, best first.
type FetchResult struct {
	Hits       []Hit  `json:"hits"`
	Mode       string `json:"mode" jsonschema:"The retrieval mode used."`
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"Pass as cursor for the next page; absent on the last page."`
	// Warnings say when the results are less than asked for, and why.
	Warnings []string `json:"warnings,omitempty" jsonschema:"Why the results are less than asked for, when they are."`
}

// ListResult is memory.list's result: one page of items, newest first.
type ListResult struct {
	Items      []Hit  `json:"items"`
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"Pass as cursor for the next page; absent on the last page."`
}

// Citation is a hit a recalled answer points at with [n], n counting
// from 1.
type Citation struct {
	ID      string  `json:"id" jsonschema:"Item id."`
	Kind    string  `json:"kind" jsonschema:"document, conversation or learning."`
	Snippet string  `json:"snippet" jsonschema:"The quoted part of the item."`
	Meta    HitMeta `json:"meta" jsonschema:"The item's metadata, as memory.fetch gives it."`
	Score   float64 `json:"score" jsonschema:"Relevance; higher is better."`
}

// RecallResult is memory.recall's result: an answer and what it is built
// from.
type RecallResult struct {
	Answer    string     `json:"answer" jsonschema:"The answer, with [n] markers pointing at citations[n-1]; starts with \"I don't know\" when memory holds nothing relevant."`
	Citations []Citation `json:"citations"`
	// Model says how the answer was written: "extractive" means sentences
	// quoted from memory, no language model involved; otherwise the
	// language model's name.
	Model string `json:"model" jsonschema:"How the answer was written: extractive, or the language model's name."`
	// Warnings say when the answer is less than it could be, and why.
	Warnings []string `json:"warnings,omitempty" jsonschema:"Why the answer is less than it could be, when it is."`
}

// hitRules describe the hits of a result at field.
func hitRules(field string) rules {
	return rules{field: items(described(hitDescription))}
}

// hitDescription describes a hit wherever one is published.
const hitDescription = "A stored item."
