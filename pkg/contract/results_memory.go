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
