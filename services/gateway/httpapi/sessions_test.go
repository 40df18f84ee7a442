package httpapi

import (
	"testing"
	"time"
)

func TestSessionsExpireAndAreBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newSessions(30*time.Minute, 2, func() time.Time { return now })
	a, _, err := s.open()
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := s.open()
	if a == b || len(a) != 32 {
		t.Fatalf("ids %q %q", a, b)
	}
	if _, _, err := s.open(); err == nil {
		t.Fatal("a third session opened past the limit of 2")
	}
	now = now.Add(20 * time.Minute)
	if s.get(a) == nil {
		t.Fatal("session a expired early")
	}
	now = now.Add(20 * time.Minute) // b idle 40 min, a idle 20 min
	if s.get(b) != nil {
		t.Error("idle session b did not expire")
	}
	if s.get(a) == nil {
		t.Error("session a, used 20 minutes ago, expired")
	}
	if _, _, err := s.open(); err != nil {
		t.Errorf("expired sessions still count against the limit: %v", err)
	}
	if !s.close(a) || s.close(a) || s.get(a) != nil {
		t.Error("close")
	}
}
