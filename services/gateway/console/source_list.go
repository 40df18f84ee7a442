package console

import (
	"net/http"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

type source struct {
	SourceID     string `json:"source_id"`
	DisplayName  string `json:"display_name"`
	SourceKind   string `json:"source_kind"`
	ChunkCount   int    `json:"chunk_count"`
	MostRecentMS int64  `json:"most_recent_ms"`
}

// sourceList lists every source memory holds items of, as
// tree.list_sources returns them: chunk counts and last activity.
func (c *Console) sourceList(w http.ResponseWriter, r *http.Request) {
	var res struct {
		Sources []source `json:"sources"`
	}
	if err := c.call(r, contract.TreeListSources.RPC, map[string]any{}, &res); err != nil {
		c.fail(w, r, err)
		return
	}
	c.render(w, r, http.StatusOK, "sources", view{Title: "Sources", Nav: "sources", Data: res.Sources})
}
