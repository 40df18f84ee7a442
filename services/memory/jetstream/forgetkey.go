package jetstream

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory"
)

// An item's id is an unkeyed hash of its text (memory.Fingerprint), so a
// forget that named it on the stream would let whoever reads the stream,
// or a copy of its storage, confirm a guessed sentence long after the
// text itself was purged. A forget therefore names each item by
// HMAC-SHA256(IDKey, id): every replica holds the ids of its items and the
// key, and finds the items by digesting its own ids; without the key the
// digest confirms nothing.
//
// The key is given to every memory replica by configuration
// (memory.id_key), outside NATS: a key kept in the stream or the snapshot
// bucket would sit beside the digests it protects. It is not derived from
// the text, it never reaches the stream, and ids users see stay as they
// were, so learning the same note twice is still a replay. Events written
// before keep working: a delete naming ids is applied as it always was.

// forgetKeyBytes is the shortest key taken: 128 bits, as strong as the
// digest kept.
const forgetKeyBytes = 16

// forgetKey is id's keyed digest as a forget event names it.
func forgetKey(key []byte, id string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// forgetKeys digests ids, and maps each digest back to its id.
func forgetKeys(key []byte, ids []string) ([]string, map[string]string) {
	keys := make([]string, len(ids))
	back := make(map[string]string, len(ids))
	for i, id := range ids {
		keys[i] = forgetKey(key, id)
		back[keys[i]] = id
	}
	return keys, back
}

// keyID names key without revealing it.
func keyID(key []byte) string { return forgetKey(key, "openhuman memory id key")[:16] }

// checkKey refuses a forget the stream could not carry without naming
// the text.
func (j *Journal) checkKey() error {
	if len(j.key) < forgetKeyBytes {
		return contract.Errorf(contract.CodeUnavailable,
			"memory cannot forget while replicated without memory.id_key (OPENHUMAN_MEMORY_ID_KEY): set the same secret on every memory replica (openssl rand -hex 32) and restart them")
	}
	return nil
}

// applyForget deletes the items of ev's workspaces whose ids digest to one
// of ev's keys; the keys matching nothing are missing.
func (s *Store) applyForget(ctx context.Context, w memory.Writer, seq uint64, ev event) (memory.Written, error) {
	if len(s.j.key) < forgetKeyBytes {
		// Not the event's fault: the replica cannot apply it until it is
		// given the key, and must not skip it.
		return memory.Written{}, s.j.checkKey()
	}
	if ev.KeyID != keyID(s.j.key) {
		return memory.Written{}, contract.Errorf(contract.CodeUnavailable,
			"journal event %d is a forget keyed by another memory.id_key than this replica's: give every memory replica the same memory.id_key (OPENHUMAN_MEMORY_ID_KEY)", seq)
	}
	held, err := s.in.ItemIDs(ctx, ev.Workspaces)
	if err != nil {
		return memory.Written{}, err
	}
	wanted := make(map[string]bool, len(ev.Keys))
	for _, k := range ev.Keys {
		wanted[k] = true
	}
	found := map[string]bool{}
	var ids []string
	for _, id := range held {
		if k := forgetKey(s.j.key, id); wanted[k] {
			found[k] = true
			ids = append(ids, id)
		}
	}
	out, err := w.Delete(ctx, ids, ev.Workspaces)
	if err != nil {
		return out, err
	}
	// Every id found was there to delete: the missing are the keys unmatched.
	out.Missing = nil
	for _, k := range ev.Keys {
		if !found[k] {
			out.Missing = append(out.Missing, k)
		}
	}
	return out, nil
}
