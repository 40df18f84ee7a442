package console

import (
	"net/http"
	"strconv"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

type sourceItemsData struct {
	Source     string
	Chunks     []chunk
	Total      int
	Offset     int
	NextOffset int
}

// sourceItems pages through one source's items, newest first (tree.browse).
func (c *Console) sourceItems(w http.ResponseWriter, r *http.Request) {
	src := r.URL.Query().Get("source")
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	var res chunkList
	if err := c.call(r, contract.TreeBrowse.RPC, map[string]any{"source_ids": []string{src}, "k": memoryPageSize, "offset": max(offset, 0)}, &res); err != nil {
		c.fail(w, r, err)
		return
	}
	d := sourceItemsData{Source: src, Chunks: res.Chunks, Total: res.Total, Offset: offset}
	if offset+len(res.Chunks) < res.Total {
		d.NextOffset = offset + len(res.Chunks)
	}
	c.render(w, r, http.StatusOK, "source_items", view{Title: "Source " + src, Nav: "sources", Data: d})
}
