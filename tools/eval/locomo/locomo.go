// Package locomo reads the LoCoMo benchmark (Maharana et al., "Evaluating
// Very Long-Term Conversational Memory of LLM Agents", ACL 2024): ten long
// conversations between two people over many sessions, and questions about
// them, each naming the dialog turns that hold its evidence; and the
// retrieval evaluation on it (`make eval-locomo`), which stores each
// conversation in a memory of its own, alone or beside a folder of
// documents (the mixed memory), and asks the questions of memory's service
// through its Go API, as the bus would.
//
// The data is CC BY-NC 4.0 and never part of this repository: Find looks
// for it in LOCOMO_DATA, else in ../shared/data/locomo beside the checkout,
// and says where to get it when it is in neither.
package locomo

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Design names the conversations retrieval may be tuned on; every other one
// is held out and only reported. The split was fixed before any tuning.
var Design = []string{"26", "30", "41", "42", "43"}

// HeldOut reports whether conversation id is in the reported half.
func HeldOut(id string) bool { return !slices.Contains(Design, id) }

// Categories are the question kinds of the paper, by their number in the data.
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// Conversation is one of the ten, with its questions.
type Conversation struct {
	ID        string
	Speakers  [2]string
	Sessions  []Session
	Questions []Question
}

// Session is one sitting of the conversation.
type Session struct {
	N        int
	WhenText string    // as the data writes it: "1:56 pm on 8 May, 2023"
	When     time.Time // the same, parsed; zero when it does not parse
	Turns    []Turn
}

// Turn is one message.
type Turn struct {
	DiaID   string // "D3:12": session 3, turn 12
	Speaker string
	Text    string
	Caption string // what the paper's captioner saw in a shared image
}

// Question is one question with the turns that answer it.
type Question struct {
	Text     string
	Answer   string
	Evidence []string // dia ids; only ids of turns the conversation has
	Category int
}

// Turns lists every turn in order.
func (c Conversation) Turns() []Turn {
	var out []Turn
	for _, s := range c.Sessions {
		out = append(out, s.Turns...)
	}
	return out
}

// LearningText is a turn as the paper's retrieval baseline stores it: the
// session's date, who said it, what they said, and what they shared.
func LearningText(s Session, t Turn) string {
	text := fmt.Sprintf("(%s) %s said, %q", s.WhenText, t.Speaker, t.Text)
	if t.Caption != "" {
		text += " [shares " + t.Caption + "]"
	}
	return text
}

// TurnText is what a turn says with its shared image, without the date and
// speaker a conversation item carries on its own.
func TurnText(t Turn) string {
	if t.Caption != "" {
		return t.Text + " [shares " + t.Caption + "]"
	}
	return t.Text
}

const where = "LoCoMo is data/locomo10.zip of github.com/snap-research/locomo (CC BY-NC 4.0); " +
	"set LOCOMO_DATA to that zip or to a folder of its <id>.json files"

// Find returns the path of the data: LOCOMO_DATA, else ../shared/data/locomo
// beside the checkout holding dir. The error says where to get it.
func Find(dir string) (string, error) {
	if p := os.Getenv("LOCOMO_DATA"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("LOCOMO_DATA: %v; %s", err, where)
		}
		return p, nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			p := filepath.Join(filepath.Dir(d), "shared", "data", "locomo")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("no LoCoMo data at %s; %s", p, where)
			}
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no LoCoMo data (LOCOMO_DATA is not set); %s", where)
		}
	}
}

// FindAndLoad loads the data Find finds from dir.
func FindAndLoad(dir string) ([]Conversation, error) {
	path, err := Find(dir)
	if err != nil {
		return nil, err
	}
	return Load(path)
}

// Load reads every conversation from path: the zip, a folder holding it, or
// a folder of <id>.json files. They come sorted by id.
func Load(path string) ([]Conversation, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "locomo10.zip")); err == nil {
			path = filepath.Join(path, "locomo10.zip")
		} else {
			return loadFS(os.DirFS(path), path)
		}
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v; %s", path, err, where)
	}
	defer zr.Close()
	return loadFS(zr, path)
}

func loadFS(fsys fs.FS, name string) ([]Conversation, error) {
	var out []Conversation
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		c, err := Parse(strings.TrimSuffix(filepath.Base(p), ".json"), f)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", name, p, err)
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no conversation (<id>.json); %s", name, where)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// Parse reads one conversation in the form of locomo10_v2/<id>.json.
func Parse(id string, r io.Reader) (Conversation, error) {
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return Conversation{}, err
	}
	c := Conversation{ID: id}
	_ = json.Unmarshal(raw["speaker_a"], &c.Speakers[0])
	_ = json.Unmarshal(raw["speaker_b"], &c.Speakers[1])
	known := map[string]bool{}
	for k, v := range raw {
		m := sessionKey.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		s := Session{}
		s.N, _ = strconv.Atoi(m[1])
		var turns []struct {
			Speaker string `json:"speaker"`
			DiaID   string `json:"dia_id"`
			Text    string `json:"text"`
			Caption string `json:"blip_caption"`
		}
		if err := json.Unmarshal(v, &turns); err != nil {
			return Conversation{}, fmt.Errorf("%s: %v", k, err)
		}
		for _, t := range turns {
			s.Turns = append(s.Turns, Turn{DiaID: t.DiaID, Speaker: t.Speaker, Text: t.Text, Caption: t.Caption})
			known[t.DiaID] = true
		}
		_ = json.Unmarshal(raw[k+"_date_time"], &s.WhenText)
		s.When, _ = time.Parse("3:04 pm on 2 January, 2006", s.WhenText)
		c.Sessions = append(c.Sessions, s)
	}
	if len(c.Sessions) == 0 {
		return Conversation{}, fmt.Errorf("no session_N lists of turns")
	}
	sort.Slice(c.Sessions, func(i, j int) bool { return c.Sessions[i].N < c.Sessions[j].N })
	var qa []struct {
		Question string          `json:"question"`
		Answer   json.RawMessage `json:"answer"`
		Evidence []string        `json:"evidence"`
		Category int             `json:"category"`
	}
	if err := json.Unmarshal(raw["qa"], &qa); err != nil {
		return Conversation{}, fmt.Errorf("qa: %v", err)
	}
	for _, q := range qa {
		c.Questions = append(c.Questions, Question{Text: q.Question, Answer: answerText(q.Answer),
			Evidence: evidence(q.Evidence, known), Category: q.Category})
	}
	return c, nil
}

// answerText is an answer the data writes as a string or a number.
func answerText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// evidence splits the few entries that hold several ids ("D8:6; D9:17")
// and keeps the ids of turns the conversation has: a handful name turns that
// do not exist, and a question left without evidence is not scored.
func evidence(in []string, known map[string]bool) []string {
	var out []string
	for _, e := range in {
		for _, id := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
			if known[id] && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}
