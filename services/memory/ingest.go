package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/secrets"
	"github.com/openhuman-go/openhuman-go/services/memory/chunking"
)

// chunkerVersion is part of every content hash: when chunking changes,
// re-ingesting a file re-chunks it instead of calling it unchanged.
const chunkerVersion = "chunk-v2"

// IngestedFile says what became of one file.
type IngestedFile = contract.IngestedFile

// IngestResult reports a batch.
type IngestResult struct {
	Files []IngestedFile `json:"files"`
	// Seq is the write stream's newest sequence of the batch, when replicated.
	Seq uint64 `json:"seq,omitempty"`
}

// Ingest stores files as chunks, one transaction per file. A file whose
// content (and chunking) did not change is left alone; a changed file's
// chunks replace its old ones, keeping those that did not change. Every
// file must go to a workspace cc may write to, or none is stored.
func (s *Service) Ingest(ctx context.Context, p IngestParams, cc contract.CallContext) (*IngestResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	for i := range p.Files {
		ws, err := writeWorkspace(cc, p.Files[i].Workspace, fmt.Sprintf("files[%d].workspace", i))
		if err != nil {
			return nil, err
		}
		p.Files[i].Workspace = ws
	}
	out := &IngestResult{Files: make([]IngestedFile, 0, len(p.Files))}
	fresh := false
	for _, f := range p.Files {
		if inParts(f) {
			res, stored, seq, err := s.ingestPart(ctx, f, cc)
			if err != nil {
				return nil, err
			}
			out.Seq = max(out.Seq, seq)
			fresh = fresh || stored
			out.Files = append(out.Files, res)
			continue
		}
		src := sourceRecord(f, f.Content)
		chunks := chunking.Text(f.Content, f.Language, chunking.DefaultTokens)
		items := fileItems(f, chunks, cc)
		prepared, err := s.prepare(items)
		if err != nil {
			// The file's own fault (a file too large for one request comes
			// in parts, see ingestPart): the batch's other files are stored.
			out.Files = append(out.Files, rejected(f, err))
			continue
		}
		w, err := s.writes.ReplaceSource(ctx, src, items)
		if err != nil {
			return nil, err
		}
		out.Seq = max(out.Seq, w.Seq)
		res := IngestedFile{SourceID: f.SourceID, Status: contract.IngestStored, Chunks: len(items)}
		for _, p := range prepared {
			res.Redacted = secrets.MergeKinds(res.Redacted, p.Redacted)
		}
		switch {
		case w.Unchanged:
			res.Status, res.Redacted = contract.IngestUnchanged, nil
		case len(items) == 0:
			res.Status = contract.IngestEmpty
		}
		for _, r := range w.Replayed {
			fresh = fresh || !r
		}
		out.Files = append(out.Files, res)
	}
	if fresh {
		s.embedNew(ctx)
	}
	return out, nil
}

// sourceRecord is f's source as the store keeps it, its version named by
// version (its content, or for a file sent in parts its SHA-256). The
// record is scrubbed as its chunks' fields are (scrubFields), so both name
// the same source.
func sourceRecord(f contract.IngestFile, version string) SourceRecord {
	sum := sha256.Sum256([]byte(chunkerVersion + "\x00" + f.Language + "\x00" + version))
	id, _ := scrub(f.SourceID)
	name, _ := scrub(f.DisplayName)
	return SourceRecord{Workspace: f.Workspace, ID: id, Kind: f.SourceKind, DisplayName: name, ContentHash: hex.EncodeToString(sum[:])}
}

// rejected reports a file whose content cannot be stored, by its name
// scrubbed as its source record's is.
func rejected(f contract.IngestFile, err error) IngestedFile {
	name, _ := scrub(f.DisplayName)
	return IngestedFile{SourceID: f.SourceID, Status: contract.IngestFailed,
		Error: fmt.Sprintf("%s: %s", name, contract.ErrorMessage(err))}
}

// fileItems are the document items of a file's chunks.
func fileItems(f contract.IngestFile, chunks []chunking.Chunk, cc contract.CallContext) []Item {
	items := make([]Item, len(chunks))
	for i, c := range chunks {
		items[i] = Item{Kind: "document", Text: c.Text, Source: f.SourceKind, Provenance: provenance(cc),
			SourceID: f.SourceID, SourceRef: c.Ref,
			Meta: Meta{Workspace: f.Workspace, Folder: f.Folder, FilePath: f.FilePath, Language: f.Language, Repo: f.Repo, Commit: f.Commit}}
		if f.ModifiedMS > 0 {
			items[i].ObservedAt = time.UnixMilli(f.ModifiedMS).UTC()
		}
	}
	return items
}

// ConversationResult counts what was stored.
type ConversationResult struct {
	Stored   int `json:"stored"`
	Replayed int `json:"replayed"`
	// Seq is the write stream's newest sequence of the turns, when replicated.
	Seq uint64 `json:"seq,omitempty"`
}

// IngestConversation stores each turn as a conversation item of its thread.
// Turns already stored are replays, so a transcript can be sent again.
// Every turn must go to a workspace cc may write to, or none is stored.
func (s *Service) IngestConversation(ctx context.Context, p ConversationParams, cc contract.CallContext) (*ConversationResult, error) {
	items := make([]Item, len(p.Turns))
	for i, t := range p.Turns {
		ws, err := writeWorkspace(cc, t.Workspace, fmt.Sprintf("turns[%d].workspace", i))
		if err != nil {
			return nil, err
		}
		text := t.Text
		if t.Speaker != "" {
			text = t.Speaker + ": " + t.Text
		}
		items[i] = Item{Kind: "conversation", Source: "conversation", Text: text, Provenance: provenance(cc),
			SourceID: "thread:" + t.ThreadID, SourceRef: t.Timestamp, Meta: Meta{ThreadID: t.ThreadID, Workspace: ws}}
		if t.Timestamp != "" {
			ts, err := time.Parse(time.RFC3339Nano, t.Timestamp)
			if err != nil {
				return nil, contract.Errorf(contract.CodeInvalidRequest, "turn %d: timestamp %q is not RFC 3339", i+1, t.Timestamp)
			}
			items[i].ObservedAt = ts.UTC()
		}
	}
	res, err := s.Remember(ctx, items)
	if err != nil {
		return nil, err
	}
	out := &ConversationResult{}
	for _, r := range res {
		out.Seq = max(out.Seq, r.Seq)
		if r.Replayed {
			out.Replayed++
		} else {
			out.Stored++
		}
	}
	return out, nil
}
