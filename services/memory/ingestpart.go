package memory

import (
	"context"
	"encoding/hex"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/secrets"
	"github.com/openhuman-go/openhuman-go/services/memory/chunking"
)

// inParts tells a part of a file sent in parts from a whole file.
func inParts(f contract.IngestFile) bool {
	return f.SHA256 != "" || f.More || f.Offset > 0 || f.Resume != "" || f.Line > 1
}

// ingestPart stores one part of a file sent in parts. Its chunks are
// stored as it arrives (the chunks of a file that did not change keep
// their rows and vectors); the file's old chunks go, and its content hash
// is recorded, only with its last part. Until then, and when a file stops
// half-way, the file has both its old chunks and the new ones stored so
// far; sending it again in full heals that. f's workspace is the one
// Ingest held to the caller's, as for a whole file, and names the source
// with its id. stored reports new items; seq is the write stream's
// sequence when replicated.
func (s *Service) ingestPart(ctx context.Context, f contract.IngestFile, cc contract.CallContext) (res IngestedFile, stored bool, seq uint64, err error) {
	// The hash names the file's version without its text, so that an
	// unchanged file is known from its first part.
	src := sourceRecord(f, "sha256:"+f.SHA256)
	if _, err := hex.DecodeString(f.SHA256); err != nil || len(f.SHA256) != 64 {
		return res, false, 0, contract.Errorf(contract.CodeInvalidRequest,
			"%s: sha256 must be the whole file's SHA-256 in hex (64 characters) when the file is sent in parts (offset, line, more or resume set)",
			src.DisplayName).With("field", "sha256")
	}
	res.SourceID = f.SourceID
	if f.Offset == 0 {
		w, err := s.writes.StartSource(ctx, src)
		if err != nil {
			return res, false, 0, err
		}
		seq = w.Seq
		if w.Unchanged {
			res.Status = contract.IngestUnchanged
			return res, false, seq, nil
		}
	}
	part, err := chunking.Part(f.Content, f.Language, chunking.DefaultTokens, f.Line, f.Resume, f.More)
	if err != nil {
		return res, false, seq, err
	}
	items := fileItems(f, part.Chunks, cc)
	prepared, err := s.prepare(items)
	if err != nil {
		return rejected(f, err), false, seq, nil
	}
	w, err := s.writes.PutSourcePart(ctx, src, items, !f.More)
	if err != nil {
		return res, false, seq, err
	}
	seq = max(seq, w.Seq)
	for _, p := range prepared {
		res.Redacted = secrets.MergeKinds(res.Redacted, p.Redacted)
	}
	for _, r := range w.Replayed {
		stored = stored || !r
	}
	res.Status, res.Chunks = contract.IngestStored, len(items)
	if f.More {
		res.Status = contract.IngestPart
		res.NextOffset, res.NextLine, res.Resume = f.Offset+int64(part.Used), part.NextLine, part.Resume
	}
	return res, stored, seq, nil
}
