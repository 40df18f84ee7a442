package console

import (
	"net/http"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// itemData is an item page: the item, and, when the page was opened from
// a search, why the search found it.
type itemData struct {
	*fullItem
	Why *why
}

// why is where an item's score came from in the search that found it.
type why struct {
	// Search is the search's form, to say what was asked and link back.
	Search memoryData
	// Hit is the item as the search ranked it, explained; nil when the
	// search no longer finds it on its page. Mode is the mode it ran in.
	Hit  *hit
	Mode string
	// Error is why the search could not be asked again.
	Error string
}

// whyFound asks the search an item page was opened from again, with
// explain, for the page the item was on, and finds the item among its
// hits: the same call the results came from, so the same score. Without a
// search there is nothing to explain, and it returns nil.
func (c *Console) whyFound(r *http.Request, id string) *why {
	d := memoryForm(r)
	if !d.Searching {
		return nil
	}
	w := &why{Search: d}
	params, err := memoryParams(d)
	if err == nil {
		params["explain"] = true
		var res contract.FetchResult
		if err = c.call(r, contract.MemoryFetch.RPC, params, &res); err == nil {
			w.Mode = res.Mode
			for i := range res.Hits {
				if res.Hits[i].ID == id {
					w.Hit = &res.Hits[i]
				}
			}
		}
	}
	if err != nil {
		w.Error = contract.AsError(err).Message
	}
	return w
}
