package natsbus_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
)

func TestMalformedModelOutputIsReportedNotCrashedOn(t *testing.T) {
	r := newRig(t, rigOptions{}, func(n int, req llm.Request) llm.Message {
		switch n {
		case 0:
			return call("memory_recall", `{"question": "unterminated`)
		case 1:
			return call("memory_recall", `{"query":"wrong field"}`)
		case 2:
			return call("memory_recall", ``) // no arguments at all
		}
		return text("Done.")
	})
	res := mustRun(t, r, "librarian", "q")
	reqs := r.model.Requests()
	for i, want := range []string{
		"the arguments of memory.recall are not valid JSON",
		"unexpected argument `query`",
		"missing required argument `question`",
	} {
		if got := llmtest.LastToolResult(reqs[i+1]); !strings.Contains(got, want) {
			t.Errorf("turn %d: told %q, want %q", i+1, got, want)
		}
	}
	if len(res.ToolCalls) != 3 || res.ToolCalls[0].OK || res.ToolCalls[1].OK || res.ToolCalls[2].OK {
		t.Errorf("tool calls %+v", res.ToolCalls)
	}
	if calls, _ := r.memory.snapshot(); len(calls) != 0 {
		t.Errorf("bad arguments reached memory: %v", calls)
	}

	for name, reply := range map[string]llmtest.Reply{
		"empty answer":  llmtest.Text("   "),
		"no choices":    {Body: `{"id":"x","object":"chat.completion","choices":[]}`},
		"not JSON":      {Body: `<html>502 Bad Gateway</html>`},
		"unknown model": llmtest.Error(404, "The model `nope` does not exist"),
		"bad key":       llmtest.Error(401, "Incorrect API key provided"),
	} {
		t.Run(name, func(t *testing.T) {
			r := newRigReplies(t, rigOptions{}, func(int, llm.Request) llmtest.Reply { return reply })
			_, err := r.run("librarian", "q", 0)
			if e := contract.AsError(err); e == nil || e.Code == contract.CodeInternal || !strings.Contains(e.Message, "librarian") {
				t.Fatalf("err %v", err)
			}
		})
	}
}

func TestRetriesA429ThenSucceeds(t *testing.T) {
	r := newRigReplies(t, rigOptions{}, func(n int, req llm.Request) llmtest.Reply {
		if n == 0 {
			rep := llmtest.Error(429, "Rate limit reached for requests")
			rep.Header = http.Header{"Retry-After": {"0"}}
			return rep
		}
		return llmtest.Text("fine")
	})
	if res := mustRun(t, r, "summarizer", "Summarize: a b c."); res.Response != "fine" || len(r.model.Requests()) != 2 {
		t.Fatalf("result %+v after %d requests", res, len(r.model.Requests()))
	}
}

func TestModelTimeoutIsReported(t *testing.T) {
	r := newRigReplies(t, rigOptions{modelTimeout: 200 * time.Millisecond}, func(int, llm.Request) llmtest.Reply {
		return llmtest.Reply{Delay: time.Second, Message: text("late")}
	})
	_, err := r.run("translator", "Translate: hallo", 0)
	if contract.ErrorCode(err) != contract.CodeUnavailable || !strings.Contains(err.Error(), "no answer in time") {
		t.Fatalf("err %v", err)
	}
}

func TestPromptGuidedToolCalls(t *testing.T) {
	r := newRig(t, rigOptions{}, func(n int, req llm.Request) llm.Message {
		if n == 0 {
			return text("```json\n{\"tool\": \"memory.recall\", \"arguments\": {\"question\": \"coffee\"}}\n```")
		}
		return text("Black [1].")
	})
	res := mustRun(t, r, "librarian", "q")
	if res.Response != "Black [1]." || len(res.ToolCalls) != 1 || !res.ToolCalls[0].OK {
		t.Fatalf("result %+v", res)
	}
	if got := llmtest.LastToolResult(r.model.Requests()[1]); !strings.HasPrefix(got, "Result of memory_recall:") {
		t.Fatalf("fed back %q", got)
	}
}

func TestNoModelAndUnknownAgent(t *testing.T) {
	r := newRig(t, rigOptions{noModel: true}, nil)
	_, err := r.run("librarian", "q", 0)
	if contract.ErrorCode(err) != contract.CodeNoModel || !strings.Contains(err.Error(), "set [llm] model") || !strings.Contains(err.Error(), "OPENHUMAN_LLM_MODEL") {
		t.Fatalf("no model: %v", err)
	}
	_, err = r.run("butler", "q", 0)
	if contract.ErrorCode(err) != contract.CodeNotFound || !strings.Contains(err.Error(), "librarian") {
		t.Fatalf("unknown agent: %v", err)
	}
}
