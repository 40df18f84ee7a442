package chunking

import (
	"strings"
	"testing"
)

func TestChunkMarkdownByHeadings(t *testing.T) {
	doc := "# Ops\nIntro line.\n\n## Deploying\nRun make deploy.\n\n```sh\n# not a heading\nmake promote\n```\n\n## Rollback\nRun make rollback.\n"
	chunks := Text(doc, "markdown", 400)
	var refs []string
	for _, c := range chunks {
		refs = append(refs, c.Ref)
	}
	if strings.Join(refs, "|") != "Ops|Ops > Deploying|Ops > Rollback" {
		t.Fatalf("refs %q", refs)
	}
	// A heading with nothing under it leads into the next section.
	nested := Text("# Guide\n\n## Install\nRun it.\n", "markdown", 400)
	if len(nested) != 1 || nested[0].Ref != "Guide > Install" || !strings.HasPrefix(nested[0].Text, "# Guide\n\n## Install") {
		t.Errorf("%+v", nested)
	}
	if !strings.Contains(chunks[1].Text, "# not a heading") || !strings.Contains(chunks[1].Text, "make promote") {
		t.Errorf("fenced code split: %q", chunks[1].Text)
	}
}

func TestChunkCodeByDeclarations(t *testing.T) {
	src := "package x\n\nimport \"fmt\"\n\n// Hello greets.\nfunc Hello() {\n\tfmt.Println(\"hi\")\n}\n\n// Bye waves.\nfunc Bye() {}\n"
	chunks := Text(src, "go", 10)
	joined := ""
	for _, c := range chunks {
		joined += "[" + c.Ref + "]" + c.Text + "\n"
		if EstimateTokens(c.Text) > 10 && !strings.HasPrefix(c.Text, "// Hello") {
			t.Errorf("chunk over budget: %q", c.Text)
		}
	}
	if !strings.Contains(joined, "// Hello greets.\nfunc Hello()") || !strings.Contains(joined, "// Bye waves.\nfunc Bye() {}") {
		t.Errorf("a comment left its declaration:\n%s", joined)
	}
	if !strings.Contains(joined, "[lines 1-") {
		t.Errorf("refs are line ranges:\n%s", joined)
	}
}

func TestChunkBudgetAndBigText(t *testing.T) {
	para := strings.Repeat("word ", 100)
	text := strings.Repeat(para+"\n\n", 12) + strings.Repeat("x", 10000)
	chunks := Text(text, "text", 200)
	total := 0
	for _, c := range chunks {
		if EstimateTokens(c.Text) > 200 {
			t.Errorf("chunk of %d tokens over the 200 budget", EstimateTokens(c.Text))
		}
		total += len(strings.ReplaceAll(strings.ReplaceAll(c.Text, "\n", ""), " ", ""))
	}
	if want := len(strings.ReplaceAll(strings.ReplaceAll(text, "\n", ""), " ", "")); total != want {
		t.Errorf("chunks hold %d characters of %d: text lost or repeated", total, want)
	}
	if Text("   \n\n  ", "text", 200) != nil {
		t.Error("blank text makes chunks")
	}
}

func TestChunkCodeKeepsImportsApart(t *testing.T) {
	for lang, src := range map[string]string{
		"go":         "// Package x greets.\npackage x\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n// Hello greets.\nfunc Hello() { fmt.Println(strings.ToUpper(\"hi\")) }\n",
		"python":     "import os\nfrom typing import (\n    List,\n)\n\n# Hello greets.\ndef hello():\n    print(os.getcwd())\n",
		"javascript": "import {\n  a,\n} from './a.js';\nconst fs = require('fs');\n\n// hello greets.\nfunction hello() { return a; }\n",
		"c":          "#include <stdio.h>\n#include \"x.h\"\n\n/* hello greets. */\nint hello(void) { return 0; }\n",
	} {
		chunks := Text(src, lang, 400)
		if len(chunks) != 2 || strings.Contains(chunks[0].Text, "hello") || strings.Contains(chunks[0].Text, "Hello greets") ||
			!strings.Contains(chunks[1].Text, "ello greets") {
			t.Errorf("%s: %q", lang, chunks)
		}
		if WithoutImports(chunks[0].Text) != map[string]string{"go": "// Package x greets."}[lang] {
			t.Errorf("%s: %q is quotable", lang, WithoutImports(chunks[0].Text))
		}
	}
	// A package clause without imports is no chunk by itself.
	if chunks := Text("package main\n\n// Serve serves.\nfunc Serve() {}\n", "go", 400); len(chunks) != 1 {
		t.Errorf("%q", chunks)
	}
}
