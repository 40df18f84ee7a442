package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// A store reports its file's soundness for readiness: what the integrity
// check run at open found, and how often storage failed lately. A damaged
// file fails every query that touches the damaged pages while the process
// itself looks healthy, so a replica serving it must say so rather than
// answer pings.
const (
	// checkTimeout bounds the integrity check. It runs in the background,
	// so a big file delays nothing; past the bound it is given up and the
	// store reports what the queries find.
	checkTimeout = 2 * time.Minute
	// checkRows is how many problems the check lists before it stops: the
	// first few say enough.
	checkRows = 5
	// failureWindow and failingAt: this many storage failures within the
	// window make the store "failing".
	failureWindow = time.Minute
	failingAt     = 3
)

// SQLite's primary result codes for a damaged file.
const (
	codeCorrupt = 11 // SQLITE_CORRUPT: "database disk image is malformed"
	codeNotADB  = 26 // SQLITE_NOTADB: "file is not a database"
)

type health struct {
	mu       sync.Mutex
	checking bool
	checked  string      // how the check ended, when not "ok"
	damage   string      // why the file is known to be damaged, "" while it is not
	failures []time.Time // storage failures within failureWindow, oldest first
	last     string      // the latest failure
	now      func() time.Time

	stop context.CancelFunc
	done chan struct{}
}

// startCheck runs SQLite's quick_check (the structure of every page, without
// cross-checking indexes against tables) in the background.
func (s *Store) startCheck() {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	h := &s.health
	h.mu.Lock()
	h.checking, h.stop, h.done = true, cancel, make(chan struct{})
	h.mu.Unlock()
	go func() {
		defer close(h.done)
		defer cancel()
		problems, err := s.quickCheck(ctx)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.checking = false
		switch {
		case err != nil && isDamage(err):
			h.damage = err.Error()
		case errors.Is(err, context.DeadlineExceeded):
			h.checked = fmt.Sprintf("the integrity check did not finish within %s", checkTimeout)
		case errors.Is(err, context.Canceled):
			h.checked = "the integrity check was stopped"
		case err != nil:
			h.checked = "the integrity check failed: " + err.Error()
		case len(problems) > 0:
			h.damage = strings.Join(problems, "; ")
		}
	}()
}

// quickCheck returns the problems quick_check lists (none when it says "ok").
func (s *Store) quickCheck(ctx context.Context) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, fmt.Sprintf(`PRAGMA quick_check(%d)`, checkRows))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	return problems, rows.Err()
}

// stopCheck ends a check still running and waits for it.
func (s *Store) stopCheck() {
	h := &s.health
	h.mu.Lock()
	stop, done := h.stop, h.done
	h.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// failed records a storage failure.
func (h *health) failed(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.clock()
	h.failures = append(h.prune(now), now)
	h.last = err.Error()
	if isDamage(err) && h.damage == "" {
		h.damage = err.Error()
	}
}

// prune drops failures older than failureWindow; h.mu is held.
func (h *health) prune(now time.Time) []time.Time {
	i := 0
	for i < len(h.failures) && now.Sub(h.failures[i]) > failureWindow {
		i++
	}
	return h.failures[i:]
}

func (h *health) clock() time.Time {
	if h.now != nil {
		return h.now()
	}
	return time.Now()
}

func isDamage(err error) bool {
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return false
	}
	code := coded.Code() & 0xff
	return code == codeCorrupt || code == codeNotADB
}

// Health says whether the store can be trusted. A damaged file stays
// damaged until it is replaced: the state does not clear by itself.
func (s *Store) Health() contract.StoreHealth {
	h := &s.health
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures = h.prune(h.clock())
	out := contract.StoreHealth{OK: true, State: contract.StoreOK, RecentErrors: len(h.failures), LastError: h.last}
	if len(h.failures) == 0 {
		out.LastError = ""
	}
	switch {
	case h.damage != "":
		out.OK, out.State = false, contract.StoreDamaged
		out.Detail = fmt.Sprintf("the SQLite file %s is damaged: %s; stop the memory services, then restore the file from a backup, "+
			"or save what is readable with `sqlite3 %s .recover | sqlite3 %s.recovered` and put that in its place", s.Path, h.damage, s.Path, s.Path)
	case len(h.failures) >= failingAt:
		out.OK, out.State = false, contract.StoreFailing
		out.Detail = fmt.Sprintf("%d storage failures in the last minute, the latest: %s; check the disk and the file's permissions", len(h.failures), h.last)
	case h.checking:
		out.State, out.Detail = contract.StoreChecking, "the integrity check run at start is still going"
	case h.checked != "":
		out.Detail = h.checked
	}
	return out
}
