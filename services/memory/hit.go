package memory

import (
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// The hit types are declared in pkg/contract, which the gateway's
// console reads them by.
type (
	Hit          = contract.Hit
	HitMeta      = contract.HitMeta
	Explanation  = contract.Explanation
	FeatureValue = contract.FeatureValue
)

func hitOf(it Item, score *float64) Hit {
	return Hit{ID: it.ID, Kind: it.Kind, Text: it.Text, Score: score, Confidence: it.Confidence, Meta: HitMeta{
		Source: it.Source, Provenance: it.Provenance, LearningKind: it.LearningKind,
		ObservedAt: it.ObservedAt.UTC().Format(time.RFC3339Nano), CreatedAt: it.CreatedAt.UTC().Format(time.RFC3339Nano),
		Tags: it.Tags, SourceID: it.SourceID, SourceRef: it.SourceRef, Meta: it.Meta,
	}}
}
