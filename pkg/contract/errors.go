package contract

import (
	"errors"
	"fmt"
)

// Code names a class of failure. Codes travel on the bus as strings and each
// transport maps them to its own status exactly once.
type Code string

// The error codes. Anything that is not an *Error counts as INTERNAL and its
// details never reach a user.
const (
	CodeInvalidRequest Code = "INVALID_REQUEST" // the caller sent something wrong: fix the arguments
	CodeNotFound       Code = "NOT_FOUND"       // the named thing does not exist
	CodeMemoryOff      Code = "MEMORY_OFF"      // no memory engine is usable
	CodeUnsupported    Code = "UNSUPPORTED"     // valid request the engine cannot serve (e.g. a fetch mode)
	CodeUnavailable    Code = "UNAVAILABLE"     // a dependency is down or a deadline passed; retry later
	CodeRateLimited    Code = "RATE_LIMITED"    // a budget or provider limit was hit
	CodeDenied         Code = "DENIED"          // policy refused the call
	CodeNoModel        Code = "NO_MODEL"        // a language model is needed and none is configured
	CodeEngine         Code = "ENGINE"          // the storage or search engine failed
	CodeInternal       Code = "INTERNAL"        // a bug; details are logged, not shown
)

// ReasonNoResponders marks (as data.reason) an UNAVAILABLE call nothing
// answered: the service is down, or it runs without that endpoint.
const ReasonNoResponders = "no_responders"

// ReasonUnsigned marks a DENIED call whose context the service could not
// believe: unsigned, signed by a key it does not trust, expired, replayed,
// altered or wider than the call a delegate acts within.
const ReasonUnsigned = "unsigned_context"

// Reasons (data.reason) for an UNAVAILABLE call whose replica went away.
// A call the replica refused while stopping was never started, so any call
// may be sent again; one whose replica stopped answering may have been
// partly done, so only a Retryable one may.
const (
	ReasonReplicaStopping = "replica_stopping"
	ReasonReplicaStopped  = "replica_stopped"
)

// Codes lists every code, so transports can prove in a test that each one maps.
func Codes() []Code {
	return []Code{CodeInvalidRequest, CodeNotFound, CodeMemoryOff, CodeUnsupported, CodeUnavailable,
		CodeRateLimited, CodeDenied, CodeNoModel, CodeEngine, CodeInternal}
}

// Error is the one error type that crosses package and process boundaries.
// Message is written for the person who has to act on it.
type Error struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns a copy of e carrying one more data field.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Data = make(map[string]any, len(e.Data)+1)
	for k, v := range e.Data {
		c.Data[k] = v
	}
	c.Data[key] = value
	return &c
}

// ErrorCode returns the code of err, INTERNAL for errors that are not ours, and
// "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the message a user may see: ours verbatim, anything else
// replaced by a generic sentence so internals never leak.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error; see the server log"
}

// AsError converts any error to *Error, hiding details of foreign errors.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: ErrorMessage(err)}
}
