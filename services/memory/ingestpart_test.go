package memory_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/secrets"
	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
)

// chunkIDs lists the chunks of source that cc sees, in the order they
// were stored.
func chunkIDs(t *testing.T, svc *memory.Service, cc contract.CallContext, source string) []string {
	t.Helper()
	var ids []string
	for off := 0; ; off += 100 {
		page, err := svc.Browse(context.Background(), memory.BrowseParams{SourceIDs: []string{source}, K: 100, Offset: off}, cc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.Chunks {
			ids = append(ids, c.ID)
		}
		if len(page.Chunks) < 100 {
			break
		}
	}
	// Browse lists the newest first; every chunk here has the same time.
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids
}

// limitedTo is a caller limited to workspace ws.
func limitedTo(ws string) contract.CallContext {
	return contract.CallContext{Source: "cli", Token: ws, Workspaces: []string{ws}}
}

// sender sends one file (or part) alone and says what became of it.
type sender func(contract.IngestFile) memory.IngestedFile

// ingestAs sends as cc.
func ingestAs(t *testing.T, svc *memory.Service, cc contract.CallContext) sender {
	return func(f contract.IngestFile) memory.IngestedFile {
		t.Helper()
		res, err := svc.Ingest(context.Background(), memory.IngestParams{Files: []contract.IngestFile{f}}, cc)
		if err != nil {
			t.Fatal(err)
		}
		return res.Files[0]
	}
}

// sendParts sends text as the ingest walk does, in parts of about size
// bytes, stopping after stop parts (0: all); it returns the replies.
func sendParts(t *testing.T, send sender, f contract.IngestFile, text string, size, stop int) []memory.IngestedFile {
	t.Helper()
	sum := sha256.Sum256([]byte(text))
	f.SHA256 = hex.EncodeToString(sum[:])
	var replies []memory.IngestedFile
	offset, line, resume := int64(0), 1, ""
	for offset < int64(len(text)) && (stop == 0 || len(replies) < stop) {
		end := min(int(offset)+size, len(text))
		if end < len(text) {
			if nl := strings.LastIndexByte(text[offset:end], '\n'); nl >= 0 {
				end = int(offset) + nl + 1
			}
		}
		part := f
		part.Content, part.Offset, part.Line, part.Resume, part.More = text[offset:end], offset, line, resume, end < len(text)
		r := send(part)
		replies = append(replies, r)
		if r.Status != contract.IngestPart {
			break
		}
		offset, line, resume = r.NextOffset, r.NextLine, r.Resume
	}
	return replies
}

var cli = contract.CallContext{Source: "cli"}

// wholeIDs are the chunk ids f gets when each of texts is ingested whole
// in turn (a changed file's unchanged chunks keep their place, so the
// order depends on the history).
func wholeIDs(t *testing.T, f contract.IngestFile, texts ...string) []string {
	t.Helper()
	svc := mustOpenService(t)
	for _, text := range texts {
		f.Content = text
		ingestAs(t, svc, cli)(f)
	}
	id, _ := secrets.Scrub(f.SourceID)
	return chunkIDs(t, svc, anyone, id)
}

func bigMarkdown(sections int, edit string) string {
	var b strings.Builder
	b.WriteString("# Runbook\n\n")
	for i := range sections {
		fmt.Fprintf(&b, "## Step %d\n\n", i)
		for j := range 3 + i%4 {
			fmt.Fprintf(&b, "Paragraph %d of step %d: %s\n\n", j, i, strings.Repeat("restart the worker pool and check the queue ", 3+j))
		}
		if i == sections/2 {
			b.WriteString(edit + "\n\n")
		}
	}
	return b.String()
}

// A file sent in parts is stored with the chunks, ids and order it gets
// sent whole; an unchanged file is known from its first part; a changed
// file that stops half-way keeps its old chunks beside the new ones until
// it is sent again in full, which leaves exactly the new file's chunks.
func TestIngestInParts(t *testing.T) {
	ctx := context.Background()
	file := contract.IngestFile{SourceID: "/docs/runbook.md", SourceKind: "folder", DisplayName: "runbook.md",
		Language: "markdown", Workspace: "ops", FilePath: "runbook.md", ModifiedMS: 1_700_000_000_000}
	v1 := bigMarkdown(120, "Old advice: reboot the host.")
	v2 := bigMarkdown(120, "New advice: drain the node first.")

	// The same history with each version sent whole.
	want1, want2 := wholeIDs(t, file, v1), wholeIDs(t, file, v1, v2)

	svc := mustOpenService(t)
	send := ingestAs(t, svc, cli)
	replies := sendParts(t, send, file, v1, 8<<10, 0)
	if len(replies) < 5 || replies[len(replies)-1].Status != contract.IngestStored {
		t.Fatalf("%d parts, last %+v", len(replies), replies[len(replies)-1])
	}
	if got := chunkIDs(t, svc, anyone, file.SourceID); strings.Join(got, " ") != strings.Join(want1, " ") {
		t.Fatalf("in parts: %d chunks, whole: %d; ids differ", len(got), len(want1))
	}

	if again := sendParts(t, send, file, v1, 8<<10, 0); len(again) != 1 || again[0].Status != contract.IngestUnchanged {
		t.Errorf("unchanged file: %+v", again)
	}

	// v2 stops before its last part, past its edited section: the old
	// chunks are all still there, beside the new ones.
	sendParts(t, send, file, v2, 8<<10, len(replies)-1)
	mixed := chunkIDs(t, svc, anyone, file.SourceID)
	if len(mixed) <= len(want1) || strings.Join(mixed[:len(want1)], " ") != strings.Join(want1, " ") {
		t.Errorf("after an interrupted v2: %d chunks, want v1's %d and the new ones after them", len(mixed), len(want1))
	}
	replies = sendParts(t, send, file, v2, 8<<10, 0)
	if replies[len(replies)-1].Status != contract.IngestStored {
		t.Fatalf("last part of v2: %+v", replies[len(replies)-1])
	}
	if got := chunkIDs(t, svc, anyone, file.SourceID); strings.Join(got, " ") != strings.Join(want2, " ") {
		t.Errorf("after v2 in full: %d chunks, v2 whole has %d; ids differ", len(got), len(want2))
	}
	page, err := svc.Browse(ctx, memory.BrowseParams{SourceIDs: []string{file.SourceID}, Query: "reboot"}, contract.CallContext{})
	if err != nil || page.Total != 0 {
		t.Errorf("v1's edited chunk is still there: %+v %v", page, err)
	}

	bad := file
	bad.Content, bad.More, bad.SHA256 = "x", true, "abc"
	_, err = svc.Ingest(ctx, memory.IngestParams{Files: []contract.IngestFile{bad}}, contract.CallContext{})
	if contract.ErrorCode(err) != contract.CodeInvalidRequest || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("a part without its file's hash: %v", err)
	}
}

