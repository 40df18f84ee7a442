package oauth

import (
	"context"
	"net/http"
	"sort"
	"sync"
	"time"

	"encoding/json"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// revoke is RFC 7009's endpoint. A refresh token revokes its grant, and so
// every access token of it; an access token revokes itself. An unknown
// token is answered 200 as the RFC asks, and so is a token of another
// client, which is left as it is.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	c, err := s.formClient(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	value := r.PostFormValue("token")
	if value == "" {
		s.writeError(w, r, invalidRequest("token is missing"))
		return
	}
	ctx := r.Context()
	for _, kind := range []string{kindRefresh, kindAccess} {
		var t token
		found, err := s.get(ctx, kind, digest(value), &t)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if !found {
			continue
		}
		var g Grant
		if found, err = s.get(ctx, kindGrant, t.GrantID, &g); err != nil {
			s.writeError(w, r, err)
			return
		}
		if !found || g.ClientID != c.ID {
			break
		}
		if kind == kindRefresh {
			s.revokeGrant(ctx, g.ID, "the client revoked its refresh token")
		} else if err := s.store.Delete(ctx, kindAccess, digest(value)); err != nil {
			s.writeError(w, r, err)
			return
		}
		break
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// Grants lists the grants whose codes were exchanged, newest use first:
// the clients connected. A grant whose consenting token no longer stands
// behind it is revoked instead of listed.
func (s *Server) Grants(ctx context.Context) ([]Grant, error) {
	raw, err := s.store.List(ctx, kindGrant)
	if err != nil {
		return nil, contract.Errorf(contract.CodeUnavailable, "the authorization server's store cannot be read: %v", err)
	}
	var out []Grant
	for _, b := range raw {
		var g Grant
		if json.Unmarshal(b, &g) == nil && g.Issued && !s.outlived(ctx, g) {
			var used time.Time
			if ok, _ := s.get(ctx, kindUsed, g.ID, &used); ok && used.After(g.LastUsed) {
				g.LastUsed = used
			}
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LastUsed.After(out[j].LastUsed) })
	return out, nil
}

// Revoke ends a grant, from the console: its tokens stop working at once
// on every replica, and a registered client left with no grant is removed
// too, so that its next request is invalid_client and it registers anew.
func (s *Server) Revoke(ctx context.Context, grantID, by string) error {
	var g Grant
	found, err := s.get(ctx, kindGrant, grantID, &g)
	if err != nil {
		return contract.Errorf(contract.CodeUnavailable, "the authorization server's store failed: %v", err)
	}
	if !found {
		return contract.Errorf(contract.CodeNotFound, "that connection is gone already (revoked, or unused past its lifetime)")
	}
	s.revokeGrant(ctx, g.ID, "revoked in the console by "+by)
	if g.Document {
		return nil
	}
	rest, err := s.Grants(ctx)
	if err != nil {
		return err
	}
	for _, o := range rest {
		if o.ClientID == g.ClientID {
			return nil
		}
	}
	if err := s.store.Delete(ctx, kindClient, g.ClientID); err != nil {
		return contract.Errorf(contract.CodeUnavailable, "the grant is revoked, but its client could not be removed: %v", err)
	}
	return nil
}

// touches remembers when each grant was last used in this process, so
// that a grant's record is rewritten at most once a minute, however many
// calls its tokens make.
type touches struct {
	mu sync.Mutex
	at map[string]time.Time
}

const touchEvery = time.Minute

func newTouches() *touches { return &touches{at: map[string]time.Time{}} }

// due records a use at now and reports whether the record should be
// rewritten.
func (t *touches) due(id string, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	last, ok := t.at[id]
	if ok && now.Sub(last) < touchEvery {
		return false
	}
	if len(t.at) > 10000 {
		for k, v := range t.at {
			if now.Sub(v) > touchEvery {
				delete(t.at, k)
			}
		}
	}
	t.at[id] = now
	return true
}
