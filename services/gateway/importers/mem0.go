package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// mem0 (mem0ai/mem0) answers get_all, and writes its exports, as
// {"results":[{"id","memory","hash","metadata","categories","user_id",
// "agent_id","run_id","created_at","updated_at"}]} (older versions and the
// platform's export: a bare list, or "memories"). Each memory becomes a
// learning: its text, a tag per user, agent and run id it belongs to
// (user:alice, agent:travel-bot) and per category, observed when it was
// last updated and created when mem0 created it.

type mem0Memory struct {
	ID         string   `json:"id"`
	Memory     string   `json:"memory"`
	Text       string   `json:"text"`
	Categories []string `json:"categories"`
	UserID     string   `json:"user_id"`
	AgentID    string   `json:"agent_id"`
	RunID      string   `json:"run_id"`
	CreatedAt  any      `json:"created_at"`
	UpdatedAt  any      `json:"updated_at"`
}

const provMem0 = "import:mem0"

func readMem0(path string, opts Options, sink Sink) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		var wrapped struct {
			Results  []json.RawMessage `json:"results"`
			Memories []json.RawMessage `json:"memories"`
		}
		if err2 := json.Unmarshal(data, &wrapped); err2 != nil {
			return fmt.Errorf("%s is not a mem0 export (a JSON list of memories, or {\"results\": [...]}): %v", path, err)
		}
		list = append(wrapped.Results, wrapped.Memories...)
	}
	now := opts.now()
	for i, raw := range list {
		where := fmt.Sprintf("memory %d", i+1)
		var m mem0Memory
		if err := json.Unmarshal(raw, &m); err != nil {
			if err := sink.Fault(where, fmt.Errorf("not a memory object: %v", err)); err != nil {
				return err
			}
			continue
		}
		if m.ID != "" {
			where += " (" + m.ID + ")"
		}
		text := strings.TrimSpace(m.Memory)
		if text == "" {
			text = strings.TrimSpace(m.Text)
		}
		if text == "" {
			if err := sink.Fault(where, errors.New("it has no memory text")); err != nil {
				return err
			}
			continue
		}
		var tags []string
		for _, t := range []struct{ prefix, id string }{{"user:", m.UserID}, {"agent:", m.AgentID}, {"run:", m.RunID}} {
			if t.id != "" {
				tags = append(tags, t.prefix+t.id)
			}
		}
		tags = append(tags, m.Categories...)
		created, ok := parseTime(m.CreatedAt)
		if !ok {
			created = now
		}
		observed := created
		if t, ok := parseTime(m.UpdatedAt); ok {
			observed = t
		}
		rec := learning(text, provMem0, tags, observed, opts)
		rec.CreatedAt = created.Format(time.RFC3339Nano)
		if err := sink.Record(where, rec); err != nil {
			return err
		}
	}
	return nil
}
