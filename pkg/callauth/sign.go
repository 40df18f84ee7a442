package callauth

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"slices"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Signer signs a binary's requests. The gateway's is a root: what it signs
// stands alone. The agents service's is a delegate: it signs only within a
// grant it was given (see NewContext), which its requests carry as their
// parent.
type Signer struct {
	sign     func(msg []byte) []byte
	key      string
	delegate bool
	now      func() time.Time
	// replies is the key its requests name for their answers, made with
	// the signer: it never leaves the process.
	replies *ReplyKeys
}

// NewSigner returns the root signer of seed (an nkey seed, SU...).
func NewSigner(seed string) (*Signer, error) { return newSigner(seed, false) }

// NewDelegate returns a delegate's signer of seed.
func NewDelegate(seed string) (*Signer, error) { return newSigner(seed, true) }

func newSigner(seed string, delegate bool) (*Signer, error) {
	priv, key, err := ParseSeed(seed)
	if err != nil {
		return nil, err
	}
	return &Signer{sign: func(msg []byte) []byte { return ed25519.Sign(priv, msg) }, key: key, delegate: delegate, now: time.Now, replies: NewReplyKeys()}, nil
}

// NewSharedSigner returns a signer of secret (NewSecret), for a process
// whose verifiers hold it too: a root, or with delegate a delegate.
func NewSharedSigner(secret []byte, delegate bool) *Signer {
	key := slices.Clone(secret)
	return &Signer{sign: func(msg []byte) []byte { return mac(key, msg) }, key: SecretID(key), delegate: delegate, now: time.Now, replies: NewReplyKeys()}
}

func mac(key, msg []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	return h.Sum(nil)
}

// Replies are the keys that open the answers to its requests.
func (s *Signer) Replies() *ReplyKeys { return s.replies }

// Key is the signer's public key (U...), the one services are told to trust.
func (s *Signer) Key() string { return s.key }

// Sign returns the headers of one request: its proof, and for a delegate
// the grant it acts within, taken from ctx. The proof expires at deadline,
// MaxLife away at most (plus ClockSkew, so that a service whose clock runs
// ahead still takes it). A delegate with no grant in ctx acts for nobody
// and signs nothing.
func (s *Signer) Sign(ctx context.Context, subject, reply string, body []byte, cc contract.CallContext, deadline time.Time) (auth, parent string, err error) {
	if latest := s.now().Add(MaxLife); deadline.After(latest) {
		deadline = latest
	}
	exp := deadline.Add(ClockSkew).UnixMilli()
	if s.delegate {
		g := FromContext(ctx)
		if g == nil {
			return "", "", contract.Errorf(contract.CodeDenied,
				"%s is called with no caller's signed context to act within: a sub-agent's calls are made for the call that ran it", subject)
		}
		parent = g.header()
		exp = min(exp, g.p.exp)
	}
	p := proof{key: s.key, exp: exp, nonce: newNonce(), idHash: identityHash(cc), replyKey: s.replies.Public()}
	p.sig = s.sign(base(subject, reply, exp, p.nonce, p.replyKey, p.idHash, sum(body)))
	return p.String(), parent, nil
}
