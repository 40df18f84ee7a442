package bus_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// mustServe starts a real NATS server on a free port of 127.0.0.1 with
// the options edit sets, and returns its client URL.
func mustServe(tb testing.TB, edit func(*server.Options)) string {
	tb.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true}
	edit(opts)
	s, err := embedded.StartServer(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Shutdown)
	return s.ClientURL()
}

func mustDial(tb testing.TB, cfg config.NATS) *nats.Conn {
	tb.Helper()
	nc, err := bus.Connect(cfg, tb.Name(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	return nc
}

// writeFile writes data to name in a fresh directory and returns its path.
func writeFile(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// roundTrip proves nc is usable: a request reaches a subscriber on it and
// the reply comes back.
func roundTrip(tb testing.TB, nc *nats.Conn) {
	tb.Helper()
	sub, err := nc.Subscribe("ping", func(m *nats.Msg) { _ = m.Respond([]byte("pong")) })
	if err != nil {
		tb.Fatal(err)
	}
	defer sub.Unsubscribe()
	msg, err := nc.Request("ping", nil, 10*time.Second)
	if err != nil {
		tb.Fatalf("round trip: %v", err)
	}
	if string(msg.Data) != "pong" {
		tb.Fatalf("round trip answered %q", msg.Data)
	}
}

func mustContainAll(tb testing.TB, err error, want ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("no error; want one saying %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			tb.Errorf("error %q does not say %q", err, w)
		}
	}
}

func TestConnectUserPassword(t *testing.T) {
	url := mustServe(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "gateway", Password: "right-horse-battery"}}
	})
	roundTrip(t, mustDial(t, config.NATS{URL: url, User: "gateway", Password: "right-horse-battery"}))

	_, err := bus.Connect(config.NATS{URL: url, User: "gateway", Password: "wrong-staple"}, "t", nil)
	mustContainAll(t, err, "NATS at "+url+" refused the credentials: authorization violation; check nats.user/nats.password")
	if strings.Contains(err.Error(), "wrong-staple") {
		t.Errorf("the error %q shows the password", err)
	}

	_, err = bus.Connect(config.NATS{URL: url}, "t", nil)
	mustContainAll(t, err, "NATS at "+url+" requires credentials", "set nats.user and nats.password")

	// Credentials in the URL work too, and never show in the error.
	withUser := strings.Replace(url, "nats://", "nats://gateway:wrong-staple@", 1)
	_, err = bus.Connect(config.NATS{URL: withUser}, "t", nil)
	mustContainAll(t, err, "NATS at "+url+" refused", "the credentials in nats.url")
	if strings.Contains(err.Error(), "wrong-staple") {
		t.Errorf("the error %q shows the password", err)
	}
}

func TestConnectToken(t *testing.T) {
	url := mustServe(t, func(o *server.Options) { o.Authorization = "s3cr3t-token" })
	roundTrip(t, mustDial(t, config.NATS{URL: url, Token: "s3cr3t-token"}))
	_, err := bus.Connect(config.NATS{URL: url, Token: "guess"}, "t", nil)
	mustContainAll(t, err, "refused the credentials", "check nats.token")
}

func TestConnectNKey(t *testing.T) {
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	url := mustServe(t, func(o *server.Options) { o.Nkeys = []*server.NkeyUser{{Nkey: pub}} })
	roundTrip(t, mustDial(t, config.NATS{URL: url, NKey: writeFile(t, "user.nk", seed)}))

	other, _ := nkeys.CreateUser()
	otherSeed, _ := other.Seed()
	_, err = bus.Connect(config.NATS{URL: url, NKey: writeFile(t, "other.nk", otherSeed)}, "t", nil)
	mustContainAll(t, err, "refused the credentials", "check nats.nkey")

	_, err = bus.Connect(config.NATS{URL: url, NKey: writeFile(t, "junk.nk", []byte("not a seed"))}, "t", nil)
	mustContainAll(t, err, "nats.nkey", "user nkey seed")
}

