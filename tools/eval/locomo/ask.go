package locomo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openhuman-go/openhuman-go/services/memory"
)

// The two ways a user can store a conversation: a learning per turn, in
// the paper's baseline form, or `ingest --conversation` with a thread per
// session, speakers and times.
const (
	AsLearnings    = "learnings"
	AsConversation = "conversation"
)

// Loads are both ways, in the order the tables print them.
var Loads = []string{AsLearnings, AsConversation}

// Loaded is a conversation stored in a memory, with what each of its
// items holds.
type Loaded struct {
	Mem  *Memory
	Conv Conversation
	Load string
	dias map[string][]string // item id → the turns it holds
}

// Half names the half the conversation belongs to.
func (l *Loaded) Half() string {
	if HeldOut(l.Conv.ID) {
		return "held-out"
	}
	return "design"
}

// Store stores c in m the way load says.
func Store(ctx context.Context, m *Memory, c Conversation, load string) (*Loaded, error) {
	l := &Loaded{Mem: m, Conv: c, Load: load, dias: map[string][]string{}}
	if load == AsLearnings {
		for _, s := range c.Sessions {
			for _, turn := range s.Turns {
				res, err := m.Svc.Learn(ctx, memory.LearnParams{Text: LearningText(s, turn)}, Caller)
				if err != nil {
					return nil, fmt.Errorf("conv-%s: learn: %w", c.ID, err)
				}
				l.dias[res.ID] = append(l.dias[res.ID], turn.DiaID)
			}
		}
		return l, nil
	}
	byText := map[string][]string{}
	for _, s := range c.Sessions {
		var turns []memory.Turn
		for i, turn := range s.Turns {
			t := memory.Turn{ThreadID: fmt.Sprintf("conv-%s/session_%d", c.ID, s.N), Speaker: turn.Speaker, Text: TurnText(turn)}
			if !s.When.IsZero() {
				t.Timestamp = s.When.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
			}
			turns = append(turns, t)
			key := norm(turn.Speaker + ": " + TurnText(turn))
			byText[key] = append(byText[key], turn.DiaID)
		}
		if _, err := m.Svc.IngestConversation(ctx, memory.ConversationParams{Turns: turns}, Caller); err != nil {
			return nil, fmt.Errorf("conv-%s session %d: %w", c.ID, s.N, err)
		}
	}
	return l, l.mapTurns(ctx, byText)
}

// mapTurns learns the turns' ids from listing them; each is known by its
// text. Only conversation items are listed: a mixed memory holds
// documents too.
func (l *Loaded) mapTurns(ctx context.Context, byText map[string][]string) error {
	p := memory.ListParams{Limit: 100, Filter: &memory.Filter{Kinds: []string{"conversation"}}}
	for {
		page, err := l.Mem.Svc.List(ctx, p, Caller)
		if err != nil {
			return fmt.Errorf("conv-%s: list: %w", l.Conv.ID, err)
		}
		for _, it := range page.Items {
			d, ok := byText[norm(it.Text)]
			if !ok {
				return fmt.Errorf("conv-%s: a listed item is no turn: %q", l.Conv.ID, it.Text)
			}
			l.dias[it.ID] = d
		}
		if p.Cursor = page.NextCursor; p.Cursor == "" {
			return nil
		}
	}
}

// norm is a text as memory keeps it, which trims and folds the spaces
// some turns of the data end in.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// Ask asks every answerable question through memory.fetch in each of modes
// and through memory.recall, and the adversarial ones through recall, and
// scores them into rep under the conversation's half and load.
func (l *Loaded) Ask(ctx context.Context, rep *Report, modes []string) error {
	half, svc := l.Half(), l.Mem.Svc
	for _, q := range l.Conv.Questions {
		if q.Category == 5 {
			rec, err := svc.Recall(ctx, memory.RecallParams{Question: q.Text}, Caller)
			if err != nil {
				return fmt.Errorf("conv-%s %s: recall: %w", l.Conv.ID, l.Load, err)
			}
			rep.Adversarial[half+"|"+l.Load]++
			if strings.HasPrefix(rec.Answer, "I don't know") {
				rep.IDK[half+"|"+l.Load]++
			}
			continue
		}
		if len(q.Evidence) == 0 {
			continue
		}
		cats := []string{Categories[q.Category], "all"}
		var top string // the hybrid fetch's first hit
		topEvidence := false
		for _, mode := range modes {
			start := time.Now()
			res, err := svc.Fetch(ctx, memory.FetchParams{Query: q.Text, Mode: mode, Limit: 10}, Caller)
			if err != nil {
				return fmt.Errorf("conv-%s %s: fetch: %w", l.Conv.ID, l.Load, err)
			}
			if l.Load == AsLearnings {
				rep.Latency(mode, time.Since(start))
			}
			var hits [][]string
			for _, h := range res.Hits {
				hits = append(hits, l.dias[h.ID])
			}
			for _, c := range cats {
				rep.At(half, l.Load, mode, c).Add(hits, q.Evidence)
			}
			if mode == "hybrid" && len(hits) > 0 {
				top, topEvidence = res.Hits[0].ID, share(hits, q.Evidence, 1) > 0
			}
		}
		rec, err := svc.Recall(ctx, memory.RecallParams{Question: q.Text}, Caller)
		if err != nil {
			return fmt.Errorf("conv-%s %s: recall: %w", l.Conv.ID, l.Load, err)
		}
		var first []string
		followed := false
		if len(rec.Citations) > 0 {
			first, followed = l.dias[rec.Citations[0].ID], rec.Citations[0].ID == top
		}
		for _, c := range cats {
			rep.At(half, l.Load, "hybrid", c).AddCitation(first, q.Evidence, topEvidence, followed)
		}
	}
	return nil
}
