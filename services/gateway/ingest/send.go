package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// envelopeBytes is room kept in each request for what goes around the
// files: the request envelope, its call context and the list's brackets.
const envelopeBytes = 4 << 10

// unavailableRun is how many files in a row may fail with the memory
// service unavailable before the walk stops: past that the service is
// gone, not one file's trouble, and each try would wait for a timeout.
const unavailableRun = 3

var errNotRegular = errors.New("not a regular file")

// walker sends files as the walk finds them.
type walker struct {
	opts     Options
	send     Sender
	progress func(Stats) // told the counts after each file; may be nil
	st       Stats
	batch    []json.RawMessage
	paths    []string // of the files in batch
	size     int      // encoded bytes in batch
	// unavailable counts the files in a row that failed with the memory
	// service unavailable.
	unavailable int
}

// budget is the most encoded files in one request.
func (w *walker) budget() int { return max(w.opts.MaxRequestBytes-envelopeBytes, 1<<10) }

// partBytes is the most file content read for one part (and the largest
// file read whole): what fits a request unescaped, within the service's
// limit on one file's content.
func (w *walker) partBytes() int { return min(w.budget(), contract.MaxIngestFileChars) }

// add sends f (its content not read yet) in the current batch, or alone in
// parts when it is larger than a request.
func (w *walker) add(ctx context.Context, f File, size int64) error {
	if size <= int64(w.partBytes()) {
		data, err := os.ReadFile(f.SourceID)
		if err != nil {
			w.st.unreadable(f.DisplayName)
			return nil
		}
		if isBinary(data) {
			w.st.binary(f.DisplayName)
			return nil
		}
		f.Content = string(data)
		raw, err := contract.Marshal(f)
		if err != nil {
			return w.fail(Failure{Path: f.DisplayName, Reason: err.Error()})
		}
		if len(raw) <= w.budget() {
			if w.size+len(raw)+1 > w.budget() || len(w.batch) >= contract.MaxIngestFiles {
				if err := w.flush(ctx); err != nil {
					return err
				}
			}
			w.batch, w.paths, w.size = append(w.batch, raw), append(w.paths, f.DisplayName), w.size+len(raw)+1
			return nil
		}
		// JSON escaping made the file larger than a request.
	}
	return w.sendParts(ctx, f)
}

// flush sends the batch. When the request fails as a whole, its files go
// again one by one, so that a file the service rejects costs only itself.
func (w *walker) flush(ctx context.Context) error {
	if len(w.batch) == 0 {
		return nil
	}
	batch, paths := w.batch, w.paths
	w.batch, w.paths, w.size = nil, nil, 0
	res, err := w.sendBatch(ctx, batch)
	if err == nil {
		w.count(paths, res)
		return nil
	}
	if len(batch) == 1 || fatal(ctx, err) {
		return w.failed(ctx, paths[0], err, false)
	}
	for i := range batch {
		res, err := w.sendBatch(ctx, batch[i:i+1])
		if err != nil {
			if err := w.failed(ctx, paths[i], err, false); err != nil {
				return err
			}
			continue
		}
		w.count(paths[i:i+1], res)
	}
	return nil
}

// sendBatch sends files and checks the reply has one entry for each.
func (w *walker) sendBatch(ctx context.Context, files []json.RawMessage) ([]contract.IngestedFile, error) {
	res, err := w.send(ctx, files)
	if err == nil && len(res) != len(files) {
		err = contract.Errorf(contract.CodeInternal, "the memory service answered for %d files of %d", len(res), len(files))
	}
	return res, err
}

// count adds what the memory service did with the files at paths to the
// stats.
func (w *walker) count(paths []string, res []contract.IngestedFile) {
	w.unavailable = 0
	for i, r := range res {
		w.st.Sent++
		switch r.Status {
		case contract.IngestFailed:
			w.fail(Failure{Path: paths[i], Reason: strings.TrimPrefix(r.Error, paths[i]+": ")})
		case contract.IngestUnchanged:
			w.st.Unchanged++
		case contract.IngestEmpty:
			w.st.Empty++
		default:
			w.st.Stored++
			w.st.Chunks += r.Chunks
		}
		w.st.redacted(paths[i], r.Redacted)
	}
}

// failed records that the file at path could not be stored because of
// err. It returns an error only when the walk cannot go on.
func (w *walker) failed(ctx context.Context, path string, err error, partly bool) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	w.fail(Failure{Path: path, Reason: reason(err), Partly: partly})
	if contract.ErrorCode(err) != contract.CodeUnavailable {
		w.unavailable = 0
		return nil
	}
	if w.unavailable++; w.unavailable >= unavailableRun || fatal(ctx, err) {
		return contract.Errorf(contract.CodeUnavailable, "the memory service stopped answering, so the walk stopped: %s", contract.ErrorMessage(err))
	}
	return nil
}

func (w *walker) fail(f Failure) error {
	w.st.Failures = append(w.st.Failures, f)
	if w.opts.Failed != nil {
		w.opts.Failed(f)
	}
	return nil
}

// reason says why a file failed: the service's message, or what went
// wrong reading it here (contract.ErrorMessage hides the latter, as it
// should for a server's own errors).
func reason(err error) string {
	var ce *contract.Error
	if errors.As(err, &ce) {
		return ce.Message
	}
	return err.Error()
}

// fatal tells an error after which no file can be stored.
func fatal(ctx context.Context, err error) bool {
	return ctx.Err() != nil || contract.AsError(err).Data["reason"] == contract.ReasonNoResponders
}

