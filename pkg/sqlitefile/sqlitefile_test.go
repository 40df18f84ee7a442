package sqlitefile

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

type coded int

func (c coded) Error() string { return fmt.Sprintf("sqlite error %d", int(c)) }
func (c coded) Code() int     { return int(c) }

func TestRetryBusy(t *testing.T) {
	calls := 0
	err := RetryBusy(5*time.Second, func() error {
		if calls++; calls < 3 {
			return fmt.Errorf("opening: %w", coded(5|2<<8)) // SQLITE_BUSY_SNAPSHOT
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("busy twice then done: %v after %d calls", err, calls)
	}

	other := errors.New("disk I/O error")
	calls = 0
	if err := RetryBusy(5*time.Second, func() error { calls++; return other }); err != other || calls != 1 {
		t.Fatalf("another error must come back at once: %v after %d calls", err, calls)
	}

	start := time.Now()
	err = RetryBusy(200*time.Millisecond, func() error { return coded(5) })
	if !IsBusy(err) || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("still busy at the deadline: %v after %s", err, time.Since(start))
	}
}
