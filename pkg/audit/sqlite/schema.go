package sqlite

// SchemaVersion is the newest schema of the audit file this build writes
// (its user_version once Open migrated it).
func SchemaVersion() int { return len(migrations) }
