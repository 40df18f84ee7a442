package callauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"sync"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Grant is a request the gateway signed, as verified by the service it
// was sent to: what a delegate acts within. It can be checked again by
// anyone who trusts the gateway's key, without the request's bytes (their
// hash is part of it).
type Grant struct {
	p       proof
	subject string
	reply   string
	bodySum []byte
	cc      contract.CallContext // identity only: no min_seq, no timeout

	once    sync.Once
	encoded string
}

// Context is the caller the grant was signed for.
func (g *Grant) Context() contract.CallContext { return g.cc }

// grantWire is a grant as ParentHeader carries it.
type grantWire struct {
	Key     string               `json:"key"`
	Exp     int64                `json:"exp"`
	Nonce   string               `json:"nonce"`
	Sig     string               `json:"sig"`
	ReplyTo string               `json:"reply_key"`
	Subject string               `json:"subject"`
	Reply   string               `json:"reply"`
	Body    string               `json:"body_sha256"`
	Ctx     contract.CallContext `json:"ctx"`
}

func (g *Grant) header() string {
	g.once.Do(func() {
		b, _ := json.Marshal(grantWire{Key: g.p.key, Exp: g.p.exp, Nonce: g.p.nonce,
			Sig: base64.RawURLEncoding.EncodeToString(g.p.sig), ReplyTo: g.p.replyKey, Subject: g.subject, Reply: g.reply,
			Body: base64.RawURLEncoding.EncodeToString(g.bodySum), Ctx: g.cc})
		g.encoded = string(b)
	})
	return g.encoded
}

func parseGrant(h string) (*Grant, error) {
	var w grantWire
	if err := json.Unmarshal([]byte(h), &w); err != nil {
		return nil, errMalformedParent
	}
	sig, err1 := base64.RawURLEncoding.DecodeString(w.Sig)
	body, err2 := base64.RawURLEncoding.DecodeString(w.Body)
	if err1 != nil || err2 != nil || len(body) != 32 || w.Nonce == "" {
		return nil, errMalformedParent
	}
	w.Ctx.MinSeq, w.Ctx.TimeoutMS = 0, 0
	return &Grant{p: proof{key: w.Key, exp: w.Exp, nonce: w.Nonce, idHash: identityHash(w.Ctx), replyKey: w.ReplyTo, sig: sig}, subject: w.Subject, reply: w.Reply,
		bodySum: body, cc: w.Ctx}, nil
}

type grantKey struct{}

// NewContext returns ctx carrying g: the grant a delegate's calls made
// under ctx act within.
func NewContext(ctx context.Context, g *Grant) context.Context {
	if g == nil {
		return ctx
	}
	return context.WithValue(ctx, grantKey{}, g)
}

// FromContext is the grant ctx carries, nil when none.
func FromContext(ctx context.Context) *Grant {
	g, _ := ctx.Value(grantKey{}).(*Grant)
	return g
}
