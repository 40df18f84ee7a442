package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// runbook is a Markdown file of about sections × 2.4 KB.
func runbook(sections int, advice string) string {
	var b strings.Builder
	b.WriteString("# Runbook\n\n")
	for i := range sections {
		fmt.Fprintf(&b, "## Step %d\n\n", i)
		for j := range 3 + i%4 {
			fmt.Fprintf(&b, "Paragraph %d of step %d: %s\n\n", j, i, strings.Repeat("drain the node, restart the worker pool, check the queue. ", 2+j))
		}
		if i == sections/2 {
			b.WriteString(advice + "\n\n")
		}
	}
	return b.String()
}

// page is HTML whose quotes and newlines JSON escapes, about lines × 120 B.
func page(lines int) string {
	var b strings.Builder
	b.WriteString("<html><body>\n")
	for i := range lines {
		fmt.Fprintf(&b, "<p class=\"row\" data-i=\"%d\"><a href=\"/item/%d\" title=\"Item %d\">item %d</a></p>\n", i, i, i, i)
		if i%10 == 9 {
			b.WriteString("\n")
		}
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

func statuses(st Stats) string {
	return fmt.Sprintf("stored %d unchanged %d empty %d in parts %d secret %d failures %+v",
		st.Stored, st.Unchanged, st.Empty, st.InParts, st.Secret, st.Failures)
}

// A folder on a bus of 64 KB messages: a 300 KB Markdown file and a 400 KB
// HTML page go in parts and get the chunks they get sent whole over a bus
// that takes them in one message; a file the memory service rejects is
// reported and the rest stored; secret files are skipped unless named; a
// changed large file replaces its old chunks, an unchanged one is known.
func TestWalkInPartsOnASmallBus(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	big := filepath.Join(root, "docs", "runbook.md")
	write(t, root, "docs/runbook.md", []byte(runbook(200, "Old advice: reboot the host.")))
	write(t, root, "site/index.html", []byte(page(3500)))
	// Nothing but zero-width spaces: text the memory service rejects.
	write(t, root, "notes/blank.txt", []byte(strings.Repeat("\u200b", 50)+"\n"))
	for i := range 40 {
		write(t, root, fmt.Sprintf("notes/n%02d.md", i), []byte(fmt.Sprintf("# Note %d\n\nThe service for team %d runs on port %d.\n", i, i, 8000+i)))
	}
	write(t, root, ".env", []byte("DATABASE_URL=postgres://app:hunter2@db/app\n"))
	write(t, root, ".env.production", []byte("API_KEY=abc\n"))
	write(t, root, ".env.example", []byte("DATABASE_URL=\n"))
	write(t, root, "keys/id_ed25519", []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"))
	write(t, root, "keys/id_ed25519.pub", []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA me@host\n"))
	write(t, root, "certs/server.pem", []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"))

	small := mustStartMemory(t, 64<<10)
	var reported []Failure
	opts := Options{MaxFileBytes: 4 << 20, MaxRequestBytes: small.maxRequest(), Failed: func(f Failure) { reported = append(reported, f) }}
	st, err := Walk(ctx, []string{root}, opts, small.send, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 40 notes, .env.example, the public key, the two large files.
	if st.Stored != 44 || st.InParts != 2 || st.Secret != 4 || len(st.Failures) != 1 || len(reported) != 1 {
		t.Fatalf("%s", statuses(st))
	}
	if f := st.Failures[0]; f.Path != "notes/blank.txt" || !strings.Contains(f.Reason, "no text") || f.Partly {
		t.Errorf("failure %+v", f)
	}
	sort.Strings(st.SecretNames)
	if got := strings.Join(st.SecretNames, " "); got != ".env .env.production certs/server.pem keys/id_ed25519" {
		t.Errorf("secret files skipped: %s", got)
	}
	parts := 0
	for _, f := range small.sent {
		if f.SourceID == big {
			parts++
		}
		if strings.Contains(f.Content, "hunter2") || strings.Contains(f.Content, "PRIVATE KEY") {
			t.Errorf("%s was sent", f.DisplayName)
		}
	}
	if parts < 4 {
		t.Errorf("runbook.md went in %d parts", parts)
	}

	// The same folder over a bus that takes each file whole.
	whole := mustStartMemory(t, 8<<20)
	opts.MaxRequestBytes, opts.Failed = whole.maxRequest(), nil
	if st, err := Walk(ctx, []string{root}, opts, whole.send, nil); err != nil || st.InParts != 0 || st.Stored != 44 {
		t.Fatalf("whole: %s %v", statuses(st), err)
	}
	for _, source := range []string{big, filepath.Join(root, "site", "index.html")} {
		got, want := ids(small.chunks(t, source)), ids(whole.chunks(t, source))
		if len(want) < 10 || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: %d chunks in parts, %d whole; ids differ", source, len(got), len(want))
		}
	}

	// Unchanged: the large files end at their first part.
	small.sent = nil
	if st, err := Walk(ctx, []string{root}, Options{MaxFileBytes: 4 << 20, MaxRequestBytes: small.maxRequest()}, small.send, nil); err != nil || st.Unchanged != 44 {
		t.Fatalf("again: %s %v", statuses(st), err)
	}
	if parts := countSource(small.sent, big); parts != 1 {
		t.Errorf("an unchanged large file sent %d parts", parts)
	}

	// Changed: its new chunks replace the old ones, as they would whole.
	write(t, root, "docs/runbook.md", []byte(runbook(200, "New advice: cordon the node first.")))
	for i, mem := range []*memoryBus{small, whole} {
		st, err := Walk(ctx, []string{root}, Options{MaxFileBytes: 4 << 20, MaxRequestBytes: mem.maxRequest()}, mem.send, nil)
		if err != nil || st.Stored != 1 || st.Unchanged != 43 {
			t.Fatalf("changed, bus %d: %s %v", i, statuses(st), err)
		}
	}
	got, want := small.chunks(t, big), whole.chunks(t, big)
	if strings.Join(ids(got), " ") != strings.Join(ids(want), " ") {
		t.Errorf("changed runbook.md: %d chunks in parts, %d whole; ids differ", len(got), len(want))
	}
	for _, c := range got {
		if strings.Contains(fmt.Sprint(c["content_preview"]), "reboot the host") {
			t.Errorf("the old advice is still stored: %v", c["content_preview"])
		}
	}

	// A secret file named on the command line is ingested, scrubbed.
	st, err = Walk(ctx, []string{filepath.Join(root, ".env")}, Options{MaxRequestBytes: small.maxRequest()}, small.send, nil)
	if err != nil || st.Stored != 1 || st.Secret != 0 {
		t.Fatalf(".env named: %s %v", statuses(st), err)
	}
	for _, c := range small.chunks(t, filepath.Join(root, ".env")) {
		if strings.Contains(fmt.Sprint(c["content_preview"]), "hunter2") {
			t.Errorf("stored in clear: %v", c["content_preview"])
		}
	}
}

func countSource(files []File, source string) int {
	n := 0
	for _, f := range files {
		if f.SourceID == source {
			n++
		}
	}
	return n
}

// A path named on the command line that cannot be read (missing, or a
// pipe, whose read would never end) fails alone, and so does a file in a
// request the memory service refuses as a whole (here for a file name that
// shows nothing): its files go again one by one. The others are stored,
// and a folder's pipes and sockets are passed over.
func TestWalkFilesFailAlone(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.md", []byte("# A\n\nAlpha.\n"))
	write(t, root, "b.md", []byte("# B\n\nBravo.\n"))
	write(t, root, "\u200b", []byte("Named by a zero-width space.\n"))
	fifo := filepath.Join(root, "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	mem := mustStartMemory(t, 0)
	st, err := Walk(context.Background(), []string{filepath.Join(root, "missing.md"), fifo, root}, Options{}, mem.send, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Stored != 2 || len(st.Failures) != 3 || mem.calls != 4 {
		t.Fatalf("%s, %d requests", statuses(st), mem.calls)
	}
	for i, want := range []string{"no such file", "not a regular file", "display_name` must not be blank"} {
		if !strings.Contains(st.Failures[i].Reason, want) {
			t.Errorf("failure %d: %+v, want %q", i, st.Failures[i], want)
		}
	}
}
