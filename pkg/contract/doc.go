// Package contract is what the gateway and the services agree on: tool names and
// argument schemas, NATS subjects, the request/reply envelope and the error codes.
//
// It imports only the standard library so that every binary, and every service's
// domain package, can depend on it without pulling in an adapter.
package contract
