package hfhub

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// resumes is how often one fetch resumes a transfer that was cut after
// bytes came: a flaky line should not cost the backoff's wait.
const resumes = 3

// download fetches u into dest through dest+".part", resuming a part left
// by an earlier cut, and returns the whole file's hash. A file whose hash
// is not pin (when there is one) is deleted and refused.
func (c *Client) download(ctx context.Context, u, dest, pin string, who Progress) (sum, error) {
	part := dest + ".part"
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return sum{}, contract.Errorf(contract.CodeEngine, "creating the models directory: %v", err)
	}
	var err error
	for try := 0; try <= resumes; try++ {
		var progressed bool
		progressed, err = c.transfer(ctx, u, part, who)
		if err == nil || !progressed || ctx.Err() != nil {
			break
		}
		c.log().Info("model transfer cut; resuming", "url", u, "err", contract.ErrorMessage(err))
	}
	if err != nil {
		return sum{}, err
	}
	got, size, err := hashFile(part)
	if err != nil {
		return sum{}, err
	}
	if pin != "" && got != pin {
		os.Remove(part)
		return sum{}, contract.Errorf(contract.CodeEngine, "model file %s refused: expected sha256 %s, found %s", filepath.Base(dest), pin, got)
	}
	if err := os.Rename(part, dest); err != nil {
		return sum{}, contract.Errorf(contract.CodeEngine, "placing model file %s: %v", dest, err)
	}
	syncDir(filepath.Dir(dest))
	return sum{SHA256: got, Size: size}, nil
}

// transfer appends the rest of u to part (all of it when the server does
// not honour the range) and reports whether any byte came.
func (c *Client) transfer(ctx context.Context, u, part string, who Progress) (bool, error) {
	f, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, contract.Errorf(contract.CodeEngine, "writing a model file: %v", err)
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return false, contract.Errorf(contract.CodeEngine, "writing a model file: %v", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stall := c.Stall
	if stall <= 0 {
		stall = time.Minute
	}
	watchdog := time.AfterFunc(stall, cancel)
	defer watchdog.Stop()
	resp, err := c.get(ctx, u, have)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent && strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", have)):
	case resp.StatusCode == http.StatusOK:
		if err := f.Truncate(0); err != nil {
			return false, contract.Errorf(contract.CodeEngine, "writing a model file: %v", err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return false, contract.Errorf(contract.CodeEngine, "writing a model file: %v", err)
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		// The part is as long as the file or longer than it: start over.
		f.Truncate(0)
		return true, contract.Errorf(contract.CodeUnavailable, "the model hub refused to resume %s", u)
	default:
		return false, statusError(resp, u)
	}
	body := io.Reader(&unstalled{r: resp.Body, watchdog: watchdog, stall: stall})
	if c.Progress != nil {
		who.Done, who.Total = have, total(resp, have)
		c.Progress(who)
		body = &counting{r: body, report: c.Progress, p: who, told: have}
	}
	n, err := io.Copy(f, body)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return n > 0, contract.Errorf(contract.CodeUnavailable, "model transfer cut after %d bytes (the next fetch resumes): %v", have+n, err)
	}
	return n > 0, nil
}

// unstalled resets the watchdog at each read that brings bytes.
type unstalled struct {
	r        io.Reader
	watchdog *time.Timer
	stall    time.Duration
}

func (u *unstalled) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if n > 0 {
		u.watchdog.Reset(u.stall)
	}
	return n, err
}

// total is the whole file's size as the answer gives it, 0 when unknown.
func total(resp *http.Response, have int64) int64 {
	if resp.ContentLength < 0 {
		return 0
	}
	if resp.StatusCode == http.StatusPartialContent {
		return have + resp.ContentLength
	}
	return resp.ContentLength
}

// counting tells report of the bytes read, every 64 KiB and at the end.
type counting struct {
	r      io.Reader
	report func(Progress)
	p      Progress
	told   int64
}

func (c *counting) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.Done += int64(n)
	if c.p.Done-c.told >= 64<<10 || err != nil {
		c.told = c.p.Done
		c.report(c.p)
	}
	return n, err
}

func (c *Client) get(ctx context.Context, u string, from int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, contract.Errorf(contract.CodeInvalidRequest, "model hub address: %v", err)
	}
	if from > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", from))
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, unreachable(err)
	}
	return resp, nil
}

// syncDir makes a rename in dir durable; where directories cannot be
// synced, the rename stands as the system left it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
