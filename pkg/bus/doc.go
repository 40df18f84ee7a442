// Package bus carries tool calls between the gateway and the services over NATS.
//
// Services register endpoints with nats.go micro (so $SRV.PING/INFO/STATS work)
// on subjects openhuman.<service>.<method> in one queue group; callers send a
// contract.Request and get a contract.Reply. Deadlines travel with the request
// and a timeout is UNAVAILABLE, never a hang. A signed call's answer is sealed
// for its request and its reply subject is random (seal.go, inbox.go), so that
// whoever reads or writes a caller's inbox neither reads nor forges an answer.
// A request's NATS headers also carry the caller's W3C trace context
// (pkg/tracing), outside what is signed: the service's span for the request
// is the caller's child, and nothing trusts it for more.
// The embedded subpackage starts an
// in-process NATS server for the default single-process mode and for tests.
package bus
