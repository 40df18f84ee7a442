package console

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpstatus"
)

// memoryPageSize is how many items a page of memory shows.
const memoryPageSize = 50

type memoryData struct {
	Query url.Values
	// The form's fields, as sent.
	Q, Mode, Workspace, Kind, LearningKind, Source, Tags, After, Before string
	Modes, Kinds, LearningKinds, Sources                                []string
	// Workspaces are the signed-in token's, when it is limited to some.
	Workspaces []string
	Searching  bool
	Items      []hit
	Next       string
	Warnings   []string
}

// memoryList is the memory page: with a query, memory.fetch (hybrid by
// default, or the mode chosen) best first; without one, memory.list newest
// first. Both page by cursor and take memory's filters.
func (c *Console) memoryList(w http.ResponseWriter, r *http.Request) {
	d := memoryForm(r)
	v := view{Title: "Memory", Nav: "memory", Data: &d}
	params, err := memoryParams(d)
	if err != nil {
		v.Error = err.Error()
		c.render(w, r, http.StatusBadRequest, "memory", v)
		return
	}
	if d.Searching {
		var res contract.FetchResult
		err = c.call(r, contract.MemoryFetch.RPC, params, &res)
		d.Items, d.Next, d.Warnings = res.Hits, res.NextCursor, res.Warnings
	} else {
		var res contract.ListResult
		err = c.call(r, contract.MemoryList.RPC, params, &res)
		d.Items, d.Next = res.Items, res.NextCursor
	}
	if err != nil {
		e := contract.AsError(err)
		v.Error = e.Message
		c.render(w, r, httpstatus.Of(e.Code), "memory", v)
		return
	}
	c.render(w, r, http.StatusOK, "memory", v)
}

// memoryForm is the memory page's form as sent: a search, or filters.
func memoryForm(r *http.Request) memoryData {
	q := r.URL.Query()
	d := memoryData{Query: q, Q: strings.TrimSpace(q.Get("q")), Mode: q.Get("mode"), Workspace: q.Get("workspace"), Kind: q.Get("kind"),
		LearningKind: q.Get("learning_kind"), LearningKinds: contract.LearningKinds, Source: q.Get("source"), Tags: q.Get("tags"), After: q.Get("after"), Before: q.Get("before"),
		Modes: contract.FetchModes, Kinds: contract.ItemKinds, Sources: contract.ItemSources, Workspaces: callContext(r.Context()).Workspaces}
	d.Searching = d.Q != ""
	return d
}

// memoryParams are the arguments of the memory.fetch (when d searches) or
// memory.list call of the form d, for the page its cursor names: an item
// page reads the same search's page again to say why an item was found.
func memoryParams(d memoryData) (map[string]any, error) {
	filter, err := memoryFilter(d)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"limit": memoryPageSize}
	if len(filter) > 0 {
		params["filter"] = filter
	}
	if cur := d.Query.Get("cursor"); cur != "" {
		params["cursor"] = cur
	}
	if d.Searching {
		params["query"] = d.Q
		if d.Mode != "" {
			params["mode"] = d.Mode
		}
	}
	return params, nil
}

// memoryFilter is the tool's filter from the form. Dates come from
// <input type=date> (YYYY-MM-DD) or as RFC 3339; the tool checks the rest
// and names any field it refuses.
func memoryFilter(d memoryData) (map[string]any, error) {
	f := map[string]any{}
	if d.Workspace != "" {
		f["workspace"] = d.Workspace
	}
	if d.Kind != "" {
		f["kinds"] = []string{d.Kind}
	}
	if d.LearningKind != "" {
		f["learning_kinds"] = []string{d.LearningKind}
	}
	if d.Source != "" {
		f["sources"] = []string{d.Source}
	}
	var tags []string
	for _, t := range strings.Split(d.Tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	if len(tags) > 0 {
		f["tags_any"] = tags
	}
	for key, val := range map[string]string{"observed_after": d.After, "observed_before": d.Before} {
		if val == "" {
			continue
		}
		t, err := time.Parse("2006-01-02", val)
		if err != nil {
			if t, err = time.Parse(time.RFC3339, val); err != nil {
				return nil, contract.Errorf(contract.CodeInvalidRequest, "%s %q is not a date: give it as YYYY-MM-DD", strings.ReplaceAll(key, "_", " "), val)
			}
		}
		f[key] = t.UTC().Format(time.RFC3339)
	}
	return f, nil
}
