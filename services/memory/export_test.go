package memory

// CachedText reports whether the service's item cache holds an item with
// this text (tests: a forgotten item must leave it).
func CachedText(s *Service, text string) bool {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	for _, it := range s.cache.items {
		if it.Text == text {
			return true
		}
	}
	return false
}
