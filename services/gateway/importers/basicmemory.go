package importers

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// basic-memory (basicmachines-co/basic-memory) keeps a knowledge base as a
// folder of Markdown notes, each with YAML front matter (title, type,
// permalink, tags) and a body whose observations are "- [category] text
// #tag" and whose relations are "- relation_type [[Other Note]]". A note
// becomes one document: its title as the first line, its body as written
// (wiki links and all, so the relations stay in the text), its tags, its
// permalink as its source (basic-memory:<permalink>) and its path.

type frontMatter struct {
	Title     string `yaml:"title"`
	Type      string `yaml:"type"`
	Permalink string `yaml:"permalink"`
	Tags      any    `yaml:"tags"`
	Created   any    `yaml:"created"`
	Modified  any    `yaml:"modified"`
}

const provBasicMemory = "import:basic-memory"

func readBasicMemory(root string, opts Options, sink Sink) error {
	info, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return readNote(filepath.Dir(root), root, opts, sink)
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // .basic-memory, .git, .obsidian
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(path), ".md") {
			return nil
		}
		return readNote(root, path, opts, sink)
	})
}

func readNote(root, path string, opts Options, sink Sink) error {
	rel, _ := filepath.Rel(root, path)
	rel = filepath.ToSlash(rel)
	data, err := os.ReadFile(path)
	if err != nil {
		return sink.Fault(rel, err)
	}
	if !utf8.Valid(data) {
		return sink.Fault(rel, fmt.Errorf("not UTF-8 text"))
	}
	var fm frontMatter
	body := data
	if rest, ok := bytes.CutPrefix(bytes.TrimLeft(data, "\ufeff"), []byte("---\n")); ok {
		head, tail, found := bytes.Cut(rest, []byte("\n---"))
		if !found {
			return sink.Fault(rel, fmt.Errorf("its front matter has no closing ---"))
		}
		if err := yaml.Unmarshal(head, &fm); err != nil {
			return sink.Fault(rel, fmt.Errorf("its front matter is not YAML: %v", err))
		}
		body = bytes.TrimLeft(tail, "-")
	}
	title := strings.TrimSpace(fm.Title)
	if title == "" {
		title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	permalink := strings.TrimSpace(fm.Permalink)
	if permalink == "" {
		permalink = strings.ToLower(strings.TrimSuffix(rel, filepath.Ext(rel)))
	}
	text := strings.TrimSpace(string(body))
	if !strings.HasPrefix(text, "# ") {
		text = "# " + title + "\n\n" + text
	}
	if len(text) > contract.MaxExportText {
		return sink.Fault(rel, fmt.Errorf("the note is %d bytes, more than the %d an item holds: ingest it with openhuman-core ingest, which cuts it into chunks", len(text), contract.MaxExportText))
	}
	observed := opts.now()
	if st, err := os.Stat(path); err == nil {
		observed = st.ModTime().UTC()
	}
	if t, ok := parseTime(fm.Modified); ok {
		observed = t
	}
	created := observed
	if t, ok := parseTime(fm.Created); ok {
		created = t
	}
	rec := contract.ExportRecord{V: contract.ExportVersion, Kind: "document", Text: text, Tags: noteTags(fm.Tags),
		Provenance: provBasicMemory, Source: "import", SourceID: "basic-memory:" + permalink,
		Meta:       contract.Meta{Workspace: opts.Workspace, FilePath: rel, Language: "markdown"},
		ObservedAt: observed.Format(timeLayout), CreatedAt: created.Format(timeLayout)}
	return sink.Record(rel, rec)
}

// noteTags reads front matter tags: a list, or one string of tags split
// by commas or spaces.
func noteTags(v any) []string {
	var raw []string
	switch t := v.(type) {
	case string:
		raw = strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' })
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				raw = append(raw, s)
			}
		}
	}
	var out []string
	for _, s := range raw {
		if s = strings.TrimPrefix(strings.TrimSpace(s), "#"); s != "" {
			out = append(out, s)
		}
	}
	return out
}
