package jetstream

import (
	"context"
	"errors"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/entities"
)

// Delete forgets ids through the stream, naming them by keyed digest
// (forgetkey.go), and takes their text out of it:
// a learning's or turn's subject is purged; an ingested chunk's source
// subject is purged up to now and what remains of the source is appended
// again, after the deletion, so that a replica built from the stream alone
// ends as the others do. Snapshots, which may hold the text, are dropped;
// replicas take new ones after applying the deletion (and a new replica
// never starts from a snapshot older than the newest forget).
//
// The purges come first: a forget that fails half-way has removed text
// from the stream but not yet from the replicas, and sending it again
// finishes it.
func (s *Store) Delete(ctx context.Context, ids []string, scope []string) (memory.Written, error) {
	if err := s.j.checkKey(); err != nil {
		return memory.Written{}, err
	}
	// The store must know every item the stream holds so far, to tell
	// where each one's text is.
	last, err := s.j.Last(ctx, "")
	if err != nil {
		return memory.Written{}, err
	}
	if err := s.await(ctx, last); err != nil {
		return memory.Written{}, contract.Errorf(contract.CodeUnavailable, "this memory replica is behind the write stream (at %d of %d); retry the forget", s.applied.Load(), last)
	}
	sources, forgotten, err := s.purgeItems(ctx, ids, scope)
	if err != nil {
		return memory.Written{}, err
	}
	restores, err := s.readRestores(ctx, sources, forgotten)
	if err != nil {
		return memory.Written{}, err
	}
	// Snapshots may hold the text. Replicas take new ones once they have
	// applied the deletion; one that was uploading as this ran replaces
	// its own then, and the check after the deletion catches it sooner.
	if err := s.j.DropSnapshots(ctx, 0); err != nil {
		return memory.Written{}, err
	}
	keys, back := forgetKeys(s.j.key, ids)
	forgetSeq, out, _, err := s.publish(ctx, subjectForget, "", event{Op: opForget, Keys: keys, KeyID: keyID(s.j.key), Workspaces: scope})
	if err != nil {
		return memory.Written{}, err
	}
	var missingIDs []string
	for _, k := range out.Missing {
		missingIDs = append(missingIDs, back[k])
	}
	seq, err := s.afterForget(ctx, ids, missingIDs, restores, forgetSeq)
	if err != nil {
		return memory.Written{}, err
	}
	return memory.Written{Missing: missingIDs, Seq: seq}, nil
}

// forgetSource is a source some of whose chunks are forgotten.
type forgetSource struct{ workspace, id, kind string }

// sourceRestore is what remains of a source once its forgotten chunks are
// gone, to append again after the deletion.
type sourceRestore struct {
	subject string
	src     memory.SourceRecord
	items   []memory.Item
}

// purgeItems purges the subjects of the learnings and turns among ids the
// scope can see, and returns the sources of the chunks among them, and
// every id found.
func (s *Store) purgeItems(ctx context.Context, ids, scope []string) (map[forgetSource]bool, map[string]bool, error) {
	sources := map[forgetSource]bool{}
	forgotten := map[string]bool{}
	for _, id := range ids {
		it, err := s.in.Item(ctx, id, scope)
		var ce *contract.Error
		switch {
		case errors.As(err, &ce) && ce.Code == contract.CodeNotFound:
			continue
		case err != nil:
			return nil, nil, err
		}
		forgotten[id] = true
		if it.Kind == "document" && it.SourceID != "" {
			sources[forgetSource{it.Meta.Workspace, it.SourceID, it.Source}] = true
			continue
		}
		if err := s.j.Purge(ctx, subjectItem+it.ID, 0); err != nil {
			return nil, nil, err
		}
	}
	return sources, forgotten, nil
}

// readRestores reads what remains of each source, before the deletion is
// applied, and purges the source's subject up to what it read.
func (s *Store) readRestores(ctx context.Context, sources map[forgetSource]bool, forgotten map[string]bool) ([]sourceRestore, error) {
	var restores []sourceRestore
	for src := range sources {
		subject := sourceSubject(src.workspace, src.id)
		upTo, err := s.j.Last(ctx, subject)
		if err != nil {
			return nil, err
		}
		items, _, err := s.in.Browse(ctx, memory.BrowseQuery{SourceIDs: []string{src.id}, Workspaces: []string{src.workspace}, K: 1 << 30})
		if err != nil {
			return nil, err
		}
		keep := items[:0]
		for _, it := range items {
			if !forgotten[it.ID] {
				// Entities are not read with items; they follow from the text.
				it.Entities = entities.Extract(it.Text, it.Meta.Language)
				it.Seq = 0
				keep = append(keep, it)
			}
		}
		rec, err := s.sourceRecord(ctx, src.workspace, src.id, src.kind)
		if err != nil {
			return nil, err
		}
		// Anything appended to the source after upTo stays: it is newer
		// than what this forget read.
		if upTo > 0 {
			if err := s.j.Purge(ctx, subject, upTo+1); err != nil {
				return nil, err
			}
		}
		if len(keep) > 0 {
			restores = append(restores, sourceRestore{subject, rec, keep})
		}
	}
	return restores, nil
}

// afterForget finishes a forget published at forgetSeq: it purges again
// the subjects of the ids found, appends what remains of the sources, and
// drops the snapshots older than the deletion. It returns the last
// sequence written.
func (s *Store) afterForget(ctx context.Context, ids, missingIDs []string, restores []sourceRestore, forgetSeq uint64) (uint64, error) {
	// A learning sent again while this ran was appended after the purge
	// and before the deletion, which removed it everywhere: purged again
	// below the deletion, its subject keeps only what came after.
	missing := map[string]bool{}
	for _, id := range missingIDs {
		missing[id] = true
	}
	for _, id := range ids {
		if !missing[id] {
			if err := s.j.Purge(ctx, subjectItem+id, forgetSeq); err != nil {
				return 0, err
			}
		}
	}
	seq := forgetSeq
	for _, rs := range restores {
		// The forgotten text's hash is no version of the source: "" makes
		// the next ingest of the file store it again.
		w, err := s.appendVersion(ctx, rs.subject, "", rs.src, rs.items)
		if err != nil {
			return 0, err
		}
		seq = max(seq, w.Seq)
	}
	if err := s.j.DropSnapshots(ctx, forgetSeq); err != nil {
		return 0, err
	}
	return seq, nil
}

// sourceRecord is the record of a source as stored, its content hash
// cleared.
func (s *Store) sourceRecord(ctx context.Context, workspace, id, kind string) (memory.SourceRecord, error) {
	rec := memory.SourceRecord{Workspace: workspace, ID: id, Kind: kind, DisplayName: id}
	list, err := s.in.Sources(ctx, []string{workspace})
	if err != nil {
		return rec, err
	}
	for _, sum := range list {
		if sum.SourceID == id && sum.SourceKind == kind {
			rec.DisplayName = sum.DisplayName
		}
	}
	return rec, nil
}
