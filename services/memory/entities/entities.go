// Package entities finds what a text mentions: emails, URLs, @handles,
// #hashtags and capitalised names or terms, each with a canonical id that
// the memory tree browses by. Pure text.
package entities

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/pkg/secrets"
	"github.com/openhuman-go/openhuman-go/services/memory/chunking"
	"github.com/openhuman-go/openhuman-go/services/memory/lexicon"
)

// Entity is something an item mentions. ID is canonical: kind, a colon and
// the lowercased surface without a leading @ or #. It is declared in
// pkg/contract, which publishes it in tree.read_chunk's output schema.
type Entity = contract.Entity

// Entity kinds.
const (
	Email   = "email"
	URL     = "url"
	Handle  = "handle"
	Hashtag = "hashtag"
	Term    = "term" // a capitalized name or term: Maya, PostgreSQL, Project Atlas
)

var (
	reEmail   = regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b`)
	reURL     = regexp.MustCompile(`\bhttps?://[^\s<>()"']+[^\s<>()"'.,;:!?]`)
	reHandle  = regexp.MustCompile(`(?:^|[^\w@])@([A-Za-z0-9_][A-Za-z0-9_.-]{1,38})`)
	reHashtag = regexp.MustCompile(`(?:^|[^\w#&])#([A-Za-z][A-Za-z0-9_-]{1,49})`)
	reTerm    = regexp.MustCompile(`\b\p{Lu}[\p{L}\p{N}]*(?:[ -]\p{Lu}[\p{L}\p{N}]*)*`)
)

// maxEntities bounds what one item contributes.
const maxEntities = 32

var (
	// A dotted chain that starts with a lowercase name is an API call or a
	// field (fmt.Errorf, t.Fatalf, rows.Scan, memory.Item), in code or
	// quoted in prose: its capitalized parts are not names.
	reSelector = regexp.MustCompile(`\b[\p{Ll}_][\p{L}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{N}_]*)+`)
	// In code, so is one that starts with a capital (JSON.parse,
	// Object.keys, System.out.println), and so is a path (std::io::Read).
	reCodeSelector = regexp.MustCompile(`\b[\p{L}_][\p{L}\p{N}_]*(?:(?:\.|::)[\p{L}_][\p{L}\p{N}_]*)+`)
	// In code, a name followed by a colon is a key: a field set in a
	// composite literal (Item{Kind: ...}), a map key, a label.
	reCodeKey = regexp.MustCompile(`\b[\p{L}_][\p{L}\p{N}_]*:(?:[^:]|$)`)
)

// Extract finds emails, URLs, @handles, #hashtags and capitalized
// names or terms. A capitalized word that only starts a sentence and is a
// common word ("The", "We") is not a term, nor is one called through a
// package or receiver (fmt.Errorf, t.Fatalf). In code (language is one
// ChunkText splits by declarations) keywords, builtins and markers
// (SELECT, None, String, TODO) are not terms either, and an @ or # is an
// annotation, a directive or a colour, not a handle or hashtag.
func Extract(text, language string) []Entity {
	code := chunking.IsCode(language)
	seen := map[string]bool{}
	var out []Entity
	add := func(kind, surface string) {
		surface = strings.TrimSpace(surface)
		id := kind + ":" + strings.ToLower(surface)
		// Scrub's [REDACTED:<kind>] marks where a secret was, not a name.
		if surface == "" || surface == secrets.RedactedPrefix[1:] || seen[id] || len(out) >= maxEntities {
			return
		}
		seen[id] = true
		out = append(out, Entity{ID: id, Kind: kind, Surface: surface})
	}
	// Emails and URLs first, and blanked out, so their parts are not read
	// again as handles or terms.
	rest := text
	if strings.Contains(rest, "@") {
		for _, m := range reEmail.FindAllString(rest, -1) {
			add(Email, m)
		}
		rest = reEmail.ReplaceAllString(rest, " ")
	}
	if strings.Contains(rest, "://") {
		for _, m := range reURL.FindAllString(rest, -1) {
			add(URL, m)
		}
		rest = reURL.ReplaceAllString(rest, " ")
	}
	if strings.Contains(rest, "@") {
		if !code {
			for _, m := range reHandle.FindAllStringSubmatch(rest, -1) {
				add(Handle, strings.TrimRight(m[1], ".-"))
			}
		}
		rest = reHandle.ReplaceAllString(rest, " ")
	}
	if strings.Contains(rest, "#") {
		if !code {
			for _, m := range reHashtag.FindAllStringSubmatch(rest, -1) {
				add(Hashtag, m[1])
			}
		}
		rest = reHashtag.ReplaceAllString(rest, " ")
	}
	if code {
		rest = reCodeSelector.ReplaceAllString(rest, " ")
		rest = reCodeKey.ReplaceAllString(rest, " ")
	} else if strings.Contains(rest, ".") {
		rest = reSelector.ReplaceAllString(rest, " ")
	}
	for _, loc := range reTerm.FindAllStringIndex(rest, -1) {
		surface := rest[loc[0]:loc[1]]
		first := true
		for _, words := range termRuns(strings.Fields(strings.ReplaceAll(surface, "-", " ")), code) {
			// Drop common words that are capitalized only because they start a
			// sentence or a title ("The", "When").
			for len(words) > 0 && lexicon.Stopword(strings.ToLower(words[0])) {
				words = words[1:]
			}
			if len(words) == 0 || (len(words) == 1 && len([]rune(words[0])) < 2) {
				continue
			}
			if first && len(words) == 1 && atSentenceStart(rest, loc[0], code) && !hasInnerUpper(words[0]) && commonWord(words[0]) {
				continue
			}
			first = false
			add(Term, strings.Join(words, " "))
		}
	}
	return out
}