// The same file sent in parts into two workspaces is two sources: the
// second is not taken for unchanged, each gets the chunks it gets sent
// whole there, and a new version in one leaves the other's chunks alone.
func TestIngestInPartsPerWorkspace(t *testing.T) {
	file := contract.IngestFile{SourceID: "/docs/runbook.md", SourceKind: "folder", DisplayName: "runbook.md",
		Language: "markdown", FilePath: "runbook.md", ModifiedMS: 1_700_000_000_000}
	v1 := bigMarkdown(120, "Old advice: reboot the host.")
	v2 := bigMarkdown(120, "New advice: drain the node first.")
	inA, inB := file, file
	inA.Workspace, inB.Workspace = "a", "b"

	svc := mustOpenService(t)
	for _, f := range []contract.IngestFile{inA, inB} {
		replies := sendParts(t, ingestAs(t, svc, cli), f, v1, 8<<10, 0)
		if last := replies[len(replies)-1]; len(replies) < 5 || last.Status != contract.IngestStored {
			t.Fatalf("%s: %d parts, last %+v", f.Workspace, len(replies), last)
		}
	}
	wantB := wholeIDs(t, inB, v1)
	for ws, want := range map[string][]string{"a": wholeIDs(t, inA, v1), "b": wantB} {
		if got := chunkIDs(t, svc, limitedTo(ws), file.SourceID); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s after v1: %d chunks, whole: %d; ids differ", ws, len(got), len(want))
		}
	}

	// A caller limited to a, naming no workspace, sends v2 there.
	inA.Workspace = ""
	sendParts(t, ingestAs(t, svc, limitedTo("a")), inA, v2, 8<<10, 0)
	inA.Workspace = "a"
	if got, want := chunkIDs(t, svc, limitedTo("a"), file.SourceID), wholeIDs(t, inA, v1, v2); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("a after v2: %d chunks, whole: %d; ids differ", len(got), len(want))
	}
	if got := chunkIDs(t, svc, limitedTo("b"), file.SourceID); strings.Join(got, " ") != strings.Join(wantB, " ") {
		t.Errorf("b after v2 went to a: %d chunks, want its %d of v1", len(got), len(wantB))
	}
	if again := sendParts(t, ingestAs(t, svc, cli), inB, v1, 8<<10, 0); len(again) != 1 || again[0].Status != contract.IngestUnchanged {
		t.Errorf("v1 again into b: %+v", again)
	}

	// Two runs at once, v1 back into a and v2 into b, their parts taking
	// turns: neither forgets what the other's parts noted. A part's reply
	// depends only on the part, so b's parts are those a scratch memory
	// asks for.
	var partsB []contract.IngestFile
	scratch := ingestAs(t, mustOpenService(t), cli)
	sendParts(t, func(f contract.IngestFile) memory.IngestedFile { partsB = append(partsB, f); return scratch(f) }, inB, v2, 8<<10, 0)
	send := ingestAs(t, svc, cli)
	sendParts(t, func(f contract.IngestFile) memory.IngestedFile {
		if len(partsB) > 1 { // b's last part comes after a's
			send(partsB[0])
			partsB = partsB[1:]
		}
		return send(f)
	}, inA, v1, 8<<10, 0)
	for _, f := range partsB {
		send(f)
	}
	for _, h := range []struct {
		f     contract.IngestFile
		texts []string
	}{{inA, []string{v1, v2, v1}}, {inB, []string{v1, v2}}} {
		got, want := chunkIDs(t, svc, limitedTo(h.f.Workspace), file.SourceID), wholeIDs(t, h.f, h.texts...)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s after two runs at once: %d chunks, whole: %d; ids differ", h.f.Workspace, len(got), len(want))
		}
	}
}

