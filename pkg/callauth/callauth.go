// Package callauth signs the call context that travels with every bus
// request, and checks it where the request is served, so that a service
// believes who a caller is (its source, token, scopes and workspaces) only
// because the gateway said so, never because a NATS client wrote it.
//
// The gateway signs each request with an Ed25519 key only it holds (an
// nkey seed). The signature covers the subject and reply subject the
// request is for, an expiry, a nonce, the caller's identity and a SHA-256
// of the request's bytes; it travels in the Openhuman-Auth header. A
// service refuses, as DENIED, a request that is unsigned, signed by a key
// it does not trust, expired, sent again (its nonce was seen), moved to
// another subject or altered.
//
// The agents service calls memory and search for the caller of a
// sub-agent. It signs those requests with a key of its own and sends the
// gateway's signed run_subagent request as their parent
// (Openhuman-Auth-Parent): a service accepts such a call only when the
// parent is the gateway's, is still valid, and the call is within it (the
// same token and transport, no scope or workspace the parent lacks, a
// deeper depth, no later expiry). A delegate can narrow a caller's
// authority, never widen it, and cannot act for nobody.
//
// Embedded mode, where the gateway and every service are one process and
// its bus takes no connection from outside it, signs with HMAC-SHA256 keys
// made at start and held in that process (a proof costs about a
// microsecond; an Ed25519 one about a hundred, which would double a memory
// read): what is checked, and refused, is the same.
//
// The proof also names the caller's reply key (seal.go): the service
// seals its answer to the request with a key only it and the caller can
// compute, so that whoever reads the caller's inbox reads no answer, and
// an answer the caller did not ask for, or one given to another request,
// is not believed.
//
// What the signature does not give: confidentiality of requests. A NATS
// client that may subscribe to a service's subjects reads its requests,
// and can answer in its place. NATS permissions (deploy/nats/auth.conf)
// must keep those to their owners.
//
// Written here rather than taken from a JOSE library: the claims are
// already in the request's bytes, so a JWS would carry them twice and be
// parsed as JSON twice per hop; what is signed is a fixed layout of a few
// fields and a hash, signed with the standard library's ed25519, and the
// keys are nkeys (github.com/nats-io/nkeys), the format NATS users
// already make and keep.
package callauth

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Headers a signed request carries.
const (
	// Header holds the request's own proof: "v2 <key> <expiry ms> <nonce>
	// <identity hash> <reply key> <signature>".
	Header = "Openhuman-Auth"
	// ParentHeader holds, on a delegate's request, the gateway's proof of
	// the call the delegate acts within (a Grant, as JSON).
	ParentHeader = "Openhuman-Auth-Parent"
)

const version = "v2"

// ClockSkew is how far the clocks of the gateway and a service may
// disagree: a proof is accepted this long after its expiry, and may
// expire this much later than its lifetime allows.
const ClockSkew = 30 * time.Second

// MaxLife bounds how long a proof is valid for: the longest call there is
// (tools.timeout_seconds and agents.timeout_seconds go up to an hour). A
// verifier remembers each nonce this long at most.
const MaxLife = time.Hour

// base is the bytes a proof signs: a fixed layout, every field
// length-prefixed, so that no two different requests share one. The
// caller's identity enters as its hash (identityHash), which the proof
// carries too, so that a signature is checked before the request's bytes
// are decoded: a forged request costs its hash, not its parse.
func base(subject, reply string, exp int64, nonce, replyKey string, idHash, bodySum []byte) []byte {
	b := make([]byte, 0, 192+len(subject)+len(reply))
	b = append(b, "openhuman-call-v2"...)
	for _, s := range []string{subject, reply, strconv.FormatInt(exp, 10), nonce, replyKey} {
		b = appendString(b, s)
	}
	b = append(b, idHash...)
	return append(b, bodySum...)
}

// identityHash is the SHA-256 of what a proof says of the caller.
func identityHash(cc contract.CallContext) []byte { return sum(appendIdentity(nil, cc)) }

// appendIdentity appends what a proof says of the caller: everything of
// its call context but the per-request min_seq and timeout.
func appendIdentity(b []byte, cc contract.CallContext) []byte {
	for _, s := range []string{cc.Source, cc.Transport, cc.Token, cc.Agent} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(max(cc.Depth, 0)))
	b = appendList(b, cc.Scopes)
	ws := cc.Workspaces
	if len(ws) == 0 {
		ws = nil // the envelope omits an empty list: both are "every workspace"
	}
	return appendList(b, ws)
}

