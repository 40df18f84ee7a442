package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The reference MCP memory server (modelcontextprotocol/servers,
// src/memory) keeps its knowledge graph in memory.jsonl, one object a
// line: {"type":"entity","name","entityType","observations":[...]} and
// {"type":"relation","from","to","relationType"}. Every observation becomes
// a learning about its entity, as does every relation (about its from
// entity) and an entity that has no observations; each is tagged with the
// names of the entities it is about, and says them in its text (with _ as
// a space), where memory finds them as names.

type graphLine struct {
	Type         string   `json:"type"`
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
	From         string   `json:"from"`
	To           string   `json:"to"`
	RelationType string   `json:"relationType"`
}

const provServerMemory = "import:server-memory"

func readServerMemory(path string, opts Options, sink Sink) error {
	now := opts.now()
	return lines(path, func(n int, line []byte) error {
		where := fmt.Sprintf("line %d", n)
		var g graphLine
		if err := json.Unmarshal(line, &g); err != nil {
			return sink.Fault(where, fmt.Errorf("not JSON (%v): a truncated or damaged line", err))
		}
		switch g.Type {
		case "entity":
			if strings.TrimSpace(g.Name) == "" {
				return sink.Fault(where, errors.New("an entity without a name"))
			}
			tags := entityTags(g.Name, g.EntityType)
			about := spoken(g.Name)
			if g.EntityType != "" {
				about += " (" + spoken(g.EntityType) + ")"
			}
			if len(g.Observations) == 0 {
				return sink.Record(where, learning(about+" is known.", provServerMemory, tags, now, opts))
			}
			for i, o := range g.Observations {
				if strings.TrimSpace(o) == "" {
					continue
				}
				if err := sink.Record(fmt.Sprintf("%s, observation %d", where, i+1), learning(about+": "+o, provServerMemory, tags, now, opts)); err != nil {
					return err
				}
			}
			return nil
		case "relation":
			if g.From == "" || g.To == "" || g.RelationType == "" {
				return sink.Fault(where, errors.New("a relation needs from, to and relationType"))
			}
			text := spoken(g.From) + " " + spoken(g.RelationType) + " " + spoken(g.To) + "."
			return sink.Record(where, learning(text, provServerMemory, []string{g.From, g.To}, now, opts))
		}
		return sink.Fault(where, fmt.Errorf("type %q is neither entity nor relation", g.Type))
	})
}

func entityTags(name, typ string) []string {
	if typ == "" {
		return []string{name}
	}
	return []string{name, "type:" + typ}
}

// spoken is a graph name as prose: John_Smith, works_at → John Smith, works at.
func spoken(name string) string { return strings.ReplaceAll(strings.TrimSpace(name), "_", " ") }
