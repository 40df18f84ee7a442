package console_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openhuman-go/openhuman-go/pkg/testbuf"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// elicitResult is what testdata/elicit.mjs prints.
type elicitResult struct {
	Asked []struct {
		Message string         `json:"message"`
		Schema  map[string]any `json:"schema"`
	} `json:"asked"`
	Withdrawn int `json:"withdrawn"`
	Result    struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

// elicitClient is a running testdata/elicit.mjs.
type elicitClient struct {
	done  <-chan elicitResult
	asked <-chan struct{} // closed once the server asked it a question
}

// runElicitClient starts testdata/elicit.mjs, the official TypeScript
// SDK's client; its result comes on done.
func runElicitClient(t *testing.T, base, answer, prompt string) elicitClient {
	t.Helper()
	modules := browsertest.NodeModules(t)
	// ES modules find packages in node_modules beside the script.
	script := filepath.Join(filepath.Dir(modules), "elicit-test.mjs")
	src, err := os.ReadFile("testdata/elicit.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, asked := make(chan elicitResult, 1), make(chan struct{})
	var stdout bytes.Buffer
	// asked closes at the client's first "asked:" line.
	seen := false
	stderr := &testbuf.Buffer{OnWrite: func(all []byte) {
		if !seen && bytes.Contains(all, []byte("asked: ")) {
			seen = true
			close(asked)
		}
	}}
	cmd := exec.Command("node", script, base, ownerToken, answer, prompt)
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	go func() {
		var res elicitResult
		if err := cmd.Wait(); err != nil || json.Unmarshal(stdout.Bytes(), &res) != nil {
			t.Errorf("the TypeScript client failed: %v\n%s\n%s", err, stdout.String(), stderr.String())
		}
		out <- res
	}()
	return elicitClient{done: out, asked: asked}
}

func waitClient(t *testing.T, c elicitClient) elicitResult {
	t.Helper()
	select {
	case r := <-c.done:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("the TypeScript client did not finish")
		return elicitResult{}
	}
}

// TestApprovalByElicitation: the official TypeScript SDK's client, which
// declares elicitation, runs a sub-agent whose write waits for approval:
// it is asked in the client (elicitation/create, yes or no with the
// action described) and approves or denies there; the console shows who
// decided. When the console answers first, the client's question is
// withdrawn.
func TestApprovalByElicitation(t *testing.T) {
	browsertest.Require(t)
	model := noteTaker(t)
	home := t.TempDir()
	writeTokens(t, home, token{name: "owner", secret: ownerToken, scopes: []string{"read", "act"}})
	srv := browsertest.ServeIn(t, home, "OPENHUMAN_LLM_BASE_URL="+model.URL, "OPENHUMAN_LLM_MODEL=toy", "OPENHUMAN_APPROVAL_MODE=ask")

	t.Run("approved in the client", func(t *testing.T) {
		res := waitClient(t, runElicitClient(t, srv.URL, "approve", "Note: the zqelicitword badge opens the side door."))
		if len(res.Asked) != 1 || !strings.Contains(res.Asked[0].Message, "note_taker wants to call memory.learn") || !strings.Contains(res.Asked[0].Message, "zqelicitword badge") {
			t.Fatalf("asked %+v", res.Asked)
		}
		if props, _ := res.Asked[0].Schema["properties"].(map[string]any); props["approve"] == nil {
			t.Errorf("the question's schema has no yes or no: %v", res.Asked[0].Schema)
		}
		if res.Result.IsError || !strings.HasPrefix(res.Result.StructuredContent["response"].(string), "Done: ") {
			t.Fatalf("the run: %+v", res.Result)
		}
		if texts := allTexts(t, srv.URL, ownerToken); len(texts) != 1 || !strings.Contains(texts[0], "zqelicitword") {
			t.Fatalf("memory after approving in the client: %q", texts)
		}
	})
	t.Run("denied in the client", func(t *testing.T) {
		res := waitClient(t, runElicitClient(t, srv.URL, "deny", "Note: the zqrefuseword door code is 1234."))
		if len(res.Asked) != 1 {
			t.Fatalf("asked %+v", res.Asked)
		}
		if !strings.Contains(res.Result.StructuredContent["response"].(string), "denied by the approver: not from VS Code") {
			t.Fatalf("the run: %+v", res.Result)
		}
		if texts := allTexts(t, srv.URL, ownerToken); len(texts) != 1 {
			t.Fatalf("a denied write was stored: %q", texts)
		}
	})
	t.Run("the console answers first", func(t *testing.T) {
		p := newPerson(t, srv.URL)
		p.signIn(ownerToken)
		p.open("/console/approvals")
		client := runElicitClient(t, srv.URL, "wait", "Note: the zqraceword lift is serviced on Wednesdays.")
		p.sees("zqraceword lift")
		// The client is asked within a moment of the call's parking; the
		// console answers after that, so that there is a question to
		// withdraw.
		select {
		case <-client.asked:
		case <-time.After(30 * time.Second):
			t.Fatal("the client was never asked")
		}
		p.do("approving in the console", chromedp.Click(`article.approval button[value="approve"]`))
		res := waitClient(t, client)
		if len(res.Asked) != 1 || res.Withdrawn != 1 {
			t.Fatalf("the client's question was not withdrawn: asked %d, withdrawn %d", len(res.Asked), res.Withdrawn)
		}
		if !strings.HasPrefix(res.Result.StructuredContent["response"].(string), "Done: ") {
			t.Fatalf("the run: %+v", res.Result)
		}
		// Who decided each, newest first: the console, then the client twice.
		p.open("/console/approvals")
		rows, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#decided ~ table tbody tr")].map(r => r.innerText)`))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 3 || !strings.Contains(rows[0], "approved") || !strings.Contains(rows[0], "console:owner") ||
			!strings.Contains(rows[1], "denied") || !strings.Contains(rows[1], "mcp:vs-code (token owner)") ||
			!strings.Contains(rows[2], "approved") || !strings.Contains(rows[2], "mcp:vs-code") {
			t.Fatalf("decided rows %q", rows)
		}
	})
}
