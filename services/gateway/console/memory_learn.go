package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/httpstatus"
)

type learnData struct {
	Text, Kind, Workspace string
	Kinds                 []string
	Workspaces            []string
}

// memoryLearnForm is the form to learn a note.
func (c *Console) memoryLearnForm(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, "learn", view{Title: "Learn a note", Nav: "memory",
		Data: learnData{Kind: contract.DefaultLearningKind, Kinds: contract.LearningKinds, Workspaces: callContext(r.Context()).Workspaces}})
}

// memoryLearn stores the note with memory.learn, then shows the item.
func (c *Console) memoryLearn(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		c.fail(w, r, err)
		return
	}
	d := learnData{Text: r.PostFormValue("text"), Kind: r.PostFormValue("kind"), Workspace: r.PostFormValue("workspace"),
		Kinds: contract.LearningKinds, Workspaces: callContext(r.Context()).Workspaces}
	params := map[string]any{"text": d.Text}
	if d.Kind != "" {
		params["kind"] = d.Kind
	}
	if d.Workspace != "" {
		params["workspace"] = d.Workspace
	}
	if s := strings.TrimSpace(r.PostFormValue("confidence")); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			c.render(w, r, http.StatusBadRequest, "learn", view{Title: "Learn a note", Nav: "memory", Data: d, Error: "confidence " + strconv.Quote(s) + " is not a number: give one from 0 to 1"})
			return
		}
		params["confidence"] = f
	}
	var res contract.LearnResult
	if err := c.call(r, contract.MemoryLearn.RPC, params, &res); err != nil {
		e := contract.AsError(err)
		c.render(w, r, httpstatus.Of(e.Code), "learn", view{Title: "Learn a note", Nav: "memory", Data: d, Error: e.Message})
		return
	}
	http.Redirect(w, r, Prefix+"/memory/item?id="+url.QueryEscape(res.ID)+"&done=learned", http.StatusSeeOther)
}
