package callauth

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Trust names the keys a service believes: the gateway's, which may sign
// for any caller, and the delegates', each of which may sign only within
// a grant of the gateway's for one subject (the agents service, within a
// sub-agent's run).
type Trust struct {
	// Gateway is the gateway's key: its public key (U...), or the id of
	// one of Secrets.
	Gateway string
	// Delegates are the other signers, by key.
	Delegates []Delegate
	// Secrets are the HMAC keys of signers in this very process (embedded
	// mode), by id (SecretID).
	Secrets map[string][]byte
}

// Delegate is a signer that acts within the gateway's grants.
type Delegate struct {
	Key string
	// Within is the subject a grant must have been signed for.
	Within string
	// May are the subjects it may sign for: each one exact, or ending in
	// ".>" for every subject under it. Empty is none.
	May []string
}

// may reports whether d may sign for subject.
func (d delegateKey) may(subject string) bool {
	for _, m := range d.subjects {
		if prefix, ok := strings.CutSuffix(m, ">"); ok && strings.HasPrefix(subject, prefix) || m == subject {
			return true
		}
	}
	return false
}

// Verifier checks proofs. It is safe for concurrent use.
type Verifier struct {
	gateway   checker
	gwKey     string
	delegates map[string]delegateKey
	now       func() time.Time
	seen      Nonces

	mu      sync.Mutex
	parents map[string]struct{} // grants already verified
}

type delegateKey struct {
	check    checker
	within   string
	subjects []string
}

// checker says whether sig signs msg, by one key.
type checker func(msg, sig []byte) bool

// checkerOf is the checker of key: an HMAC key of t's secrets, or an
// nkey public key.
func checkerOf(t Trust, key string) (checker, error) {
	if secret, ok := t.Secrets[key]; ok {
		return func(msg, sig []byte) bool { return hmac.Equal(mac(secret, msg), sig) }, nil
	}
	pub, err := ParseKey(key)
	if err != nil {
		return nil, err
	}
	return func(msg, sig []byte) bool { return len(sig) == ed25519.SignatureSize && ed25519.Verify(pub, msg, sig) }, nil
}

// maxParents bounds the verified grants remembered; past it the memory
// starts over (a grant is then verified again).
const maxParents = 4096

// NewVerifier returns a verifier of t's keys, remembering nonces in seen
// (nil: in the process's memory).
func NewVerifier(t Trust, seen Nonces) (*Verifier, error) {
	gw, err := checkerOf(t, strings.TrimSpace(t.Gateway))
	if err != nil {
		return nil, fmt.Errorf("the gateway's key: %w", err)
	}
	v := &Verifier{gateway: gw, gwKey: strings.TrimSpace(t.Gateway), delegates: map[string]delegateKey{},
		now: time.Now, seen: seen, parents: map[string]struct{}{}}
	if v.seen == nil {
		v.seen = newNonces()
	}
	for _, d := range t.Delegates {
		check, err := checkerOf(t, strings.TrimSpace(d.Key))
		if err != nil {
			return nil, fmt.Errorf("a delegate's key: %w", err)
		}
		v.delegates[strings.TrimSpace(d.Key)] = delegateKey{check: check, within: d.Within, subjects: d.May}
	}
	return v, nil
}

var errMalformedParent = errors.New("the Openhuman-Auth-Parent header is malformed")

// Verify checks the proof of one request: subject and reply as it arrived,
// its bytes, its headers (auth, parent) and the call context its bytes
// hold. It returns the grant a delegate may act within when serving it:
// the request itself when the gateway signed it, else its parent.
func (v *Verifier) Verify(ctx context.Context, subject, reply string, body []byte, auth, parent string, cc contract.CallContext) (*Grant, error) {
	c, err := v.Check(ctx, subject, reply, body, auth, parent)
	if err != nil {
		return nil, err
	}
	return c.Bind(cc)
}

// Checked is a request whose signature holds, before the call context
// its bytes hold is read.
type Checked struct {
	p       proof
	subject string
	reply   string
	bodySum []byte
	parent  *Grant // a delegate's grant; nil for the gateway's request
}

