//go:build !unix

package connlimit

// Default is the connection ceiling where the descriptor limit cannot be
// read.
func Default() int { return fallback }