// A part sent twice (its first attempt stored it, but the reply was lost
// with its replica) stores nothing twice and is answered the same; so is
// a duplicate that arrives only after the file's last part.
func TestIngestPartTwice(t *testing.T) {
	file := contract.IngestFile{SourceID: "/docs/runbook.md", SourceKind: "folder", DisplayName: "runbook.md",
		Language: "markdown", Workspace: "ops", FilePath: "runbook.md", ModifiedMS: 1_700_000_000_000}
	v1 := bigMarkdown(120, "Old advice: reboot the host.")
	v2 := bigMarkdown(120, "New advice: drain the node first.")

	svc := mustOpenService(t)
	once := ingestAs(t, svc, cli)
	var sent []contract.IngestFile
	twice := func(f contract.IngestFile) memory.IngestedFile {
		first, again := once(f), once(f)
		if !reflect.DeepEqual(first, again) {
			t.Errorf("part at %d: %+v, sent again: %+v", f.Offset, first, again)
		}
		sent = append(sent, f)
		return again
	}
	for _, h := range []struct {
		text string
		want []string
	}{{v1, wholeIDs(t, file, v1)}, {v2, wholeIDs(t, file, v1, v2)}} {
		sent = nil
		replies := sendParts(t, twice, file, h.text, 8<<10, 0)
		if len(replies) < 5 || replies[len(replies)-1].Status != contract.IngestStored {
			t.Fatalf("%d parts, last %+v", len(replies), replies[len(replies)-1])
		}
		if got := chunkIDs(t, svc, anyone, file.SourceID); strings.Join(got, " ") != strings.Join(h.want, " ") {
			t.Fatalf("each part twice: %d chunks, whole: %d; ids differ", len(got), len(h.want))
		}
	}
	// A late copy of a middle part of the version now stored.
	if r := once(sent[len(sent)/2]); r.Status != contract.IngestPart {
		t.Errorf("a late copy of a part: %+v", r)
	}
	if got, want := chunkIDs(t, svc, anyone, file.SourceID), wholeIDs(t, file, v1, v2); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after a late copy of a part: %d chunks, whole: %d; ids differ", len(got), len(want))
	}
	// What the late copy noted does not outlive the next version.
	sendParts(t, once, file, v1, 8<<10, 0)
	if got, want := chunkIDs(t, svc, anyone, file.SourceID), wholeIDs(t, file, v1, v2, v1); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("v1 again after a late copy of a v2 part: %d chunks, whole: %d; ids differ", len(got), len(want))
	}
}

