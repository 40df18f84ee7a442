package memorymain

import (
	"io"

	"github.com/openhuman-go/openhuman-go/services/memory"
	"github.com/openhuman-go/openhuman-go/services/memory/localembed"
	"github.com/openhuman-go/openhuman-go/services/memory/sqlite"
)

// OpenLocal opens the memory database at path in this process, with no bus,
// the offline embedder and no writer, and returns the memory domain over it and
// the database to close. openhuman-bench measures its queries as the floor
// every transport adds to; nothing serves calls from it.
func OpenLocal(path string) (*memory.Service, io.Closer, error) {
	st := sqlite.New(path)
	if err := st.Open(); err != nil {
		return nil, nil, err
	}
	return memory.NewService(st, &memory.Options{Embedder: localembed.NewGloveEmbedder(0)}), st, nil
}