// TestConnectCreds runs the server in operator mode: an operator signs an
// account, the account signs the user whose JWT and seed make the .creds
// file, as `nsc` would.
func TestConnectCreds(t *testing.T) {
	operator, _ := nkeys.CreateOperator()
	opPub, _ := operator.PublicKey()
	opClaims := jwt.NewOperatorClaims(opPub)
	opClaims.Name = "openhuman-test"
	if _, err := opClaims.Encode(operator); err != nil {
		t.Fatal(err)
	}
	account, _ := nkeys.CreateAccount()
	accPub, _ := account.PublicKey()
	accClaims := jwt.NewAccountClaims(accPub)
	accClaims.Name = "openhuman"
	accJWT, err := accClaims.Encode(operator)
	if err != nil {
		t.Fatal(err)
	}
	creds := func(signer nkeys.KeyPair) string {
		user, _ := nkeys.CreateUser()
		userPub, _ := user.PublicKey()
		userClaims := jwt.NewUserClaims(userPub)
		userClaims.Name = "gateway"
		userClaims.IssuerAccount = accPub
		userJWT, err := userClaims.Encode(signer)
		if err != nil {
			t.Fatal(err)
		}
		seed, _ := user.Seed()
		file, err := jwt.FormatUserConfig(userJWT, seed)
		if err != nil {
			t.Fatal(err)
		}
		return writeFile(t, "user.creds", file)
	}
	resolver := &server.MemAccResolver{}
	if err := resolver.Store(accPub, accJWT); err != nil {
		t.Fatal(err)
	}
	url := mustServe(t, func(o *server.Options) {
		o.TrustedOperators = []*jwt.OperatorClaims{opClaims}
		o.AccountResolver = resolver
	})
	roundTrip(t, mustDial(t, config.NATS{URL: url, Creds: creds(account)}))

	// A user signed by an account the operator never signed is refused.
	stranger, _ := nkeys.CreateAccount()
	_, err = bus.Connect(config.NATS{URL: url, Creds: creds(stranger)}, "t", nil)
	mustContainAll(t, err, "refused the credentials", "check nats.creds")
}

func TestConnectTLS(t *testing.T) {
	pki := newTestPKI(t)
	url := mustServe(t, func(o *server.Options) {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: pki.serverCert, KeyFile: pki.serverKey, CaFile: pki.ca, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		o.TLSConfig, o.TLS, o.TLSVerify = tc, true, true
		o.Users = []*server.User{{Username: "memory", Password: "pw"}}
	})
	if !strings.HasPrefix(url, "tls://") {
		t.Fatalf("server URL %s is not tls://", url)
	}
	good := config.NATS{URL: url, User: "memory", Password: "pw", TLSCA: pki.ca, TLSCert: pki.clientCert, TLSKey: pki.clientKey}
	nc := mustDial(t, good)
	roundTrip(t, nc)
	if st, _ := nc.TLSConnectionState(); !st.HandshakeComplete {
		t.Error("the connection is not over TLS")
	}

	noCA := good
	noCA.TLSCA = ""
	_, err := bus.Connect(noCA, "t", nil)
	mustContainAll(t, err, "TLS", "certificate signed by unknown authority", "set nats.tls_ca")

	noCert := good
	noCert.TLSCert, noCert.TLSKey = "", ""
	_, err = bus.Connect(noCert, "t", nil)
	mustContainAll(t, err, "NATS at "+url, "TLS", "needs nats.tls_cert and nats.tls_key")

	// nats.go turns to TLS when the server asks for it, so a nats:// URL
	// meets the same check of the server's certificate.
	plain := good
	plain.URL = strings.Replace(url, "tls://", "nats://", 1)
	plain.TLSCA = ""
	_, err = bus.Connect(plain, "t", nil)
	mustContainAll(t, err, "certificate signed by unknown authority", "set nats.tls_ca")

	noTLS := mustServe(t, func(*server.Options) {})
	_, err = bus.Connect(config.NATS{URL: noTLS, TLSCA: pki.ca}, "t", nil)
	mustContainAll(t, err, "NATS at "+noTLS, "the server does not offer TLS")
}

