package bert

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testWords are the whole words of the tests' vocabulary; each also
// lends its vocabulary a prefix and a "##" rest, so that WordPiece splits
// words it does not hold whole.
var testWords = strings.Fields(`the a an of to in is it and or for on with as at by from
weather lovely today sunny outside he she drove stadium how many people live berlin had
population registered inhabitants area square kilometers well known museums city river
cafe naive resume doctor physician salary pay meeting notes project deadline friday monday
memory search model vector sentence token embed rank query answer question note remember
running walked jumps quickly happier unbelievable internationalization tokenizer
hello world good morning night coffee tea water blue green red house car train plane
i you we they my your our their this that these those what which who when where why
did decide about
one two three four five six seven eight nine ten 2026 100 3 520 031 891 82`)

// testVocab is a small BERT vocabulary: the special tokens, single
// characters and their "##" forms (but a few, which become [UNK]), a few
// CJK characters, suffixes, and the words with their pieces.
func testVocab() []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			v = append(v, t)
		}
	}
	for c := '!'; c <= '~'; c++ {
		if c == 'q' || c == 'z' { // left out: words with them are [UNK]
			continue
		}
		add(string(c))
		add("##" + string(c))
	}
	for _, c := range "中国人日本北京东京你好的" {
		add(string(c))
	}
	for _, s := range []string{"##ing", "##ed", "##s", "##ly", "##er", "##tion", "##able", "##ness", "un", "##ize", "##al"} {
		add(s)
	}
	for _, w := range testWords {
		add(w)
		if len(w) > 4 {
			add(w[:3])
			add("##" + w[3:])
		}
	}
	return v
}

// testConfig is a small BERT's shape.
func testConfig(vocab int) Config {
	return Config{VocabSize: vocab, Hidden: 32, Layers: 2, Heads: 4, Intermediate: 64,
		MaxPositions: 64, TypeVocabSize: 2, LayerNormEps: 1e-12, HiddenAct: "gelu"}
}

// randomTensors are RandomTensors, under the name the tests know.
func randomTensors(c Config, seed uint64, head bool) map[string]Tensor {
	return RandomTensors(c, seed, head)
}

// writeModelDir writes a model directory as the hub serves one.
func writeModelDir(tb testing.TB, dir string, c Config, vocab []string, ts map[string]Tensor) {
	tb.Helper()
	files, err := ModelFiles(c, vocab, ts)
	if err != nil {
		tb.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// modelTools is the directory of the reference npm packages
// (scripts/model-tools.sh installs them). Without them a test skips,
// unless OPENHUMAN_TEST_MODELS=1 says they must be there.
func modelTools(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("OPENHUMAN_MODEL_TOOLS")
	if dir == "" {
		wd, _ := os.Getwd()
		for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
				dir = filepath.Join(d, ".cache", "model", "node_modules")
				break
			}
		}
	}
	_, nodeErr := exec.LookPath("node")
	_, dirErr := os.Stat(filepath.Join(dir, "onnxruntime-node"))
	if nodeErr == nil && dirErr == nil {
		return dir
	}
	msg := "the reference tools are missing (node, or the npm packages in " + dir + "): run scripts/model-tools.sh"
	if os.Getenv("OPENHUMAN_TEST_MODELS") == "1" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// runNode runs a script of testdata with tools as its node_modules, in
// JSON on stdin, and decodes its JSON answer into out.
func runNode(tb testing.TB, tools, script string, in, out any) {
	tb.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", script))
	cmd.Env = append(os.Environ(), "NODE_PATH="+tools, "MODEL_TOOLS="+tools)
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		tb.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		tb.Fatalf("node %s answered %.200q: %v", script, res, err)
	}
}
