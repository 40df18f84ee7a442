package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
)

// waitForService waits until service answers a ping on the NATS at url.
func waitForService(t *testing.T, url, service string) {
	t.Helper()
	nc, err := bus.Connect(config.NATS{URL: url}, "test", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := bus.NewClient(nc, nil) // only pings
	deadline := time.Now().Add(30 * time.Second)
	for c.Ping(context.Background(), service) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("the %s service did not answer", service)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeFiles writes files (path under root → content), making folders.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIngestOnASmallBus runs `openhuman-core ingest` against a memory
// process on a NATS server that takes messages of 64 KB: a large file
// goes in parts, a file the memory service rejects is named on stderr and
// makes the exit status 3 while the others are stored, a .env file is
// skipped unless named.
func TestIngestOnASmallBus(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, MaxPayload: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	url := ns.ClientURL()
	startService(t, "openhuman-memory", t.TempDir(), url, "OPENHUMAN_METRICS_ADDR=127.0.0.1:0")
	waitForService(t, url, "memory")

	src := t.TempDir()
	var big strings.Builder
	for i := range 150 {
		fmt.Fprintf(&big, "## Service %d\n\nService %d answers on \"port\" %d; its owner is team %d.\n\n%s\n\n", i, i, 9000+i, i%9, strings.Repeat("It restarts nightly and logs to /var/log/svc. ", 20))
	}
	files := map[string]string{
		"docs/services.md": "# Services\n\n" + big.String(),
		"docs/intro.md":    "# Intro\n\nThe platform team keeps these notes.\n",
		"blank.txt":        strings.Repeat("\u200b", 20),
		".env":             "SECRET_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
	}
	writeFiles(t, src, files)
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), append([]string{"ingest"}, args...)...)
		cmd.Env = testEnv(t.TempDir(), "OPENHUMAN_NATS_URL="+url)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
	}

	out, errOut, code := run("--max-file-size", "1000000", src)
	if code != exitSomeFailed {
		t.Errorf("exit %d, want %d\n%s%s", code, exitSomeFailed, out, errOut)
	}
	mustContain(t, out, "ingested 2 files: 2 stored")
	mustContain(t, out, ", 1 sent in parts; skipped 0 ignored, 0 binary, 0 over 1000000 bytes, 0 unreadable, 1 secret; 1 failed\n")
	mustContain(t, out, "skipped as secret files (name one on the command line to ingest it, scrubbed): .env\n")
	mustContain(t, errOut, "openhuman-core: ingest: blank.txt: item 1 has no text\n")

	out, errOut, code = run(filepath.Join(src, ".env"))
	if code != exitOK {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	mustContain(t, out, "ingested 1 files: 1 stored")
	mustContain(t, out, "secrets removed before storing (api_key) from 1 file: .env (api_key)\n")
}

// TestIngestSummaryNamesFiles checks that the summary names the files
// stored with secrets removed and the files skipped, ten of each, and all
// of them with --verbose.
func TestIngestSummaryNamesFiles(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{
		"netrc/test.netrc": "machine imap login tzz port imaps password letmeknow\n",
		"big.log":          strings.Repeat("a line of a long log\n", 100),
		"logo.png":         "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		".env":             "DB_PASSWORD=hunter2\n",
		"plain.md":         "# Plain\n\nNothing secret here.\n",
	}
	for i := range 11 {
		files[fmt.Sprintf("conf/s%02d.yml", i)] = "token: abcdef123456\n"
	}
	writeFiles(t, src, files)
	run := func(args ...string) string {
		cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), append([]string{"ingest", "--max-file-size", "1000"}, args...)...)
		cmd.Env = testEnv(t.TempDir())
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s%s", err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}

	out := run(src)
	mustContain(t, out, "ingested 13 files: 13 stored")
	mustContain(t, out, "skipped 0 ignored, 1 binary, 1 over 1000 bytes, 0 unreadable, 1 secret; 0 failed\n")
	mustContain(t, out, "secrets removed before storing (password, token) from 12 files: conf/s00.yml (token), conf/s01.yml (token), ")
	mustContain(t, out, ", conf/s09.yml (token) and 2 more (--verbose names them all)\n")
	mustContain(t, out, "skipped over 1000 bytes (--max-file-size raises the limit): big.log\n")
	mustContain(t, out, "skipped as binary: logo.png\n")
	mustContain(t, out, "skipped as secret files (name one on the command line to ingest it, scrubbed): .env\n")

	out = run("--verbose", src)
	mustContain(t, out, ", conf/s10.yml (token), netrc/test.netrc (password)\n")
}

// TestIngestConversationWorkspace checks that --workspace puts the turns
// that name no workspace there.
func TestIngestConversationWorkspace(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "chat.json")
	if err := os.WriteFile(file, []byte(`[{"thread_id":"t-7","speaker":"Lena","text":"The offsite is in Lisbon."},{"thread_id":"t-7","speaker":"Omar","text":"Lisbon in May, then.","workspace":"travel"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), "ingest", "--conversation", "--workspace", "acme", file)
	cmd.Env = testEnv(home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := startMCP(t, home)
	p.initialize("")
	for ws, want := range map[string]string{"acme": "Lena: The offsite is in Lisbon.", "travel": "Omar: Lisbon in May, then."} {
		items := p.tool(1, "memory.list", map[string]any{"filter": map[string]any{"workspace": ws, "kinds": []string{"conversation"}}})["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["text"] != want {
			t.Errorf("workspace %s holds %v, want the turn %q", ws, items, want)
		}
	}
}
