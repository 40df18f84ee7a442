package memory

import (
	"context"
	"encoding/json"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// An export is the items a caller may see, oldest first, in pages the
// caller asks for one after another: each page is one query on the store's
// primary key, so exporting a million items holds one page at a time, here
// and in whoever writes them out. An import stores records through the
// same write path as a learning (the journal when replicated), keeping
// each record's id, provenance and times.

// ExportResult is one page of an export (declared in pkg/contract, where
// memory.export's output schema is generated from it).
type ExportResult = contract.ExportResult

// exportPageBytes ends a page before its records reach this size, so one
// fits a NATS message (1 MB by default) whatever its items hold.
const exportPageBytes = 768 << 10

// Export returns the next page of the items cc may see (of p's workspace,
// observed at or after p.Since), oldest first. The first page pins the
// export to the items stored by then: items written meanwhile are not in
// it, and no page shifts.
func (s *Service) Export(ctx context.Context, p ExportParams, cc contract.CallContext) (*ExportResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	f := &Filter{Meta: Meta{Workspace: p.Workspace}}
	if p.Since != "" {
		t, err := time.Parse(time.RFC3339Nano, p.Since)
		if err != nil {
			return nil, contract.Errorf(contract.CodeInvalidRequest, "argument `since`: %q is not an RFC 3339 time", p.Since).With("field", "since")
		}
		f.ObservedAfter = &t
	}
	fp := argsFingerprint(cursorKind("export", cc), p.Workspace+"\x00"+p.Since)
	c, err := decodeCursor(p.Cursor, fp)
	if err != nil {
		return nil, err
	}
	if c.AsOf == 0 {
		m, err := s.store.Marks(ctx)
		if err != nil {
			return nil, err
		}
		c.AsOf = m.Items
	}
	n := p.Limit
	if n <= 0 {
		n = contract.DefaultExportLimit
	}
	n = min(n, contract.MaxExportLimit)
	items, err := s.pages.ListAfter(ctx, scoped(f, cc), c.After, n+1)
	if err != nil {
		return nil, err
	}
	out := &ExportResult{Items: make([]contract.ExportRecord, 0, min(len(items), n))}
	size, last := 0, c.After
	for i, it := range items {
		if it.Seq > c.AsOf {
			return out, nil // stored after the export began
		}
		rec := RecordOf(it)
		b, _ := json.Marshal(rec)
		if i == n || (len(out.Items) > 0 && size+len(b) > exportPageBytes) {
			out.NextCursor = cursor{AsOf: c.AsOf, After: last, For: fp}.encode()
			return out, nil
		}
		size += len(b)
		last = it.Seq
		out.Items = append(out.Items, rec)
	}
	return out, nil
}

// RecordOf is it as an export record.
func RecordOf(it Item) contract.ExportRecord {
	return contract.ExportRecord{V: contract.ExportVersion, ID: it.ID, Kind: it.Kind, LearningKind: it.LearningKind,
		Confidence: it.Confidence, Text: it.Text, Tags: it.Tags, Provenance: it.Provenance, Source: it.Source,
		SourceID: it.SourceID, SourceRef: it.SourceRef, Meta: contract.Meta(it.Meta),
		ObservedAt: it.ObservedAt.UTC().Format(time.RFC3339Nano), CreatedAt: it.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

// SourceImport is the source of an imported record that names none.
const SourceImport = "import"

// Import stores records, each with its id, provenance and times, in one
// write. A record already stored (by id) is left alone; one that cannot be
// stored (a newer format, a workspace cc may not write to, an id that is
// not its content's) is refused with the reason, and the others are stored.
func (s *Service) Import(ctx context.Context, p ImportParams, cc contract.CallContext) (*contract.ImportResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	res := &contract.ImportResult{Results: make([]contract.ImportOutcome, len(p.Items))}
	var items []Item
	var at []int // items[j] is record at[j]
	for i, rec := range p.Items {
		it, err := s.importItem(rec, cc)
		if err != nil {
			res.Results[i] = contract.ImportOutcome{ID: rec.ID, Status: contract.ImportRefused, Error: contract.ErrorMessage(err)}
			continue
		}
		items, at = append(items, it), append(at, i)
	}
	if len(items) == 0 {
		return res, nil
	}
	out := make([]LearnResult, len(items))
	if err := s.put(ctx, items, out); err != nil {
		return nil, err
	}
	for j, i := range at {
		st := contract.ImportStored
		if out[j].Replayed {
			st = contract.ImportPresent
		}
		res.Results[i] = contract.ImportOutcome{ID: items[j].ID, Status: st}
		res.Seq = max(res.Seq, out[j].Seq)
	}
	return res, nil
}

// importItem readies one record for storing as a learning is readied
// (scrubbed, entities extracted, fingerprinted), then gives it back its
// creation time and checks the id it came with.
func (s *Service) importItem(rec contract.ExportRecord, cc contract.CallContext) (Item, error) {
	if rec.V > contract.ExportVersion {
		return Item{}, contract.Errorf(contract.CodeUnsupported,
			"format version %d is newer than this memory reads (%d): import it with a newer openhuman-core", rec.V, contract.ExportVersion)
	}
	ws, err := writeWorkspace(cc, rec.Meta.Workspace, "meta.workspace")
	if err != nil {
		return Item{}, err
	}
	it := Item{ID: rec.ID, Kind: rec.Kind, LearningKind: rec.LearningKind, Confidence: rec.Confidence, Text: rec.Text,
		Tags: rec.Tags, Provenance: rec.Provenance, Source: rec.Source, SourceID: rec.SourceID, SourceRef: rec.SourceRef,
		Meta: Meta(rec.Meta)}
	it.Meta.Workspace = ws
	if it.Kind == "learning" {
		if it.LearningKind == "" {
			it.LearningKind = contract.DefaultLearningKind
		}
		if it.Confidence == nil {
			c := contract.DefaultConfidence
			it.Confidence = &c
		}
	}
	if it.Source == "" {
		it.Source = SourceImport
	}
	if it.Provenance == "" {
		it.Provenance = provenance(cc)
	}
	var created time.Time
	for _, t := range []struct {
		field, value string
		into         *time.Time
	}{{"observed_at", rec.ObservedAt, &it.ObservedAt}, {"created_at", rec.CreatedAt, &created}} {
		if t.value == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339Nano, t.value)
		if err != nil {
			return Item{}, contract.Errorf(contract.CodeInvalidRequest, "%s %q is not an RFC 3339 time", t.field, t.value)
		}
		*t.into = v.UTC()
	}
	one := []Item{it}
	if _, err := s.prepare(one); err != nil {
		return Item{}, contract.Errorf(contract.CodeInvalidRequest, "the text is blank once secrets are removed")
	}
	it = one[0]
	if rec.ID != "" && rec.ID != it.ID {
		return Item{}, contract.Errorf(contract.CodeInvalidRequest,
			"id %s does not match the item's content, which fingerprints to %s (kind, text, meta or source changed after export): leave the id out to store it under its own",
			rec.ID, it.ID)
	}
	if !created.IsZero() {
		it.CreatedAt = created
	}
	return it, nil
}
