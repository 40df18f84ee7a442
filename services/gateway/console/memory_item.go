package console

import (
	"net/http"
	"strings"
)

// memoryItem is one item in full: its text, who wrote it from where,
// when, what it mentions and how it is tagged; opened from a search, why
// the search found it.
func (c *Console) memoryItem(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSpace(r.URL.Query().Get("id"))
	if id == "" {
		c.renderError(w, r, http.StatusBadRequest, "Which item? The link is missing its id.")
		return
	}
	it, err := c.readItem(r, id)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	v := view{Title: "Item", Nav: "memory", Data: itemData{fullItem: it, Why: c.whyFound(r, id)}}
	switch r.URL.Query().Get("done") {
	case "learned":
		v.Notice = "Learned. This is the item memory keeps."
	case "corrected":
		v.Notice = "Corrected. Memory keeps the old learning too, marked superseded by this one; fetch and recall find this one."
	}
	c.render(w, r, http.StatusOK, "item", v)
}
