package search

import "context"

// PhaseFunc starts a named phase of a call (one provider tried) and
// returns the context to run it in and what to call with its outcome: the
// hook for tracing spans, so that this package imports no tracing itself.
type PhaseFunc func(ctx context.Context, name string) (context.Context, func(error))

func noPhase(ctx context.Context, _ string) (context.Context, func(error)) {
	return ctx, func(error) {}
}
