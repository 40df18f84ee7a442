package callauth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// An answer opens only for the request it was sealed for, as what it was
// sealed as, from the service that sealed it.
func TestSealedReplies(t *testing.T) {
	caller, service, other := NewReplyKeys(), NewReplyKeys(), NewReplyKeys()
	const nonce, subject = "n1", "_INBOX_gateway.x.abc"
	box, err := service.Seal(KindReply, caller.Public(), nonce, subject, []byte(`{"result":1}`))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := caller.Open(KindReply, service.Public(), nonce, subject, box)
	if err != nil || string(msg) != `{"result":1}` {
		t.Fatalf("opened %q, %v", msg, err)
	}
	forged, _ := other.Seal(KindReply, caller.Public(), nonce, subject, []byte(`{"result":2}`))
	for _, tc := range []struct {
		name                 string
		kind                 Kind
		from, nonce, subject string
		box                  []byte
	}{
		{"another request's", KindReply, service.Public(), "n2", subject, box},
		{"on another reply subject", KindReply, service.Public(), nonce, "_INBOX_gateway.x.abd", box},
		{"a heartbeat's seal", KindBeat, service.Public(), nonce, subject, box},
		{"said to come from another service", KindReply, other.Public(), nonce, subject, box},
		{"sealed by another key than it names", KindReply, service.Public(), nonce, subject, forged},
		{"not sealed", KindReply, service.Public(), nonce, subject, []byte(`{"error":{"code":"DENIED"}}`)},
		{"empty", KindReply, service.Public(), nonce, subject, nil},
		{"from a key that is not one", KindReply, "x", nonce, subject, box},
		{"altered", KindReply, service.Public(), nonce, subject, append(box[:len(box)-1:len(box)-1], box[len(box)-1]^1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg, err := caller.Open(tc.kind, tc.from, tc.nonce, tc.subject, tc.box); !errors.Is(err, ErrNotSealed) {
				t.Errorf("opened %q, %v; want ErrNotSealed", msg, err)
			}
		})
	}
	t.Run("sealed for another caller", func(t *testing.T) {
		if _, err := other.Open(KindReply, service.Public(), nonce, subject, box); !errors.Is(err, ErrNotSealed) {
			t.Errorf("%v, want ErrNotSealed", err)
		}
	})
}

// A signed request names its signer's reply key and its nonce, and
// altering the key breaks the signature.
func TestReplyToSigned(t *testing.T) {
	seed, key, err := NewSeed()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	cc := contract.CallContext{Source: "mcp"}
	auth, _, err := s.Sign(context.Background(), "openhuman.memory.fetch", "_INBOX.r", []byte("{}"), cc, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	k, nonce, ok := ReplyTo(auth)
	if !ok || k != s.Replies().Public() || nonce == "" {
		t.Fatalf("ReplyTo = %q %q %v, want the signer's key %q", k, nonce, ok, s.Replies().Public())
	}
	altered := auth[:len(auth)-len(k)-87] + NewReplyKeys().Public() + auth[len(auth)-87:]
	v, err := NewVerifier(Trust{Gateway: key}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k2, _, _ := ReplyTo(altered); k2 == k || len(k2) != replyKeyLen {
		t.Fatalf("the altered proof names %q", k2)
	}
	_, err = v.Check(context.Background(), "openhuman.memory.fetch", "_INBOX.r", []byte("{}"), altered, "")
	if err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("a proof naming another reply key: %v, want its signature refused", err)
	}
	if _, _, ok := ReplyTo("v2 x"); ok {
		t.Error("a malformed proof names a reply key")
	}
}
