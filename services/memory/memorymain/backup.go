package memorymain

import "github.com/openhuman-go/openhuman-go/services/memory/sqlite"

// SchemaVersion is the newest memory file schema this build writes: a
// backup of a newer one is not restored.
func SchemaVersion() int { return sqlite.SchemaVersion() }
