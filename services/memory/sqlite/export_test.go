package sqlite

import "fmt"

// SetUserVersion lets tests fake a database written by a newer binary.
func (s *Store) SetUserVersion(v int) error {
	_, err := s.write.Exec(fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}

// Synchronous reads the writer connection's synchronous setting.
func (s *Store) Synchronous() int {
	var n int
	_ = s.write.QueryRow(`PRAGMA synchronous`).Scan(&n)
	return n
}