// termRuns splits a run of capitalized words at the words code uses as
// keywords or builtins, which it drops; outside code it is one run.
func termRuns(words []string, code bool) [][]string {
	if !code {
		return [][]string{words}
	}
	var out [][]string
	start := 0
	for i, w := range words {
		if codeWords[w] {
			if i > start {
				out = append(out, words[start:i])
			}
			start = i + 1
		}
	}
	if start < len(words) {
		out = append(out, words[start:])
	}
	return out
}

// codeWords are capitalized words that code is full of and that name
// nothing of the project: SQL keywords, literals and builtins of common
// languages, comment markers. Case matters: "Text" may be a type, "TEXT"
// is a column type.
var codeWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`SELECT FROM WHERE AND OR NOT NULL IS IN LIKE EXISTS INSERT INTO VALUES UPDATE SET DELETE
		CREATE DROP ALTER ADD TABLE INDEX VIEW TRIGGER COLUMN PRIMARY FOREIGN KEY UNIQUE CHECK DEFAULT REFERENCES ON
		CASCADE INTEGER INT TEXT REAL BLOB VARCHAR BOOLEAN TIMESTAMP AUTOINCREMENT ORDER GROUP BY HAVING ASC DESC
		LIMIT OFFSET JOIN LEFT RIGHT INNER OUTER AS DISTINCT COUNT CASE WHEN THEN ELSE END UNION ALL BEGIN COMMIT
		ROLLBACK IF BEFORE AFTER FOR EACH ROW WITHOUT ROWID VIRTUAL USING REPLACE CONFLICT DO NOTHING PRAGMA
		TODO FIXME XXX HACK NOTE BUG
		True False None Null Nil Self Some Ok Err Println Printf Sprintf Errorf Fatalf Logf
		String Object Array Number Boolean Promise Error Exception Map Set List Integer Long Double Float Void
		Math JSON Date Console System Override Deprecated Optional Vec Box Option Result Debug Clone Default Copy`) {
		m[w] = true
	}
	return m
}()

// atSentenceStart reports whether s[i:] starts a sentence; in code, the
// first word of a comment does too.
func atSentenceStart(s string, i int, code bool) bool {
	j := strings.LastIndexFunc(s[:i], func(r rune) bool { return !unicode.IsSpace(r) })
	starts := ".!?:\n#"
	if code {
		starts += "/*"
	}
	return j < 0 || strings.ContainsRune(starts, rune(s[j]))
}

func hasInnerUpper(w string) bool {
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// commonWord reports whether a capitalized word is an ordinary word that a
// sentence happens to start with. Without a dictionary, a short list of
// frequent sentence openers does.
func commonWord(w string) bool {
	return sentenceOpeners[strings.ToLower(w)]
}

var sentenceOpeners = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`add ask call check do don't ensure fix keep make ping read remember see send try write
		also always and another any as at back because before but by daily database deploy
		deploys each every first for from hotfixes however if in incidents into its last let logs many maybe most my
		new next no not note now of on once one only or our please production releases run run schema secrets
		service services some staging still that the then there these they this those to today tomorrow use we
		when while why with yes yesterday you`) {
		m[w] = true
	}
	return m
}()