// Check checks what it can of a request without decoding it: the proof
// is there, fresh, by a key trusted for this subject, and signs these
// bytes for this subject and reply subject (and a delegate's grant is the
// gateway's, for its subject, unexpired); its nonce is then new. Bind
// takes the call context the bytes hold.
func (v *Verifier) Check(ctx context.Context, subject, reply string, body []byte, auth, parent string) (*Checked, error) {
	if auth == "" {
		return nil, denied("the request has no %s header; only the gateway (or a service acting within a call it signed) may call %s", Header, subject)
	}
	p, err := parseProof(auth)
	if err != nil {
		return nil, denied("%v", err)
	}
	now := v.now()
	if err := v.fresh(p, now); err != nil {
		return nil, err
	}
	c := &Checked{p: p, subject: subject, reply: reply}
	var check checker
	d, isDelegate := v.delegates[p.key]
	switch {
	case p.key == v.gwKey:
		if parent != "" {
			return nil, denied("a request the gateway signs has no parent")
		}
		check = v.gateway
	case isDelegate:
		if !d.may(subject) {
			return nil, denied("its signer acts within a run only for what a sub-agent may call, not %s", clip(subject))
		}
		check = d.check
	default:
		return nil, denied("it is signed by %s, a key this service does not trust; check bus.gateway_key and bus.agents_key", clip(p.key))
	}
	c.bodySum = sum(body)
	if !check(base(subject, reply, p.exp, p.nonce, p.replyKey, p.idHash, c.bodySum), p.sig) {
		return nil, denied("the signature does not match the request (altered, or sent to another subject)")
	}
	// Once the proof is known to be genuine: nobody else can fill the
	// memory of nonces. Before the grant: a refusal for the grant is
	// sealed for the caller, so the request it answers must be the first
	// of its nonce, or a replay could put that refusal into a call the
	// original already had answered.
	switch fresh, err := v.seen.Add(ctx, p.nonce, p.exp); {
	case err != nil:
		return nil, contract.Errorf(contract.CodeUnavailable, "cannot tell whether this request was received before (%v); retry", err)
	case !fresh:
		return nil, denied("this request was already received once (a replay)")
	}
	if isDelegate {
		if c.parent, err = v.grant(parent, d, now); err != nil {
			return nil, signedRefusal{err}
		}
	}
	return c, nil
}

// signedRefusal is a refusal of a request whose proof a trusted key did
// sign (a delegate acting outside any grant): its caller is who the proof
// says, and is told why, sealed for it like any answer. A refusal of a
// proof no trusted key signed, or of a replay, is not.
type signedRefusal struct{ error }

func (r signedRefusal) Unwrap() error { return r.error }

// Sealable reports whether the refusal err, of Check, may be sealed for
// the reply key the request's proof names: the proof is a trusted key's.
func Sealable(err error) bool {
	var r signedRefusal
	return errors.As(err, &r)
}

// Bind checks that cc, the call context the request's bytes hold, is the
// one its proof signed (and for a delegate, within its grant), and
// returns the grant a delegate may act within when serving it.
func (c *Checked) Bind(cc contract.CallContext) (*Grant, error) {
	// A proof writes depth as an unsigned number, so that of depth 0
	// would hold for any negative one; no caller is shallower than 0.
	if cc.Depth < 0 {
		return nil, denied("its depth %d is negative", cc.Depth)
	}
	if !hmac.Equal(identityHash(cc), c.p.idHash) {
		return nil, denied("the call context in the request is not the one its signature names (altered)")
	}
	if c.parent != nil {
		if err := within(cc, c.p, c.parent); err != nil {
			return nil, err
		}
		return c.parent, nil
	}
	cc.MinSeq, cc.TimeoutMS = 0, 0
	return &Grant{p: c.p, subject: c.subject, reply: c.reply, bodySum: c.bodySum, cc: cc}, nil
}

