package console_test

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/llm"
	"github.com/openhuman-go/openhuman-go/pkg/llm/llmtest"
	"github.com/openhuman-go/openhuman-go/services/gateway/console/browsertest"
)

// searxngFake is the SearXNG stand-in of the compose stack
// (deploy/local/searxng-fake), a real process the test can kill.
type searxngFake struct {
	URL string
	cmd *exec.Cmd
}

var searxngBinary = sync.OnceValues(func() (string, error) {
	return browsertest.Build("github.com/openhuman-go/openhuman-go/deploy/local/searxng-fake")
})

// startSearxng runs the stand-in on a free loopback port.
func startSearxng(t *testing.T) *searxngFake {
	t.Helper()
	bin, err := searxngBinary()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "SEARXNG_FAKE_ADDR="+addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &searxngFake{URL: "http://" + addr, cmd: cmd}
	t.Cleanup(f.stop)
	for i := 0; ; i++ {
		resp, err := http.Get(f.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			return f
		}
		if i == 100 {
			t.Fatalf("the SearXNG stand-in did not answer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop kills the stand-in: from then on every search of it fails.
func (f *searxngFake) stop() {
	if f.cmd.ProcessState == nil {
		_ = f.cmd.Process.Kill()
		_ = f.cmd.Wait()
	}
}

// noteTaker is a scripted model: the note taker learns the note it is
// given (its prompt), then says it stored it, or what stopped it.
func noteTaker(t *testing.T) *llmtest.Server {
	return llmtest.New(t, func(_ int, req llm.Request) llmtest.Reply {
		if llmtest.LastToolResult(req) == "" {
			prompt := req.Messages[len(req.Messages)-1].Content
			return llmtest.Call("memory_learn", `{"text":`+string(must(json.Marshal(prompt)))+`,"kind":"fact"}`)
		}
		return llmtest.Text("Done: " + llmtest.LastToolResult(req))
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
