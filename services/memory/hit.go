package memory

import "time"

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

// Explanation is where a hit's score came from, as Vespa's
// match-features show it: the rank profile that scored the hit and the
// value of each named feature it read, with the weight the profile gives
// it in the phase that read it. The score is the sum of value × weight
// over the features of the last phase that scored the hit.
type Explanation struct {
	Profile  string         `json:"profile"`
	Features []FeatureValue `json:"features"`
}

// FeatureValue is one named feature of a hit.
type FeatureValue struct {
	Name   string  `json:"name"`
	Phase  string  `json:"phase"`
	Value  float64 `json:"value"`
	Weight float64 `json:"weight"`
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

func hitOf(it Item, score *float64) Hit {
	return Hit{ID: it.ID, Kind: it.Kind, Text: it.Text, Score: score, Confidence: it.Confidence, Meta: HitMeta{
		Source: it.Source, Provenance: it.Provenance, LearningKind: it.LearningKind,
		ObservedAt: it.ObservedAt.UTC().Format(time.RFC3339Nano), CreatedAt: it.CreatedAt.UTC().Format(time.RFC3339Nano),
		Tags: it.Tags, SourceID: it.SourceID, SourceRef: it.SourceRef, Meta: it.Meta,
	}}
}