// fresh checks p's expiry against now: not past (give or take the clock
// skew), and not further off than a call may last.
func (v *Verifier) fresh(p proof, now time.Time) error {
	exp := time.UnixMilli(p.exp)
	switch {
	case now.After(exp.Add(ClockSkew)):
		return denied("it expired %s ago (clocks more than %s apart, or a replay)", now.Sub(exp).Round(time.Millisecond), ClockSkew)
	case exp.After(now.Add(MaxLife + 2*ClockSkew)):
		return denied("it is valid until %s, longer than any call may last (%s)", exp.UTC().Format(time.RFC3339), MaxLife)
	}
	return nil
}

// grant checks a delegate's parent: the gateway's proof of a call to d's
// subject, still valid. A grant verified once is remembered until it
// expires: a sub-agent's run makes many calls within one.
func (v *Verifier) grant(h string, d delegateKey, now time.Time) (*Grant, error) {
	if h == "" {
		return nil, denied("a delegate's request must carry the call it acts within (%s)", ParentHeader)
	}
	g, err := parseGrant(h)
	if err != nil {
		return nil, denied("%v", err)
	}
	if g.cc.Depth < 0 {
		return nil, denied("the call it acts within has a negative depth")
	}
	if g.p.key != v.gwKey {
		return nil, denied("the call it acts within is not signed by the gateway")
	}
	if g.subject != d.within {
		return nil, denied("the call it acts within was for %s, not %s", clip(g.subject), d.within)
	}
	if now.After(time.UnixMilli(g.p.exp).Add(ClockSkew)) {
		return nil, denied("the call it acts within has expired")
	}
	// Remembered by what was signed as well as the signature: the same
	// signature with other claims is another grant, a forged one.
	signed := base(g.subject, g.reply, g.p.exp, g.p.nonce, g.p.replyKey, g.p.idHash, g.bodySum)
	sig := string(sum(signed)) + string(g.p.sig)
	v.mu.Lock()
	_, known := v.parents[sig]
	v.mu.Unlock()
	if known {
		return g, nil
	}
	if !v.gateway(signed, g.p.sig) {
		return nil, denied("the call it acts within does not match the gateway's signature")
	}
	v.mu.Lock()
	if len(v.parents) >= maxParents {
		clear(v.parents)
	}
	v.parents[sig] = struct{}{}
	v.mu.Unlock()
	return g, nil
}

// within checks that a delegate's call asks for no more than its grant:
// the same token and transport, the grant's source with the delegate's
// own after it, scopes and workspaces among the grant's, deeper, and
// ending no later.
func within(cc contract.CallContext, p proof, g *Grant) error {
	root := g.cc
	switch {
	case cc.Token != root.Token:
		return denied("it names token %q, the call it acts within %q", clip(cc.Token), clip(root.Token))
	case cc.Transport != root.Transport:
		return denied("it names transport %q, the call it acts within %q", clip(cc.Transport), clip(root.Transport))
	case cc.Source != root.Source && !strings.HasPrefix(cc.Source, root.Source+"/") && root.Source != "":
		return denied("its source %q is not within %q", clip(cc.Source), clip(root.Source))
	case cc.Agent == "" || cc.Depth <= root.Depth:
		return denied("a delegate's call must name its agent and be deeper than the call it acts within")
	case p.exp > g.p.exp:
		return denied("it would outlive the call it acts within")
	case root.Scopes != nil && (cc.Scopes == nil || !subset(cc.Scopes, root.Scopes)):
		return denied("it asks for scopes %v beyond the call it acts within (%v)", cc.Scopes, root.Scopes)
	case root.Scoped() && (!cc.Scoped() || !subset(cc.Workspaces, root.Workspaces)):
		return denied("it asks for workspaces %v beyond the call it acts within (%v)", cc.Workspaces, root.Workspaces)
	}
	return nil
}

func subset(a, of []string) bool {
	for _, x := range a {
		if !slices.Contains(of, x) {
			return false
		}
	}
	return true
}

// clip keeps what a caller wrote short in a message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
