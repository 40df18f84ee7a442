//go:build !unix

package sqlitefile

// InUse cannot tell on this system; it reports false.
func InUse(path string) (bool, error) { return false, nil }
