package sqlite

// SchemaVersion is the newest schema this build writes (the user_version
// a file has once Open migrated it): a file of a higher one was written by
// a newer build, which this one must not open or restore.
func SchemaVersion() int { return len(migrations) }