// A request the server does not let this user publish fails at once with
// DENIED naming the subject, instead of waiting out its deadline for a
// reply that cannot come; so does one whose reply inbox the user may not
// subscribe to. A service whose user may not subscribe to its subjects
// is told so by Refused.
func TestPermissionViolations(t *testing.T) {
	url := mustServe(t, func(o *server.Options) {
		o.Users = []*server.User{
			{Username: "caller", Password: "pw", Permissions: &server.Permissions{
				Publish:   &server.SubjectPermission{Allow: []string{"openhuman.echo.>", "$SRV.PING.echo"}},
				Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>"}},
			}},
			{Username: "deaf", Password: "pw", Permissions: &server.Permissions{
				Publish:   &server.SubjectPermission{Allow: []string{">"}},
				Subscribe: &server.SubjectPermission{Deny: []string{"_INBOX.>"}},
			}},
			{Username: "echo", Password: "pw", Permissions: &server.Permissions{
				Subscribe: &server.SubjectPermission{Allow: []string{"openhuman.echo.>", "$SRV.*", "$SRV.*.echo", "$SRV.*.echo.*"}},
				// Unlimited, as deploy/nats/auth.conf has it: a reply may
				// follow heartbeats on the same subject.
				Response: &server.ResponsePermission{MaxMsgs: -1, Expires: time.Minute},
			}},
			{Username: "thief", Password: "pw", Permissions: &server.Permissions{
				Subscribe: &server.SubjectPermission{Allow: []string{"openhuman.other.>"}},
				Response:  &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute},
			}},
		}
	})
	dial := func(user string) *nats.Conn { return mustDial(t, config.NATS{URL: url, User: user, Password: "pw"}) }

	echo := dial("echo")
	svc := echoService(t, echo, nil)
	t.Cleanup(func() { svc.Stop() })
	if err := bus.Refused(echo); err != nil {
		t.Fatalf("the echo user may serve echo: %v", err)
	}

	caller := bus.NewClient(dial("caller"), bustest.Keys().GatewaySigner())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := caller.Call(ctx, "echo", "echo", map[string]any{"a": 1}, contract.CallContext{}); err != nil {
		t.Fatalf("an allowed call failed: %v", err)
	}
	if err := caller.Ping(ctx, "echo"); err != nil {
		t.Fatalf("an allowed ping failed: %v", err)
	}

	start := time.Now()
	_, err := caller.Call(ctx, "memory", "forget", map[string]any{}, contract.CallContext{})
	if contract.ErrorCode(err) != contract.CodeDenied {
		t.Fatalf("a call to a subject the user may not publish to: %v (%s); want DENIED", err, contract.ErrorCode(err))
	}
	mustContainAll(t, err, "openhuman.memory.forget", "permissions violation", "deploy/nats/auth.conf")
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the refusal took %s: it waited for the deadline", took)
	}
	if err := caller.Ping(ctx, "memory"); contract.ErrorCode(err) != contract.CodeDenied {
		t.Errorf("a ping the user may not send: %v", err)
	}
	// The connection survives a refusal.
	if _, err := caller.Call(ctx, "echo", "echo", map[string]any{"a": 2}, contract.CallContext{}); err != nil {
		t.Fatalf("a call after a refusal failed: %v", err)
	}

	_, err = bus.NewClient(dial("deaf"), bustest.Keys().GatewaySigner()).Call(ctx, "echo", "echo", map[string]any{}, contract.CallContext{})
	if contract.ErrorCode(err) != contract.CodeDenied {
		t.Fatalf("a call whose reply inbox is refused: %v; want DENIED", err)
	}
	mustContainAll(t, err, "_INBOX", "where the reply to openhuman.echo.echo would come")

	thief := dial("thief")
	if _, err := bus.Serve(thief, bus.ServiceConfig{Checks: bustest.Keys().Checks(), Name: "echo", Version: "0.1.0", Endpoints: []bus.Endpoint{echoEndpoint("echo", nil, nil)}}); err != nil {
		t.Fatal(err)
	}
	mustContainAll(t, bus.Refused(thief), "NATS refused the subscription to", "permissions violation")
}
