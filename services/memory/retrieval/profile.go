package retrieval

import (
	"fmt"
	"maps"
	"slices"
)

// The features a hybrid ranking weighs, by name. A reranked candidate's
// score is the sum of each feature's value times its weight in the
// profile; explain lists them so. Each one earns its place on the design
// half of the evaluations: switched off (Profile.Without), it costs at
// least three questions there, or it goes.
const (
	// FeatureFused is the first phase: the legs' fused score over the
	// best candidate's (fusion.go).
	FeatureFused = "fused"
	// FeatureCoverage is the share of the question's word weight the
	// candidate holds, with what a turn's turns before hold counted for
	// less (coverage.go).
	FeatureCoverage = "coverage_in_context"
	// FeatureCorrection is a correction's score before it was lifted:
	// a note learned as correcting another, or telling of a change, above
	// what it corrects.
	FeatureCorrection = "correction"
	// FeatureCorrectionNow is the same, added where the question asks
	// what holds now ("still", "current").
	FeatureCorrectionNow = "correction_now"
	// FeatureLearning is the coverage of the user's own items (learned,
	// or said in a conversation), 0 for a document's chunks: a person's
	// notes stay found when memory also holds their documents.
	FeatureLearning = "learning"
	// FeatureCrossEncoder is a cross-encoder's relevance, squashed into
	// [0, 1], when one is loaded (crossencode.go).
	FeatureCrossEncoder = "cross_encoder"
)

// The switches of the features that shape what the others read rather
// than add to the score: switched off in a profile (Without), the
// ranking does without them.
const (
	// SwitchContext counts what a turn's turns before hold (coverage.go);
	// off, a turn holds only its own words.
	SwitchContext = "context"
	// SwitchAnswers reads the turn answering each candidate turn beside
	// it (turns.go).
	SwitchAnswers = "answers"
	// SwitchSpeaker counts a speaker's name only in the turns they said.
	SwitchSpeaker = "speaker"
	// SwitchTypo forgives a rare question word's near miss (coverage.go).
	SwitchTypo = "typo"
	// SwitchRelatives looks for WordNet's relatives of the question's
	// words too (synonyms.go).
	SwitchRelatives = "relatives"
	// SwitchKinds looks for the members of a kind a question word names
	// ("dog" for "pet": lexicon.Kinds) as its synonyms.
	SwitchKinds = "kinds"
	// SwitchChangeCues takes a note or turn telling of a change ("moved",
	// "switched": now.go) for a correction, beside those learned as one.
	SwitchChangeCues = "change_cues"
	// SwitchDates indexes a turn with the day it was said ("7 May 2023").
	SwitchDates = "dates"
	// SwitchSpokenTo indexes the names a turn speaks to ("Thanks, Maya!")
	// apart from its words (spoken.go).
	SwitchSpokenTo = "spoken_to"
)

// The switches of recall's evidence: what makes a hit one recall may
// quote, beside holding recallMinShare of the question's word weight.
const (
	// SwitchTyped: less of the question will do for a hit holding the
	// kind of answer asked for (a time for "when").
	SwitchTyped = "typed"
	// SwitchTurnShare: less will do for a turn whose turns before hold
	// the rest.
	SwitchTurnShare = "turn_share"
	// SwitchCosine: a hit close enough in vector space will do alone.
	SwitchCosine = "cosine"
	// SwitchNames: a hit must hold the names the question asks about.
	SwitchNames = "names"
	// SwitchToAnother: a hit telling what the one asked about said to
	// another is none.
	SwitchToAnother = "to_another"
	// SwitchAsksBack: a hit asking the question back is none.
	SwitchAsksBack = "asks_back"
)

// Profile is the one place a ranking's weights are written: the second
// phase's feature weights, its depth, and the switches. The zero value
// is no profile: use DefaultProfile.
type Profile struct {
	weights  map[string]float64
	switches map[string]bool
	// Depth is how many of the best fused candidates the second phase
	// reads; the rest keep their fused order below them.
	Depth int
}

// DefaultProfile is the profile memory ranks with, its weights set on the
// design half of the evaluations (docs/memory.md says how).
func DefaultProfile() Profile {
	return Profile{
		weights: map[string]float64{
			FeatureFused:         0.3,
			FeatureCoverage:      1,
			FeatureLearning:      0.1,
			FeatureCorrection:    0.1,
			FeatureCorrectionNow: 0.3,
			// Not measured: our machines cannot load the model's weights.
			// The share of the question's own weight, as the model reads
			// the same question and note for what they mean.
			FeatureCrossEncoder: 1,
		},
		switches: map[string]bool{SwitchContext: true, SwitchAnswers: true, SwitchSpeaker: true,
			SwitchTypo: true, SwitchRelatives: true, SwitchKinds: true, SwitchDates: true, SwitchChangeCues: true, SwitchSpokenTo: true,
			SwitchTyped: true, SwitchTurnShare: true, SwitchCosine: true, SwitchNames: true,
			SwitchToAnother: true, SwitchAsksBack: true},
		Depth: 20,
	}
}

// Weight is a feature's weight; 0 for one the profile lacks.
func (p Profile) Weight(name string) float64 { return p.weights[name] }

// On reports whether a switch is on.
func (p Profile) On(name string) bool { return p.switches[name] }

// Features are the profile's features and switches, sorted: what an
// ablation switches off one at a time.
func (p Profile) Features() []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range p.weights {
			if !yield(k) {
				return
			}
		}
		for k := range p.switches {
			if !yield(k) {
				return
			}
		}
	})
}

// Without is the profile with a feature weighing nothing or a switch
// off. It fails on a name the profile does not hold.
func (p Profile) Without(name string) (Profile, error) {
	_, w := p.weights[name]
	_, s := p.switches[name]
	if !w && !s {
		return p, fmt.Errorf("retrieval: no feature or switch %q in the profile (it has %v)", name, p.Features())
	}
	q := Profile{weights: maps.Clone(p.weights), switches: maps.Clone(p.switches), Depth: p.Depth}
	if w {
		q.weights[name] = 0
	}
	if s {
		q.switches[name] = false
	}
	return q, nil
}
