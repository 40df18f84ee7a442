package console

import (
	"net/http"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// hit is a memory item as memory.list and memory.fetch return it.
type hit = contract.Hit

// chunk is a memory-tree row (tree.browse), with the item's id.
type (
	chunk     = contract.ChunkRow
	chunkList = contract.ChunkList
)

// fullItem is tree.read_chunk's answer: the whole text, the item and its
// entities.
type fullItem = contract.FullChunk

// readItem reads one item in full through the gateway.
func (c *Console) readItem(r *http.Request, id string) (*fullItem, error) {
	var out fullItem
	if err := c.call(r, "openhuman.memory_tree_get_chunk", map[string]any{"chunk_id": id}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
