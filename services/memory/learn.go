package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/secrets"
	"github.com/openhuman-go/openhuman-go/services/memory/chunking"
	"github.com/openhuman-go/openhuman-go/services/memory/entities"
)

// LearnResult is declared in pkg/contract, where its schema is generated.
type LearnResult = contract.LearnResult

// Sources of learnings (contract.ItemSources): what a client stored itself,
// over MCP, /rpc or the CLI, and what a sub-agent stored.
const (
	SourceClient = "client"
	SourceAgent  = "agent"
)

// Learn stores one learning with the caller's provenance, in a workspace
// the caller may write to.
func (s *Service) Learn(ctx context.Context, p LearnParams, cc contract.CallContext) (*LearnResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	text := contract.TrimBlank(p.Text)
	if text == "" {
		return nil, contract.Errorf(contract.CodeInvalidRequest, "argument `text` must not be blank")
	}
	if p.Replaces != "" {
		return s.correct(ctx, p, text, cc)
	}
	ws, err := writeWorkspace(cc, p.Workspace, "workspace")
	if err != nil {
		return nil, err
	}
	kind := p.Kind
	if kind == "" {
		kind = contract.DefaultLearningKind
	}
	res, err := s.Remember(ctx, []Item{learning(text, kind, ws, p.Confidence, cc)})
	if err != nil {
		return nil, err
	}
	return &res[0], nil
}

// learning is the item a learning of cc's is stored as.
func learning(text, kind, ws string, confidence *float64, cc contract.CallContext) Item {
	conf := contract.DefaultConfidence
	if confidence != nil {
		conf = *confidence
	}
	source := SourceClient
	if cc.Agent != "" {
		source = SourceAgent
	}
	return Item{
		Kind: "learning", LearningKind: kind, Text: text, Confidence: &conf,
		Source: source, Provenance: provenance(cc), Meta: Meta{Workspace: ws},
	}
}

// Remember stores items of any kind (learnings, document chunks,
// conversation turns) in one transaction, then embeds them.
func (s *Service) Remember(ctx context.Context, items []Item) ([]LearnResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	out, err := s.prepare(items)
	if err != nil {
		return nil, err
	}
	if err := s.put(ctx, items, out); err != nil {
		return nil, err
	}
	return out, nil
}

// put stores prepared items, sets out[i]'s Replayed and Seq, and embeds
// the new ones.
func (s *Service) put(ctx context.Context, items []Item, out []LearnResult) error {
	w, err := s.writes.Put(ctx, items)
	if err != nil {
		return err
	}
	fresh := false
	for i, r := range w.Replayed {
		out[i].Replayed, out[i].Seq = r, w.Seq
		fresh = fresh || !r
	}
	if fresh {
		s.embedNew(ctx)
	}
	return nil
}

// prepare readies items for storing: secrets scrubbed (from the text and
// every other field a client wrote) before entities are extracted or the
// id computed, so neither can keep one; observed_at
// defaulted to now, tokens estimated, entities extracted, ids fingerprinted.
func (s *Service) prepare(items []Item) ([]LearnResult, error) {
	now := s.now().UTC()
	out := make([]LearnResult, len(items))
	for i := range items {
		it := &items[i]
		var redacted []string
		it.Text, redacted = secrets.Scrub(contract.TrimBlank(dropNUL(it.Text)))
		redacted = secrets.MergeKinds(redacted, scrubFields(it))
		if it.Text == "" {
			return nil, contract.Errorf(contract.CodeInvalidRequest, "item %d has no text", i+1)
		}
		if it.ObservedAt.IsZero() {
			it.ObservedAt = now
		}
		it.CreatedAt = now
		if it.TokenCount == 0 {
			it.TokenCount = chunking.EstimateTokens(it.Text)
		}
		it.Entities = entities.Extract(it.Text, it.Meta.Language)
		it.ID = Fingerprint(*it)
		out[i] = LearnResult{ID: it.ID, Redacted: redacted}
	}
	return out, nil
}

// scrubFields scrubs what an item says besides its text: a repository's
// remote can carry a token (https://x-access-token:…@github.com/…), and
// a path or thread id is whatever the client sent. Scrub is deterministic,
// so a source's id scrubs to the same id on every ingest.
func scrubFields(it *Item) []string {
	var kinds []string
	for _, f := range []*string{&it.SourceID, &it.SourceRef, &it.Meta.Folder, &it.Meta.FilePath,
		&it.Meta.Repo, &it.Meta.URL, &it.Meta.ThreadID, &it.Meta.AgentID} {
		if *f != "" {
			var k []string
			*f, k = scrub(*f)
			kinds = secrets.MergeKinds(kinds, k)
		}
	}
	for i := range it.Tags {
		var k []string
		it.Tags[i], k = scrub(it.Tags[i])
		kinds = secrets.MergeKinds(kinds, k)
	}
	// Neither is scrubbed (a commit's hex is no secret), but both are text.
	it.Meta.Language, it.Meta.Commit = dropNUL(it.Meta.Language), dropNUL(it.Meta.Commit)
	return kinds
}

// scrub readies a string a client sent for storing: NUL bytes removed,
// then secrets. A NUL is no character of any text, and C readers of the
// file (sqlite3, the FTS tokenizers of other tools) end a string at one,
// so what follows it would be hidden from them, a scrubbed secret's
// marker among it.
func scrub(s string) (string, []string) { return secrets.Scrub(dropNUL(s)) }

func dropNUL(s string) string { return strings.ReplaceAll(s, "\x00", "") }

func provenance(cc contract.CallContext) string {
	if cc.Source == "" {
		return "unknown"
	}
	return cc.Source
}

// Fingerprint is an item's id: a hash of its content and the metadata that
// places it, but not of when it was observed or who said it, so storing the
// same thing again is a replay rather than a duplicate.
func Fingerprint(it Item) string {
	h := sha256.New()
	for _, part := range []string{it.Kind, it.LearningKind, strings.Join(strings.Fields(it.Text), " "),
		it.Meta.Workspace, it.Meta.Folder, it.Meta.FilePath, it.Meta.Repo, it.Meta.Commit, it.Meta.URL, it.Meta.ThreadID, it.Meta.AgentID} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	// Appended only when set, so items without a source keep the ids they
	// always had.
	if it.SourceID != "" || it.SourceRef != "" {
		h.Write([]byte(it.SourceID + "\x00" + it.SourceRef + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
