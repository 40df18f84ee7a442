package console

import (
	"net/http"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

type sourceForgetData struct {
	Source    string
	Folder    bool // the source is a folder of ingested files
	Total     int
	Done      bool
	Forgotten int
}

// sourceForgetConfirm asks before forgetting every item of a source, or
// of every file ingested under a folder, saying how many a dry run of
// the same memory.forget counts.
func (c *Console) sourceForgetConfirm(w http.ResponseWriter, r *http.Request) {
	d := sourceForgetData{Source: r.URL.Query().Get("source")}
	var res contract.ForgetResult
	if err := c.call(r, contract.MemoryForget.RPC, map[string]any{"source": d.Source, "dry_run": true}, &res); err != nil {
		c.fail(w, r, err)
		return
	}
	if res.Matched != nil {
		d.Total = *res.Matched
	}
	d.Folder = c.isFolder(r, d.Source)
	c.render(w, r, http.StatusOK, "source_forget", view{Title: "Forget a source", Nav: "sources", Data: d})
}

// sourceForget forgets every item of a source, or folder, the signed-in
// token may see: one memory.forget through the act gate, one audit row
// that counts them.
func (c *Console) sourceForget(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		c.fail(w, r, err)
		return
	}
	d := sourceForgetData{Source: r.PostFormValue("source"), Done: true}
	var res contract.ForgetResult
	if err := c.call(r, contract.MemoryForget.RPC, map[string]any{"source": d.Source}, &res); err != nil {
		c.fail(w, r, err)
		return
	}
	d.Forgotten = res.Forgotten
	c.render(w, r, http.StatusOK, "source_forget", view{Title: "Source forgotten", Nav: "sources", Data: d})
}

// isFolder reports whether src is a folder rather than one source: no
// source is named so, and some lie under it.
func (c *Console) isFolder(r *http.Request, src string) bool {
	if !strings.HasPrefix(src, "/") {
		return false
	}
	var res contract.SourceList
	if c.call(r, contract.TreeListSources.RPC, map[string]any{}, &res) != nil {
		return false
	}
	for _, s := range res.Sources {
		if s.SourceID == src {
			return false
		}
	}
	return len(under(res.Sources, strings.TrimSuffix(src, "/"))) > 0
}
