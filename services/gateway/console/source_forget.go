package console

import (
	"net/http"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

type sourceForgetData struct {
	Source    string
	Total     int
	Done      bool
	Forgotten int
	Left      int
}

// maxForgetRounds bounds one source forget: at most this many pages of
// contract.MaxForgetIDs items (100,000 items), each one memory.forget.
const maxForgetRounds = 1000

// sourceForgetConfirm asks before forgetting every item of a source.
func (c *Console) sourceForgetConfirm(w http.ResponseWriter, r *http.Request) {
	src := r.URL.Query().Get("source")
	var res chunkList
	if err := c.call(r, contract.TreeBrowse.RPC, map[string]any{"source_ids": []string{src}, "k": 1}, &res); err != nil {
		c.fail(w, r, err)
		return
	}
	c.render(w, r, http.StatusOK, "source_forget", view{Title: "Forget a source", Nav: "sources", Data: sourceForgetData{Source: src, Total: res.Total}})
}

// sourceForget forgets every item of a source the signed-in token may
// see: page by page, the ids tree.browse names go to memory.forget, each
// page a call of its own through the act gate and into the audit.
func (c *Console) sourceForget(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		c.fail(w, r, err)
		return
	}
	d := sourceForgetData{Source: r.PostFormValue("source"), Done: true}
	for range maxForgetRounds {
		var page chunkList
		if err := c.call(r, contract.TreeBrowse.RPC, map[string]any{"source_ids": []string{d.Source}, "k": contract.MaxForgetIDs}, &page); err != nil {
			c.fail(w, r, err)
			return
		}
		d.Left = page.Total
		if len(page.Chunks) == 0 {
			break
		}
		ids := make([]string, len(page.Chunks))
		for i, ch := range page.Chunks {
			ids[i] = ch.ID
		}
		var res struct {
			Forgotten int `json:"forgotten"`
		}
		if err := c.call(r, contract.MemoryForget.RPC, map[string]any{"ids": ids}, &res); err != nil {
			c.fail(w, r, err)
			return
		}
		if res.Forgotten == 0 {
			break // nothing moved: do not loop on what cannot be forgotten
		}
		d.Forgotten += res.Forgotten
	}
	c.render(w, r, http.StatusOK, "source_forget", view{Title: "Source forgotten", Nav: "sources", Data: d})
}
