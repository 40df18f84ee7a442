package contract

// Memory tools' results, as the memory service writes them and the
// gateway's console reads them.

// Hit is an item as tools return it.
type Hit struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Text       string   `json:"text"`
	Meta       HitMeta  `json:"meta"`
	Score      *float64 `json:"score,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
	Snippet    string   `json:"snippet,omitempty"`
	// Explain is where the score came from, when the fetch asked for it.
	Explain *Explanation `json:"explain,omitempty"`
}

// HitMeta is an item's metadata as tools return it: where it came from,
// who wrote it, when, and what it belongs to.
type HitMeta struct {
	Source       string   `json:"source"`
	Provenance   string   `json:"provenance"`
	LearningKind string   `json:"learning_kind,omitempty"`
	ObservedAt   string   `json:"observed_at"`
	CreatedAt    string   `json:"created_at"`
	Tags         []string `json:"tags,omitempty"`
	SourceID     string   `json:"source_id,omitempty"`
	SourceRef    string   `json:"source_ref,omitempty"`
	// SupersededBy is the learning that corrects this one in place.
	SupersededBy string `json:"superseded_by,omitempty"`
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
