// Package bus carries tool calls between the gateway and the services over NATS.
//
// Services register endpoints with nats.go micro (so $SRV.PING/INFO/STATS work)
// on subjects openhuman.<service>.<method> in one queue group; callers send a
// contract.Request and get a contract.Reply. Deadlines travel with the request
// and a timeout is UNAVAILABLE, never a hang. The embedded subpackage starts an
// in-process NATS server for the default single-process mode and for tests.
package bus
