package console

import (
	"net/http"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

type forgetData struct {
	ID   string
	Item *fullItem
	// After a forget: what memory answered, and whether the item read
	// back afterwards was gone.
	Done      bool
	Forgotten int
	Seq       uint64
	Gone      bool
}

// memoryForgetConfirm asks before forgetting: forgetting cannot be undone.
func (c *Console) memoryForgetConfirm(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSpace(r.URL.Query().Get("id"))
	it, err := c.readItem(r, id)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.render(w, r, http.StatusOK, "forget", view{Title: "Forget an item", Nav: "memory", Data: forgetData{ID: id, Item: it}})
}

// memoryForget forgets one item with memory.forget, then reads it back: a
// read after a write waits for every write before it, on whichever
// replica answers, so "not found" there means memory no longer holds it.
func (c *Console) memoryForget(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		c.fail(w, r, err)
		return
	}
	id := strings.TrimSpace(r.PostFormValue("id"))
	var res contract.ForgetResult
	if err := c.call(r, contract.MemoryForget.RPC, map[string]any{"ids": []string{id}}, &res); err != nil {
		c.fail(w, r, err)
		return
	}
	d := forgetData{ID: id, Done: true, Forgotten: res.Forgotten, Seq: res.Seq}
	_, err := c.readItem(r, id)
	switch {
	case contract.ErrorCode(err) == contract.CodeNotFound:
		d.Gone = true
	case err != nil:
		c.fail(w, r, err)
		return
	}
	c.render(w, r, http.StatusOK, "forget", view{Title: "Forgotten", Nav: "memory", Data: d})
}
