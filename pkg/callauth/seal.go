package callauth

// Sealed answers. A request's proof names its caller's reply key, an
// X25519 public key made with the caller's signer, and signs it with the
// rest. The service that answers seals every message it sends to the
// request's reply subject (the reply and each heartbeat) with AES-256-GCM
// under a key for that request alone: derived from the X25519 exchange of
// its own key with the caller's, the request's nonce and its reply
// subject. The caller opens a message only with the key of its own
// request.
//
// So a client that may read the caller's inbox (whoever holds the
// gateway's NATS password, say) reads no answer; and one that makes a
// service answer on the caller's inbox (any request naming it as reply
// subject does) or replays an answer cannot have it believed: an unsigned
// request's error is not sealed, and what is sealed for another request
// does not open. Forging an answer takes the caller's reply key and the
// request's nonce, which only the request carries: whoever may receive it
// (its service, or a client that may subscribe to its subject, which
// could answer in its place anyway) could, nobody else.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"sync"
)

// SealHeader on a message to a reply subject names the public reply key
// of the service that sealed it.
const SealHeader = "Openhuman-Seal"

// Kind is what a sealed message is: its seal says so, so that a heartbeat
// cannot pass for an answer.
type Kind byte

// Kinds of sealed message.
const (
	KindReply Kind = 'r'
	KindBeat  Kind = 'b'
)

// replyKeyLen is a reply key's length in a proof: 32 bytes, base64url.
const replyKeyLen = 43

// maxPeers bounds the keys shared with peers that a ReplyKeys remembers;
// past it the memory starts over (the exchange is made again).
const maxPeers = 4096

const gcmNonceSize = 12

// ErrNotSealed means a message did not open with the key of the request
// it came for: not sealed, sealed for another request, or altered.
var ErrNotSealed = errors.New("the message is not sealed for this request")

// ReplyKeys are one binary's X25519 key, a caller's or a service's, and
// the keys it shares with the peers it has met. They are safe for
// concurrent use.
type ReplyKeys struct {
	priv   *ecdh.PrivateKey
	public string

	mu     sync.Mutex
	shared map[pairID][]byte
}

type pairID struct {
	peer    string
	service bool // we seal, peer opens
}

// NewReplyKeys makes a new key.
func NewReplyKeys() *ReplyKeys {
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		panic(err) // crypto/rand never fails
	}
	return &ReplyKeys{priv: priv, public: base64.RawURLEncoding.EncodeToString(priv.PublicKey().Bytes()),
		shared: map[pairID][]byte{}}
}

// Public is the key a request names, or a sealed message's SealHeader.
func (k *ReplyKeys) Public() string { return k.public }

// Seal seals msg, of kind, as a service answering the request of nonce
// from the caller whose reply key is to, on reply subject.
func (k *ReplyKeys) Seal(kind Kind, to, nonce, subject string, msg []byte) ([]byte, error) {
	aead, err := k.aead(pairID{peer: to, service: true}, nonce, subject)
	if err != nil {
		return nil, err
	}
	out := make([]byte, gcmNonceSize, gcmNonceSize+len(msg)+aead.Overhead())
	_, _ = rand.Read(out) // never fails (crypto/rand)
	return aead.Seal(out, out, msg, []byte{byte(kind)}), nil
}

// Open opens box, which must be of kind, as the caller of the request of
// nonce on reply subject, answered by the service whose reply key is from.
func (k *ReplyKeys) Open(kind Kind, from, nonce, subject string, box []byte) ([]byte, error) {
	if len(box) < gcmNonceSize {
		return nil, ErrNotSealed
	}
	aead, err := k.aead(pairID{peer: from}, nonce, subject)
	if err != nil {
		return nil, err
	}
	msg, err := aead.Open(nil, box[:gcmNonceSize], box[gcmNonceSize:], []byte{byte(kind)})
	if err != nil {
		return nil, ErrNotSealed
	}
	return msg, nil
}

// aead is the cipher of one request: keyed by the key shared with the
// peer, the request's nonce and its reply subject.
func (k *ReplyKeys) aead(id pairID, nonce, subject string) (cipher.AEAD, error) {
	pair, err := k.pair(id)
	if err != nil {
		return nil, err
	}
	h := hmac.New(sha256.New, pair)
	h.Write(appendString(appendString(nil, nonce), subject))
	block, err := aes.NewCipher(h.Sum(nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// pair is the key shared with a peer: a hash of the X25519 exchange and
// both public keys, the caller's first. One exchange per peer.
func (k *ReplyKeys) pair(id pairID) ([]byte, error) {
	k.mu.Lock()
	key, ok := k.shared[id]
	k.mu.Unlock()
	if ok {
		return key, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(id.peer)
	if err != nil || len(id.peer) != replyKeyLen {
		return nil, ErrNotSealed
	}
	peer, err := ecdh.X25519().NewPublicKey(raw)
	if err != nil {
		return nil, ErrNotSealed
	}
	secret, err := k.priv.ECDH(peer)
	if err != nil {
		return nil, ErrNotSealed // a low-order point
	}
	caller, service := id.peer, k.public
	if !id.service {
		caller, service = service, caller
	}
	b := append([]byte("openhuman-reply-v1"), secret...)
	key = sum(appendString(appendString(b, caller), service))
	k.mu.Lock()
	if len(k.shared) >= maxPeers {
		clear(k.shared)
	}
	k.shared[id] = key
	k.mu.Unlock()
	return key, nil
}

// ReplyTo reads, from a request's Openhuman-Auth header, the reply key
// and nonce its answer is sealed for, without checking the proof: an
// answer to a forged proof is sealed for what it names, which opens for
// nobody else.
func ReplyTo(auth string) (key, nonce string, ok bool) {
	if auth == "" {
		return "", "", false
	}
	p, err := parseProof(auth)
	if err != nil {
		return "", "", false
	}
	return p.replyKey, p.nonce, true
}
