package jetstream

import (
	"encoding/json"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// The stream's events are JSON in the types below, each field named by its
// tag: what a replica writes is read by replicas of other versions during
// a rolling upgrade, and by every replica that replays the stream later,
// so renaming a Go field must not change it. The names are those the
// stream has always held (a memory.Item's Go field names, then untagged);
// testdata/*.json are events as written then, which event_test.go decodes
// and encodes again byte for byte.

// Event operations.
const (
	opPut     = "put"     // items, a learning or conversation turn each
	opReplace = "replace" // a source's whole new version
	opStart   = "start"   // the start of a source sent in parts
	opPart    = "part"    // one part of a source, the last one with Last
	opDelete  = "delete"  // a forget naming ids, as written before keys
	opForget  = "forget"  // a forget naming keyed digests of ids (forgetkey.go)
)

// event is one write as the stream carries it, ready to apply.
type event struct {
	Op    string      `json:"op"`
	Items []wireItem  `json:"items,omitempty"`
	Src   *wireSource `json:"src,omitempty"`
	Last  bool        `json:"last,omitempty"`
	IDs   []string    `json:"ids,omitempty"`
	// Keys name a forget's items by keyed digest (forgetKey), never by id.
	Keys []string `json:"keys,omitempty"`
	// KeyID names the key of Keys, so a replica given another key says so
	// instead of finding nothing.
	KeyID string `json:"key_id,omitempty"`
	// Workspaces of a delete: null is every workspace, [] none.
	Workspaces []string `json:"workspaces"`
}

// wireItem is a memory.Item in an event.
type wireItem struct {
	Seq          int64         `json:"Seq"`
	ID           string        `json:"ID"`
	Kind         string        `json:"Kind"`
	LearningKind string        `json:"LearningKind"`
	Text         string        `json:"Text"`
	Confidence   *float64      `json:"Confidence"`
	Source       string        `json:"Source"`
	Provenance   string        `json:"Provenance"`
	Meta         contract.Meta `json:"Meta"`
	Tags         []string      `json:"Tags"`
	ObservedAt   time.Time     `json:"ObservedAt"`
	CreatedAt    time.Time     `json:"CreatedAt"`
	SourceID     string        `json:"SourceID"`
	SourceRef    string        `json:"SourceRef"`
	TokenCount   int           `json:"TokenCount"`
	Entities     []wireEntity  `json:"Entities"`
}

// wireEntity is a memory.Entity in an event.
type wireEntity struct {
	ID      string `json:"entity_id"`
	Kind    string `json:"kind"`
	Surface string `json:"surface"`
}

// wireSource is a memory.SourceRecord in an event.
type wireSource struct {
	Workspace   string `json:"Workspace"`
	ID          string `json:"ID"`
	Kind        string `json:"Kind"`
	DisplayName string `json:"DisplayName"`
	ContentHash string `json:"ContentHash"`
}

func toWire(it memory.Item) wireItem {
	w := wireItem{Seq: it.Seq, ID: it.ID, Kind: it.Kind, LearningKind: it.LearningKind, Text: it.Text,
		Confidence: it.Confidence, Source: it.Source, Provenance: it.Provenance,
		Meta: it.Meta,
		Tags: it.Tags, ObservedAt: it.ObservedAt, CreatedAt: it.CreatedAt, SourceID: it.SourceID,
		SourceRef: it.SourceRef, TokenCount: it.TokenCount}
	if it.Entities != nil {
		w.Entities = make([]wireEntity, len(it.Entities))
		for i, e := range it.Entities {
			w.Entities[i] = wireEntity{ID: e.ID, Kind: e.Kind, Surface: e.Surface}
		}
	}
	return w
}

func (w wireItem) item() memory.Item {
	it := memory.Item{Seq: w.Seq, ID: w.ID, Kind: w.Kind, LearningKind: w.LearningKind, Text: w.Text,
		Confidence: w.Confidence, Source: w.Source, Provenance: w.Provenance,
		Meta: w.Meta,
		Tags: w.Tags, ObservedAt: w.ObservedAt, CreatedAt: w.CreatedAt, SourceID: w.SourceID,
		SourceRef: w.SourceRef, TokenCount: w.TokenCount}
	if w.Entities != nil {
		it.Entities = make([]memory.Entity, len(w.Entities))
		for i, e := range w.Entities {
			it.Entities[i] = memory.Entity{ID: e.ID, Kind: e.Kind, Surface: e.Surface}
		}
	}
	return it
}

func toWireItems(items []memory.Item) []wireItem {
	if items == nil {
		return nil
	}
	out := make([]wireItem, len(items))
	for i, it := range items {
		out[i] = toWire(it)
	}
	return out
}

func (e *event) items() []memory.Item {
	if e.Items == nil {
		return nil
	}
	out := make([]memory.Item, len(e.Items))
	for i, w := range e.Items {
		out[i] = w.item()
	}
	return out
}

func toWireSource(src memory.SourceRecord) *wireSource {
	return &wireSource{Workspace: src.Workspace, ID: src.ID, Kind: src.Kind, DisplayName: src.DisplayName, ContentHash: src.ContentHash}
}

func (s *wireSource) record() memory.SourceRecord {
	return memory.SourceRecord{Workspace: s.Workspace, ID: s.ID, Kind: s.Kind, DisplayName: s.DisplayName, ContentHash: s.ContentHash}
}

// encode is ev as the stream carries it.
func encode(ev event) ([]byte, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, contract.Errorf(contract.CodeInternal, "encoding a journal event: %v", err)
	}
	return b, nil
}

// decode reads the event at seq; one that is no event is INVALID_REQUEST:
// applying it again will not help.
func decode(seq uint64, data []byte) (event, error) {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, contract.Errorf(contract.CodeInvalidRequest, "journal event %d is not an event: %v", seq, err)
	}
	return ev, nil
}
