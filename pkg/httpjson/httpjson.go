// Package httpjson calls third-party JSON-over-HTTP APIs (embedding servers,
// OpenAI-compatible chat, search providers) the same careful way: a real
// User-Agent, a bounded response size, retries with backoff for what is
// worth retrying (network errors, 429, 5xx), and errors that name the
// service, the URL and what to do.
package httpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// UserAgent identifies us to the services we call.
const UserAgent = "openhuman-go/0.1 (+https://github.com/openhuman-go/openhuman-go)"

// Client posts JSON and decodes JSON answers.
type Client struct {
	// Service names the remote side in errors ("embedding server").
	Service string
	HTTP    *http.Client
	// Attempts is how many times a retryable failure is tried (default 3).
	Attempts int
	// MaxBody bounds a response body (default 32 MiB).
	MaxBody int64
	// Backoff is the first retry's wait, doubled each time (default 250 ms).
	Backoff time.Duration
}

// Error is a failed call.
type Error struct {
	Service   string
	URL       string
	Status    int // 0 when no HTTP answer came
	Message   string
	Retryable bool
	// Header holds the answer's headers (Retry-After, X-RateLimit-Reset, ...).
	Header http.Header
	// Malformed means the answer came but could not be read.
	Malformed bool
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s at %s: %s", e.Service, e.URL, e.Message)
	}
	return fmt.Sprintf("%s at %s answered %d: %s", e.Service, e.URL, e.Status, e.Message)
}

// Get fetches url with headers and decodes the JSON answer into out.
func (c *Client) Get(ctx context.Context, url string, headers map[string]string, out any) error {
	return c.do(ctx, http.MethodGet, url, headers, nil, out)
}

// Post sends body as JSON to url with headers and decodes the answer into out.
func (c *Client) Post(ctx context.Context, url string, headers map[string]string, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return &Error{Service: c.Service, URL: url, Message: "encoding the request: " + err.Error()}
	}
	return c.do(ctx, http.MethodPost, url, headers, payload, out)
}

func (c *Client) do(ctx context.Context, method, url string, headers map[string]string, payload []byte, out any) error {
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	wait := c.Backoff
	if wait <= 0 {
		wait = 250 * time.Millisecond
	}
	var last *attemptError
	for i := 0; i < attempts; i++ {
		if i > 0 {
			d := wait + time.Duration(rand.Int64N(int64(wait/2)+1))
			if last.Status == http.StatusTooManyRequests && last.retryAfter > 0 {
				d = min(last.retryAfter, 30*time.Second)
			}
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return last.Error
			case <-t.C:
			}
			wait *= 2
		}
		e := c.once(ctx, method, url, headers, payload, out)
		if e == nil {
			return nil
		}
		last = e
		if !e.Retryable || ctx.Err() != nil {
			break
		}
	}
	return last.Error
}

// attemptError carries what the retry loop needs besides the Error.
type attemptError struct {
	*Error
	retryAfter time.Duration
}

func (c *Client) once(ctx context.Context, method, url string, headers map[string]string, payload []byte, out any) *attemptError {
	fail := func(status int, retry bool, format string, args ...any) *attemptError {
		return &attemptError{Error: &Error{Service: c.Service, URL: url, Status: status, Message: fmt.Sprintf(format, args...), Retryable: retry}}
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return fail(0, false, "bad URL: %v", err)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		switch {
		case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
			return fail(0, true, "no answer in time")
		case errors.Is(err, context.Canceled):
			return fail(0, false, "cancelled")
		}
		return fail(0, true, "cannot be reached: %v", unwrapURLError(err))
	}
	defer resp.Body.Close()
	max := c.MaxBody
	if max <= 0 {
		max = 32 << 20
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return fail(resp.StatusCode, true, "reading the answer failed: %v", err)
	}
	if int64(len(raw)) > max {
		e := fail(resp.StatusCode, false, "the answer is over %d bytes; refusing to read it", max)
		e.Malformed = true
		return e
	}
	if resp.StatusCode >= 300 {
		e := fail(resp.StatusCode, resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500, "%s", errorMessage(raw))
		e.Header = resp.Header
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			e.retryAfter = time.Duration(s) * time.Second
		}
		return e
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			e := fail(resp.StatusCode, false, "the answer is not the JSON expected: %v (it starts %q)", err, clip(string(raw), 120))
			e.Malformed = true
			return e
		}
	}
	return nil
}

// errorMessage digs the message out of the error shapes APIs use:
// {"error":{"message":...}} (OpenAI), {"error":"..."} (Ollama),
// {"message":...} and {"detail":...}; otherwise the start of the body.
func errorMessage(raw []byte) string {
	var shapes struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &shapes) == nil {
		// {"error":{"message"|"detail":...}} (OpenAI, Gemini, Brave),
		// {"error":"..."}, {"message":"..."}, {"detail":"..."} and
		// {"detail":{"error":"..."}} (Tavily).
		var nested struct {
			Message string `json:"message"`
			Detail  string `json:"detail"`
			Error   string `json:"error"`
		}
		var flat string
		for _, field := range []json.RawMessage{shapes.Error, shapes.Detail} {
			switch {
			case json.Unmarshal(field, &nested) == nil && nested.Message != "":
				return nested.Message
			case json.Unmarshal(field, &nested) == nil && nested.Detail != "":
				return nested.Detail
			case json.Unmarshal(field, &nested) == nil && nested.Error != "":
				return nested.Error
			case json.Unmarshal(field, &flat) == nil && flat != "":
				return flat
			}
		}
		if shapes.Message != "" {
			return shapes.Message
		}
	}
	if s := strings.TrimSpace(string(raw)); s != "" {
		return clip(s, 200)
	}
	return "no message"
}

func unwrapURLError(err error) error {
	var ue interface{ Unwrap() error }
	for errors.As(err, &ue) {
		inner := ue.Unwrap()
		if inner == nil {
			break
		}
		var next interface{ Unwrap() error }
		if !errors.As(inner, &next) {
			return inner
		}
		err = inner
	}
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// AsContract turns a failed call into a contract error: a failure worth
// retrying (network, timeout, 429, 5xx) is UNAVAILABLE, anything else ENGINE,
// with hint saying what to check.
func AsContract(err error, hint string) error {
	var e *Error
	if !errors.As(err, &e) {
		return contract.Errorf(contract.CodeEngine, "%v", err)
	}
	if e.Retryable {
		return contract.Errorf(contract.CodeUnavailable, "%s", e.Error())
	}
	return contract.Errorf(contract.CodeEngine, "%s; %s", e.Error(), hint)
}
