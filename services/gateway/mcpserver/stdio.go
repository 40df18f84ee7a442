package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/openhuman-go/openhuman-go/pkg/bufpool"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/jsonrpc"
)

// MaxMessageBytes bounds one stdio message. A longer line is answered with
// an error and skipped; the session goes on.
const MaxMessageBytes = 16 << 20

// maxInflight bounds concurrent slow requests per stdio session; reading
// pauses while that many run.
const maxInflight = 32

// ServeStdio serves one session over newline-delimited JSON: a message per
// line in, a compact response per line out. It returns when in reaches EOF
// (after every request read has been answered, so piped input gets all its
// responses) or when ctx is cancelled.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	sess := NewSession(contract.TransportMCPStdio)
	w := &lineWriter{w: bufio.NewWriter(out), log: s.opts.Logger}
	// Every request may send the client messages of the server's own
	// (elicit.go), on stdout between the responses.
	ctx = WithPush(ctx, func(msg []byte) error { w.write(msg); return nil })
	lines := make(chan line)
	stop := make(chan struct{})
	defer close(stop)
	go readLines(in, MaxMessageBytes, lines, stop)

	pool := &workers{jobs: make(chan func()), max: maxInflight}
	defer pool.close()
	for {
		var l line
		var ok bool
		select {
		case <-ctx.Done():
			return nil
		case l, ok = <-lines:
		}
		if !ok {
			// Subscriptions would hold the answers in flight open
			// forever: they end, answered, with the input.
			s.Drain()
			return nil
		}
		if l.err != nil {
			return l.err
		}
		if l.tooLong {
			w.write(jsonrpc.Encode(jsonrpc.ErrorResponse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: the message is larger than 16 MiB and was skipped", nil)))
			continue
		}
		in := readIncoming(l.data)
		if !in.slow() {
			// Everything else is answered in order, before the next line is
			// read: initialize always answers before what follows it.
			s.answer(ctx, sess, in, w)
			continue
		}
		// Tool calls and resource reads run beside each other, so one
		// slow call does not hold up pings or a quick memory read; but
		// each waits for the writes sent before it (see Session.order).
		wait, done := sess.schedule(in)
		pool.run(func() {
			defer done()
			select {
			case <-wait:
			case <-ctx.Done():
			}
			s.answer(ctx, sess, in, w)
		})
	}
}

// workers run a session's concurrent requests on at most max goroutines,
// kept for the session's life. A tool call's handler runs deep, and a
// goroutine new for each call spent about a quarter of the gateway's CPU
// for a memory.fetch growing its stack (runtime.newstack and copystack in
// the profile of BenchmarkStdio at 3,000 notes). run is called by one
// goroutine only, and blocks while max requests run.
type workers struct {
	jobs chan func()
	n    int
	max  int
	wg   sync.WaitGroup
}

func (p *workers) run(job func()) {
	select {
	case p.jobs <- job: // an idle worker took it
		return
	default:
	}
	if p.n < p.max {
		p.n++
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			job()
			for j := range p.jobs {
				j()
			}
		}()
		return
	}
	p.jobs <- job
}

// close waits for the requests under way; run may not be called after it.
func (p *workers) close() {
	close(p.jobs)
	p.wg.Wait()
}

// incoming is a message as read, decoded once: scheduled and answered
// from what was decoded.
type incoming struct {
	data  []byte
	batch bool
	// m is the message when it is one valid request or notification;
	// nil for batches, responses and messages refused, which Handle
	// answers from data.
	m *jsonrpc.Message
	// call is tools/call's params, taken apart.
	call *toolCall
}

// toolCall is what tools/call names (toolCallParams).
type toolCall struct {
	name   string
	args   json.RawMessage
	ok     bool
	params json.RawMessage // all of them, for what a 2026-07-28 retry adds
}

func readToolCall(params json.RawMessage) *toolCall {
	tc := &toolCall{params: params}
	tc.name, tc.args, tc.ok = toolCallParams(params)
	return tc
}

func readIncoming(data []byte) incoming {
	in := incoming{data: data}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		in.batch = true
		return in
	}
	if m, _ := jsonrpc.Decode(trimmed); m != nil {
		in.m = m
		if m.Method == "tools/call" {
			in.call = readToolCall(m.Params)
		}
	}
	return in
}

// slow reports whether a message may take long: tool calls and resource
// reads (batches, which may hold either, are scheduled as slow too).
func (in incoming) slow() bool {
	return in.batch || in.m != nil && (in.m.Method == "tools/call" || in.m.Method == "resources/read" || in.m.Method == "subscriptions/listen")
}

// writes reports whether a message may change memory: a call of a
// write-capable tool, or a batch, which may hold one.
func (in incoming) writes() bool {
	if in.batch {
		return true
	}
	if in.call == nil || !in.call.ok {
		return false
	}
	t, ok := contract.ToolByName(in.call.name)
	return ok && t.Acts
}

// answer answers in on w: what was decoded, or data when nothing was.
func (s *Server) answer(ctx context.Context, sess *Session, in incoming, w *lineWriter) {
	if in.m == nil {
		w.write(s.Handle(ctx, sess, in.data))
		return
	}
	resp := s.handleOne(ctx, sess, in.m, in.call)
	if resp == nil {
		return
	}
	frame := frames.Get()
	b := jsonrpc.AppendEncode(*frame, resp)
	w.write(b)
	frames.Put(frame, b)
}

// frames hold responses being written. A tool call's is made room for at
// three times its result (indented text and the result itself), tens of
// KB for a fetch. Written, it is done with: lineWriter keeps nothing of it.
var frames = bufpool.New(16<<10, 1<<20)

type line struct {
	data    []byte
	tooLong bool
	err     error
}

// readLines splits in into lines of at most max bytes and closes out at EOF.
// It gives up when stop closes; a read already blocked on in stays blocked
// until in delivers, which only matters to a process that keeps running.
func readLines(in io.Reader, max int, out chan<- line, stop <-chan struct{}) {
	defer close(out)
	send := func(l line) bool {
		select {
		case out <- l:
			return true
		case <-stop:
			return false
		}
	}
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		var buf []byte
		tooLong := false
		for {
			chunk, err := br.ReadSlice('\n')
			if !tooLong {
				if len(buf)+len(chunk) > max {
					tooLong, buf = true, nil
				} else {
					buf = append(buf, chunk...)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil {
				if len(bytes.TrimSpace(buf)) > 0 || tooLong {
					if !send(line{data: buf, tooLong: tooLong}) { // a last line without its newline
						return
					}
				}
				if !errors.Is(err, io.EOF) {
					send(line{err: err})
				}
				return
			}
			break
		}
		if (len(bytes.TrimSpace(buf)) > 0 || tooLong) && !send(line{data: buf, tooLong: tooLong}) {
			return
		}
	}
}

// lineWriter writes whole lines atomically and flushes each one: a client
// waits for a response, not for a buffer to fill.
type lineWriter struct {
	mu     sync.Mutex
	w      *bufio.Writer
	failed bool
	log    interface {
		Error(msg string, args ...any)
	}
}

func (lw *lineWriter) write(b []byte) {
	if b == nil {
		return
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.failed {
		return
	}
	lw.w.Write(append(b, '\n')) // responses are framed with room for it
	if err := lw.w.Flush(); err != nil {
		lw.failed = true // the client closed stdout; keep reading until it closes stdin too
		lw.log.Error("writing to stdout failed; responses are dropped from now on", "err", err)
	}
}
