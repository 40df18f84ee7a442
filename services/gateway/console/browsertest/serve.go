package browsertest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// binary builds openhuman-core once per test binary.
var binary = sync.OnceValues(func() (string, error) {
	return Build("github.com/openhuman-go/openhuman-go/services/gateway/cmd/openhuman-core")
})

var (
	buildsMu sync.Mutex
	builds   []string
)

// Build builds the command pkg into a temporary directory and returns the
// binary's path; RemoveBuilds removes them all.
func Build(pkg string) (string, error) {
	dir, err := os.MkdirTemp("", "openhuman-browsertest-")
	if err != nil {
		return "", err
	}
	buildsMu.Lock()
	builds = append(builds, dir)
	buildsMu.Unlock()
	path := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", path, pkg)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, out.String())
	}
	return path, nil
}

// RemoveBuilds removes what Build made; a TestMain calls it last.
func RemoveBuilds() {
	buildsMu.Lock()
	defer buildsMu.Unlock()
	for _, d := range builds {
		os.RemoveAll(d)
	}
	builds = nil
}

// Server is a real `openhuman-core serve`.
type Server struct {
	// URL is where it listens: http://127.0.0.1:PORT.
	URL  string
	Home string
	err  *lockedBuffer
}

// Log is what the server wrote to stderr so far.
func (s *Server) Log() string { return s.err.String() }

// Serve starts `openhuman-core serve` on a free loopback port in a fresh
// home, with env (NAME=value) added to the test's environment; it stops
// when tb ends.
func Serve(tb testing.TB, env ...string) *Server {
	tb.Helper()
	return ServeIn(tb, tb.TempDir(), env...)
}

var servingLine = regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)`)

// Core runs `openhuman-core ARGS` (the binary serve runs) and returns its
// output; it fails the test when the command fails.
func Core(tb testing.TB, args ...string) string {
	tb.Helper()
	bin, err := binary()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		tb.Fatalf("openhuman-core %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// ServeIn is Serve in the home given.
func ServeIn(tb testing.TB, home string, env ...string) *Server {
	tb.Helper()
	return ServeOn(tb, home, "127.0.0.1:0", env...)
}

// FreeAddr is a loopback address with a port free a moment ago, for a
// server that must know its URL before it starts (http.public_url).
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// ServeOn is ServeIn listening on addr.
func ServeOn(tb testing.TB, home, addr string, env ...string) *Server {
	tb.Helper()
	bin, err := binary()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "--home", home, "serve", "--addr", addr)
	// Tests never reach the public model hub: models are off unless env
	// points at a hub of its own, and then on whatever this process's
	// environment says (a later OPENHUMAN_MODELS in env wins).
	models := "OPENHUMAN_MODELS=off"
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "OPENHUMAN_MODELS_HUB_URL=") }) {
		models = "OPENHUMAN_MODELS=on"
	}
	env = append([]string{models}, env...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{Home: home, err: &lockedBuffer{}}
	cmd.Stderr = s.err
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case s.URL = <-found:
	case <-time.After(60 * time.Second):
		tb.Fatalf("serve did not say where it listens within a minute:\n%s", s.Log())
	}
	return s
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
