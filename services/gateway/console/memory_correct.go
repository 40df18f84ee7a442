package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpstatus"
)

// memoryCorrect corrects a learning in place: memory.learn with replaces,
// which keeps the old one marked superseded. It shows the new item, or
// the old one again with why the correction was refused.
func (c *Console) memoryCorrect(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		c.fail(w, r, err)
		return
	}
	id, text := strings.TrimSpace(r.PostFormValue("id")), r.PostFormValue("text")
	var res contract.LearnResult
	err := c.call(r, contract.MemoryLearn.RPC, map[string]any{"text": text, "replaces": id}, &res)
	if err == nil {
		http.Redirect(w, r, Prefix+"/memory/item?id="+url.QueryEscape(res.ID)+"&done=corrected", http.StatusSeeOther)
		return
	}
	it, rerr := c.readItem(r, id)
	if rerr != nil {
		c.fail(w, r, err)
		return
	}
	e := contract.AsError(err)
	c.render(w, r, httpstatus.Of(e.Code), "item", view{Title: "Item", Nav: "memory", Data: it, Error: e.Message})
}