// sendParts sends f in parts, each a run of whole lines read as it is
// sent, so that neither the file nor its encoding is ever whole in memory.
// The file is read twice: first for its hash, which names its version to
// the memory service (an unchanged file ends at its first part), then for
// the parts, checked against that hash before the last part, whose arrival
// replaces the file's old chunks.
func (w *walker) sendParts(ctx context.Context, f File) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	fh, err := os.Open(f.SourceID)
	if err != nil {
		w.st.unreadable(f.DisplayName)
		return nil
	}
	defer fh.Close()
	head := make([]byte, 8000)
	n, err := io.ReadFull(fh, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		w.st.unreadable(f.DisplayName)
		return nil
	}
	if isBinary(head[:n]) {
		w.st.binary(f.DisplayName)
		return nil
	}
	sum := sha256.New()
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return w.failed(ctx, f.DisplayName, err, false)
	}
	if _, err := io.Copy(sum, fh); err != nil {
		return w.failed(ctx, f.DisplayName, fmt.Errorf("reading: %w", err), false)
	}
	f.SHA256 = hex.EncodeToString(sum.Sum(nil))
	w.st.InParts++

	check, hashed := sha256.New(), int64(0)
	buf := make([]byte, w.partBytes())
	part := f
	part.Line = 1
	for {
		n, err := fh.ReadAt(buf, part.Offset)
		if err != nil && !errors.Is(err, io.EOF) {
			return w.failed(ctx, f.DisplayName, fmt.Errorf("reading at byte %d: %w", part.Offset, err), part.Offset > 0)
		}
		if end := part.Offset + int64(n); end > hashed {
			check.Write(buf[hashed-part.Offset : n])
			hashed = end
		}
		more := n == len(buf) && hasByteAt(fh, part.Offset+int64(n))
		raw, cut, err := w.encodePart(part, buf[:n], more)
		if err != nil {
			return w.failed(ctx, f.DisplayName, err, part.Offset > 0)
		}
		last := cut == n && !more
		if last && hex.EncodeToString(check.Sum(nil)) != f.SHA256 {
			return w.failed(ctx, f.DisplayName, errors.New("the file changed while it was read: ingest it again"), part.Offset > 0)
		}
		res, err := w.sendBatch(ctx, []json.RawMessage{raw})
		if err != nil {
			return w.failed(ctx, f.DisplayName, err, part.Offset > 0)
		}
		r := res[0]
		if r.Status == contract.IngestFailed {
			w.st.Sent++
			return w.fail(Failure{Path: f.DisplayName, Reason: strings.TrimPrefix(r.Error, f.DisplayName+": "), Partly: part.Offset > 0})
		}
		if r.Status != contract.IngestPart {
			if !last && r.Status != contract.IngestUnchanged {
				return w.failed(ctx, f.DisplayName, fmt.Errorf("the memory service took part of the file at byte %d for its end", part.Offset), true)
			}
			w.count([]string{f.DisplayName}, res)
			return nil
		}
		if last || r.NextOffset <= part.Offset || r.NextOffset > part.Offset+int64(cut) || r.NextLine < part.Line {
			return w.failed(ctx, f.DisplayName, fmt.Errorf("the memory service answered the part at byte %d with next_offset %d", part.Offset, r.NextOffset), true)
		}
		w.st.Chunks += r.Chunks
		w.st.redacted(f.DisplayName, r.Redacted)
		part.Offset, part.Line, part.Resume = r.NextOffset, r.NextLine, r.Resume
	}
}

// encodePart encodes the part of data that fits a request: whole lines
// when the file goes on after it. It returns how many bytes of data it
// holds.
func (w *walker) encodePart(part File, data []byte, more bool) (json.RawMessage, int, error) {
	cut := len(data)
	for {
		if cut < len(data) || more {
			if cut = lineCut(data, cut); cut == 0 {
				return nil, 0, errors.New("the file is not UTF-8 text past its start")
			}
		}
		part.Content, part.More = string(data[:cut]), more || cut < len(data)
		raw, err := contract.Marshal(part)
		if err != nil {
			return nil, 0, err
		}
		if len(raw) <= w.budget() {
			return raw, cut, nil
		}
		if cut <= utf8.UTFMax {
			return nil, 0, errors.New("a few characters do not fit a request: raise the NATS max_payload")
		}
		// Escaping made it larger than it looked: shrink by as much, and a
		// little more.
		cut = max(1, int(int64(cut)*int64(w.budget())/int64(len(raw))*9/10))
	}
}

// lineCut is where to end a part of data within its first n bytes: after
// the last line end, or, in a line longer than that, before a character
// the cut would split.
func lineCut(data []byte, n int) int {
	if i := bytes.LastIndexByte(data[:n], '\n'); i >= 0 {
		return i + 1
	}
	i := n - 1
	for i > 0 && n-i < utf8.UTFMax && !utf8.RuneStart(data[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRune(data[i:n]) {
		return i
	}
	return n
}

// hasByteAt tells whether f has a byte at off.
func hasByteAt(f *os.File, off int64) bool {
	var b [1]byte
	n, _ := f.ReadAt(b[:], off)
	return n == 1
}

// pathError names what is wrong with a path named on the command line.
func pathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, errNotRegular) {
		return "not a regular file or folder (a device, pipe or socket): name the files to ingest"
	}
	return err.Error()
}

func mergeNames(a, b []string) []string {
	for _, k := range b {
		seen := false
		for _, x := range a {
			seen = seen || x == k
		}
		if !seen {
			a = append(a, k)
		}
	}
	return a
}
