package sqlite

import "fmt"

// SetUserVersion lets tests fake a database written by a newer binary.
func (s *Store) SetUserVersion(v int) error {
	_, err := s.write.Exec(fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}