// appendList writes a nil list apart from an empty one: nil is "not
// limited", which must not be confused with "nothing".
func appendList(b []byte, l []string) []byte {
	if l == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(l)))
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// ParseSeed reads an nkey seed (SU...) into a key pair's private key and
// its public key (U...).
func ParseSeed(seed string) (ed25519.PrivateKey, string, error) {
	kp, err := nkeys.FromSeed([]byte(strings.TrimSpace(seed)))
	if err != nil {
		return nil, "", fmt.Errorf("not an nkey seed (SU…): %s", strings.TrimPrefix(err.Error(), "nkeys: "))
	}
	defer kp.Wipe()
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, "", err
	}
	raw, err := kp.PrivateKey()
	if err != nil {
		return nil, "", err
	}
	priv, err := nkeys.Decode(nkeys.PrefixBytePrivate, raw)
	if err != nil {
		return nil, "", err
	}
	return ed25519.PrivateKey(priv), pub, nil
}

// ParseKey reads an nkey public key (U...).
func ParseKey(key string) (ed25519.PublicKey, error) {
	raw, err := nkeys.Decode(nkeys.PrefixByteUser, []byte(strings.TrimSpace(key)))
	if err != nil {
		return nil, fmt.Errorf("not an nkey public key (U…, 56 characters): %s", strings.TrimPrefix(err.Error(), "nkeys: "))
	}
	return ed25519.PublicKey(raw), nil
}

// NewSecret makes an HMAC key for signers and verifiers of one process, and
// its id (HS...), which proofs name.
func NewSecret() (secret []byte, id string) {
	secret = make([]byte, 32)
	_, _ = rand.Read(secret) // never fails (crypto/rand)
	return secret, SecretID(secret)
}

// SecretID is the id proofs signed with secret name: a hash of it, never
// the secret itself.
func SecretID(secret []byte) string {
	s := sha256.Sum256(append([]byte("openhuman-call-key\x00"), secret...))
	return "HS" + base64.RawURLEncoding.EncodeToString(s[:12])
}

// NewSeed makes a new key: its seed, to keep secret, and its public key.
func NewSeed() (seed, key string, err error) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		return "", "", err
	}
	defer kp.Wipe()
	s, err := kp.Seed()
	if err != nil {
		return "", "", err
	}
	key, err = kp.PublicKey()
	return string(s), key, err
}

// proof is one parsed Openhuman-Auth value.
type proof struct {
	key    string
	exp    int64 // Unix milliseconds
	nonce  string
	idHash []byte // identityHash of the caller
	// replyKey is the caller's reply key (ReplyKeys.Public): the service
	// seals its answer to it.
	replyKey string
	sig      []byte
}

func (p proof) String() string {
	return strings.Join([]string{version, p.key, strconv.FormatInt(p.exp, 10), p.nonce,
		base64.RawURLEncoding.EncodeToString(p.idHash), p.replyKey, base64.RawURLEncoding.EncodeToString(p.sig)}, " ")
}

var errMalformed = errors.New("the Openhuman-Auth header is malformed")

func parseProof(h string) (proof, error) {
	f := strings.Split(h, " ")
	if len(f) != 7 || f[0] != version {
		return proof{}, errMalformed
	}
	exp, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return proof{}, errMalformed
	}
	id, err1 := base64.RawURLEncoding.DecodeString(f[4])
	sig, err := base64.RawURLEncoding.DecodeString(f[6])
	if err != nil || err1 != nil || len(id) != sha256.Size || len(sig) != ed25519.SignatureSize && len(sig) != sha256.Size || f[3] == "" || len(f[3]) > 64 || len(f[5]) != replyKeyLen {
		return proof{}, errMalformed
	}
	return proof{key: f[1], exp: exp, nonce: f[3], idHash: id, replyKey: f[5], sig: sig}, nil
}

// newNonce is 96 random bits: no two requests of a proof's lifetime share one.
func newNonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func sum(body []byte) []byte {
	s := sha256.Sum256(body)
	return s[:]
}

// denied is the one error a refused proof becomes: DENIED, saying why, so
// that an operator reading a client's error knows what to fix.
func denied(format string, args ...any) *contract.Error {
	return contract.Errorf(contract.CodeDenied, "the call's context is not signed by the gateway: "+format, args...).
		With("reason", contract.ReasonUnsigned)
}