// A caller limited to a workspace cannot send any part of a file into
// another, first or later, and nothing of it is stored; a caller that may
// write to several must name one for every part.
func TestIngestPartOutsideScope(t *testing.T) {
	ctx := context.Background()
	text := bigMarkdown(40, "")
	sum := sha256.Sum256([]byte(text))
	cut := strings.Index(text, "## Step 20")
	first := contract.IngestFile{SourceID: "/docs/runbook.md", SourceKind: "folder", DisplayName: "runbook.md", Language: "markdown",
		Workspace: "b", SHA256: hex.EncodeToString(sum[:]), Content: text[:cut], More: true}
	later := first
	later.Content, later.Offset, later.Line, later.More = text[cut:], int64(cut), 1+strings.Count(text[:cut], "\n"), false

	svc := mustOpenService(t)
	for _, part := range []contract.IngestFile{first, later} {
		_, err := svc.Ingest(ctx, memory.IngestParams{Files: []contract.IngestFile{part}}, limitedTo("a"))
		if contract.ErrorCode(err) != contract.CodeDenied || !strings.Contains(contract.ErrorMessage(err), "argument `files[0].workspace`") {
			t.Errorf("part at %d into b as a caller limited to a: %v", part.Offset, err)
		}
		part.Workspace = ""
		_, err = svc.Ingest(ctx, memory.IngestParams{Files: []contract.IngestFile{part}}, contract.CallContext{Workspaces: []string{"a", "c"}})
		if contract.ErrorCode(err) != contract.CodeInvalidRequest || !strings.Contains(contract.ErrorMessage(err), "argument `files[0].workspace` is required") {
			t.Errorf("part at %d with no workspace as a caller of two: %v", part.Offset, err)
		}
	}
	if ids := chunkIDs(t, svc, anyone, first.SourceID); len(ids) != 0 {
		t.Errorf("refused parts stored %d chunks", len(ids))
	}
}

// A file sent in parts whose path and name carry a secret is recorded
// under the scrubbed id and name, as it is sent whole: the database holds
// no secret, the source is listed by its name, an unchanged file is known
// and a new version's last part removes the old version's chunks.
func TestIngestInPartsScrubsItsSource(t *testing.T) {
	const secret = "tok9f8e7d6c5b4a"
	path := filepath.Join(t.TempDir(), "memory.db")
	st := mustOpenStoreAt(t, path)
	svc := memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0)})
	file := contract.IngestFile{SourceID: "/docs/runbook.md?token=" + secret, SourceKind: "folder", DisplayName: "runbook.md token=" + secret,
		Language: "markdown", Workspace: "ops", FilePath: "runbook.md", ModifiedMS: 1_700_000_000_000}
	v1 := bigMarkdown(120, "Old advice: reboot the host.")
	v2 := bigMarkdown(120, "New advice: drain the node first.")

	send := ingestAs(t, svc, cli)
	sendParts(t, send, file, v1, 8<<10, 0)
	if again := sendParts(t, send, file, v1, 8<<10, 0); len(again) != 1 || again[0].Status != contract.IngestUnchanged {
		t.Errorf("unchanged file: %+v", again)
	}
	sendParts(t, send, file, v2, 8<<10, 0)
	srcs, err := svc.ListSources(context.Background(), memory.ListSourcesParams{}, anyone)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs.Sources) != 1 || !strings.HasPrefix(srcs.Sources[0].DisplayName, "runbook.md token=[REDACTED") {
		t.Fatalf("sources: %+v", srcs.Sources)
	}
	if got, want := chunkIDs(t, svc, anyone, srcs.Sources[0].SourceID), wholeIDs(t, file, v1, v2); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after v2: %d chunks, whole: %d; ids differ", len(got), len(want))
	}
	if err := st.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal"} {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", filepath.Base(f))
		}
	}
}
