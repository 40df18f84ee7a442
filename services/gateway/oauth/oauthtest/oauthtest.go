// Package oauthtest holds what every oauth.Store must do, run against
// each adapter (sqlite and redis) on the real thing.
package oauthtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/services/gateway/oauth"
)

// TestStore checks s.
func TestStore(t *testing.T, s oauth.Store) {
	for _, c := range []struct {
		name string
		test func(*testing.T, oauth.Store)
	}{
		{"put, get, delete", putGetDelete},
		{"an expired record is gone", expiredGone},
		{"use is first once, among many at once", useFirstOnce},
		{"update never revives a deleted record", updateNoRevive},
		{"swap and delete only what was read", swapDeleteRead},
		{"list", listLive},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, s) })
	}
}

// putGetDelete checks that a record is found under its kind and key only,
// until it is deleted.
func putGetDelete(t *testing.T, s oauth.Store) {
	ctx := context.Background()
	if err := s.Put(ctx, "k", "a", []byte(`"one"`), time.Time{}); err != nil {
		t.Fatal(err)
	}
	v, ok, err := s.Get(ctx, "k", "a")
	if err != nil || !ok || string(v) != `"one"` {
		t.Fatalf("get %q %v %v", v, ok, err)
	}
	if _, ok, _ := s.Get(ctx, "other", "a"); ok {
		t.Error("a record is found under another kind")
	}
	if err := s.Delete(ctx, "k", "a"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "k", "a"); ok {
		t.Error("a deleted record is found")
	}
}

// expiredGone checks that an expired record is gone.
func expiredGone(t *testing.T, s oauth.Store) {
	ctx := context.Background()
	if err := s.Put(ctx, "k", "old", []byte(`1`), time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "k", "old"); ok {
		t.Error("an expired record is found")
	}
	if _, found, _, _ := s.Use(ctx, "k", "old"); found {
		t.Error("an expired record can be used")
	}
	if ok, _ := s.Update(ctx, "k", "old", []byte(`2`), time.Time{}); ok {
		t.Error("an expired record was updated back to life")
	}
	if err := s.Put(ctx, "k", "live", []byte(`3`), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "k", "live"); !ok {
		t.Error("a record within its time is not found")
	}
}

// useFirstOnce checks that of many uses of a record at once, one only is
// the first.
func useFirstOnce(t *testing.T, s oauth.Store) {
	ctx := context.Background()
	if err := s.Put(ctx, "code", "c1", []byte(`"x"`), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	firsts, founds := 0, 0
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, found, first, err := s.Use(ctx, "code", "c1")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if found && string(v) == `"x"` {
				founds++
			}
			if first {
				firsts++
			}
		}()
	}
	wg.Wait()
	if firsts != 1 || founds != 16 {
		t.Fatalf("%d firsts and %d found of 16 uses at once, want 1 and 16", firsts, founds)
	}
	if err := s.Put(ctx, "code", "c1", []byte(`"y"`), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, _, first, _ := s.Use(ctx, "code", "c1"); !first {
		t.Error("a record put again is not fresh")
	}
	if _, found, _, _ := s.Use(ctx, "code", "none"); found {
		t.Error("a missing record is found by use")
	}
}

// updateNoRevive checks that an update never revives a deleted record.
func updateNoRevive(t *testing.T, s oauth.Store) {
	ctx := context.Background()
	if ok, err := s.Update(ctx, "grant", "g", []byte(`1`), time.Time{}); err != nil || ok {
		t.Fatalf("update of nothing %v %v", ok, err)
	}
	_ = s.Put(ctx, "grant", "g", []byte(`1`), time.Now().Add(time.Hour))
	if ok, err := s.Update(ctx, "grant", "g", []byte(`2`), time.Now().Add(2*time.Hour)); err != nil || !ok {
		t.Fatalf("update %v %v", ok, err)
	}
	if v, _, _ := s.Get(ctx, "grant", "g"); string(v) != `2` {
		t.Errorf("after update %q", v)
	}
	_ = s.Delete(ctx, "grant", "g")
	if ok, _ := s.Update(ctx, "grant", "g", []byte(`3`), time.Time{}); ok {
		t.Error("a deleted record was updated")
	}
	if _, ok, _ := s.Get(ctx, "grant", "g"); ok {
		t.Error("a deleted record came back")
	}
}

// swapDeleteRead checks that swap and delete change a record only when it
// still holds the value read.
func swapDeleteRead(t *testing.T, s oauth.Store) {
	ctx := context.Background()
	_ = s.Put(ctx, "client", "s", []byte(`{"n":1}`), time.Now().Add(time.Hour))
	if ok, err := s.Swap(ctx, "client", "s", []byte(`{"n":0}`), []byte(`{"n":2}`), time.Time{}); err != nil || ok {
		t.Fatalf("a swap from a value the record no longer holds: %v %v", ok, err)
	}
	if ok, err := s.Swap(ctx, "client", "s", []byte(`{"n":1}`), []byte(`{"n":2}`), time.Time{}); err != nil || !ok {
		t.Fatalf("a swap from the value it holds: %v %v", ok, err)
	}
	if v, _, _ := s.Get(ctx, "client", "s"); string(v) != `{"n":2}` {
		t.Errorf("after the swap %q", v)
	}
	if ok, err := s.DeleteIf(ctx, "client", "s", []byte(`{"n":1}`)); err != nil || ok {
		t.Fatalf("a delete of a value replaced meanwhile: %v %v", ok, err)
	}
	if _, ok, _ := s.Get(ctx, "client", "s"); !ok {
		t.Fatal("a record changed since it was read was deleted")
	}
	if ok, err := s.DeleteIf(ctx, "client", "s", []byte(`{"n":2}`)); err != nil || !ok {
		t.Fatalf("a delete of the value it holds: %v %v", ok, err)
	}
	if ok, _ := s.Swap(ctx, "client", "s", []byte(`{"n":2}`), []byte(`{"n":3}`), time.Time{}); ok {
		t.Error("a deleted record was swapped back to life")
	}
	if got, _ := s.List(ctx, "client"); slices.ContainsFunc(got, func(b []byte) bool { return string(b) == `{"n":2}` }) {
		t.Error("a deleted record is still listed")
	}
	var mu sync.Mutex
	wins := 0
	var wg sync.WaitGroup
	_ = s.Put(ctx, "client", "race", []byte(`"a"`), time.Time{})
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.Swap(ctx, "client", "race", []byte(`"a"`), []byte(fmt.Sprintf(`"b%d"`, i)), time.Time{})
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	_ = s.Delete(ctx, "client", "race")
	if wins != 1 {
		t.Errorf("%d of 8 swaps from one value at once won, want 1", wins)
	}
}

// listLive checks that List gives a kind's records, without the deleted
// and the expired.
func listLive(t *testing.T, s oauth.Store) {
	ctx := context.Background()
	for _, k := range []string{"1", "2", "3"} {
		_ = s.Put(ctx, "client", k, []byte(k), time.Time{})
	}
	_ = s.Put(ctx, "client", "4", []byte("4"), time.Now().Add(-time.Second))
	_ = s.Delete(ctx, "client", "2")
	got, err := s.List(ctx, "client")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range got {
		names = append(names, string(b))
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"1", "3"}) {
		t.Errorf("listed %q, want 1 and 3", names)
	}
}
