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

// IndexesBuilt reports whether the keyword and vector indexes hold n items
// each (tests: Run builds them before any search).
func IndexesBuilt(s *Service, n int) bool {
	kw, vec := s.search.Indexed()
	return kw == n && vec == n
}
