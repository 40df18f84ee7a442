package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"time"
)

// Room for registrations. When MaxClients are registered, a registration
// makes room by evicting the oldest idle client: one never granted
// anything with no authorization in progress (no request waiting for the
// person, no code waiting to be exchanged: Client.Busy is past). A client
// with a grant or an authorization under way is never evicted, so a flood
// of registrations cannot break a person's sign-in; when no client can
// give way, the registration is refused (429, temporarily_unavailable,
// with Retry-After when an authorization in progress will end).
//
// Eviction and the mark of an authorization race on different replicas:
// both are conditional on the client's record being the one read (Swap,
// DeleteIf), so either the mark lands first and the client is kept, or
// the eviction does and the authorization is refused as for any client
// unknown here, before the person is asked anything.

// makeRoom keeps the registered clients under MaxClients; wait, with a
// refusal, is when an authorization in progress ends and its client may
// give way.
func (s *Server) makeRoom(ctx context.Context) (wait time.Duration, err error) {
	raw, err := s.store.List(ctx, kindClient)
	if err != nil || len(raw) < s.opts.MaxClients {
		return 0, err
	}
	now := s.opts.Now()
	type idle struct {
		c   Client
		raw []byte
	}
	var candidates []idle
	var soonest time.Time
	for _, b := range raw {
		var c Client
		switch {
		case json.Unmarshal(b, &c) != nil || c.Granted:
		case now.Before(c.Busy):
			if soonest.IsZero() || c.Busy.Before(soonest) {
				soonest = c.Busy
			}
		default:
			candidates = append(candidates, idle{c, b})
		}
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].c.Created.Before(candidates[j].c.Created) })
	excess := len(raw) - s.opts.MaxClients + 1
	for _, e := range candidates {
		if excess == 0 {
			return 0, nil
		}
		gone, err := s.store.DeleteIf(ctx, kindClient, e.c.ID, e.raw)
		if err != nil {
			return 0, err
		}
		if gone {
			excess--
		}
	}
	if excess == 0 {
		return 0, nil
	}
	if !soonest.IsZero() {
		wait = soonest.Sub(now)
	}
	return wait, s.full(wait)
}

// full is the refusal of a registration no client can make room for.
func (s *Server) full(wait time.Duration) *protoError {
	msg := "this server holds as many registered clients as it may (auth.oauth.max_clients = " + strconv.Itoa(s.opts.MaxClients) +
		"), and none can give way: each was granted access or has an authorization in progress"
	if wait > 0 {
		msg += "; try again in " + strconv.Itoa(int(wait.Seconds())+1) + " seconds, when one ends"
	}
	return &protoError{"temporarily_unavailable", msg + "; or revoke a client in the console's Connected clients, or raise the limit", http.StatusTooManyRequests}
}

// errClientGone is markBusy's answer for a client evicted or removed
// since it was read.
var errClientGone = errors.New("the client is no longer registered")

// markBusy records that a registered client has an authorization in
// progress until until, unless it was granted (then it is never evicted
// anyway). Its record is swapped only from the value read, so that a
// client evicted meanwhile stays evicted (errClientGone) and a grant
// recorded meanwhile is not overwritten.
func (s *Server) markBusy(ctx context.Context, id string, until time.Time) error {
	for range 5 {
		b, found, err := s.store.Get(ctx, kindClient, id)
		if err != nil {
			return err
		}
		if !found {
			return errClientGone
		}
		var c Client
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		if c.Granted || !c.Busy.Before(until) {
			return nil
		}
		c.Busy = until
		next, err := json.Marshal(c)
		if err != nil {
			return err
		}
		// A client never granted lives a day from its registration, and
		// at least as long as its authorization.
		expires := c.Created.Add(ungrantedClientTTL)
		if until.After(expires) {
			expires = until
		}
		if ok, err := s.store.Swap(ctx, kindClient, id, b, next, expires); ok || err != nil {
			return err
		}
	}
	return errors.New("the client's record changed five times while an authorization was recorded on it")
}
