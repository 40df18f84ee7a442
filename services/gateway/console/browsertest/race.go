//go:build race

package browsertest

// raced is whether the race detector is built in.
const raced = true
