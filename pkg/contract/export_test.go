package contract_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// TestExportSchemaDoc keeps docs/export.schema.json the schema import
// checks every line against (OPENHUMAN_UPDATE_DOCS=1 writes it).
func TestExportSchemaDoc(t *testing.T) {
	doc := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "https://github.com/openhuman-go/openhuman-go/docs/export.schema.json",
		"title":   "openhuman-core export, format version 1: one such object per line (JSON Lines)",
	}
	b, _ := json.Marshal(contract.ExportRecordSchema())
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for k, v := range s {
		doc[k] = v
	}
	want, _ := json.MarshalIndent(doc, "", "  ")
	want = append(want, '\n')
	const path = "../../docs/export.schema.json"
	if os.Getenv("OPENHUMAN_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from contract.ExportRecordSchema(): run OPENHUMAN_UPDATE_DOCS=1 go test -run TestExportSchemaDoc ./contract/ in pkg", path)
	}
}

// TestExportRecordSchema: what export writes passes the schema import
// checks lines with, and the faults a person makes are named by field.
func TestExportRecordSchema(t *testing.T) {
	conf := 0.8
	rec := contract.ExportRecord{V: 1, ID: "0123456789abcdef0123456789abcdef", Kind: "learning", LearningKind: "fact", Confidence: &conf,
		Text: "Maya prefers tea.", Tags: []string{"tea"}, Provenance: "mcp:cursor", Source: "client",
		Meta: contract.Meta{Workspace: "work"}, ObservedAt: "2026-01-02T03:04:05Z", CreatedAt: "2026-01-02T03:04:05.123Z"}
	check := func(r any) error {
		b, _ := json.Marshal(r)
		args, err := contract.DecodeArguments(b)
		if err != nil {
			t.Fatal(err)
		}
		return contract.ExportRecordSchema().Validate(args)
	}
	if err := check(rec); err != nil {
		t.Fatalf("an exported record fails the schema: %v", err)
	}
	for name, bad := range map[string]map[string]any{
		"kind":        {"v": 1, "kind": "note", "text": "x"},
		"text":        {"v": 1, "kind": "learning"},
		"observed_at": {"v": 1, "kind": "learning", "text": "x", "observed_at": "yesterday"},
		"bogus":       {"v": 1, "kind": "learning", "text": "x", "bogus": 1},
		"workspace":   {"v": 1, "kind": "learning", "text": "x", "meta": map[string]any{"workspace": "../x"}},
	} {
		err := check(bad)
		if err == nil {
			t.Errorf("%s: a record with a bad %s passed", name, name)
			continue
		}
		if !bytes.Contains([]byte(contract.ErrorMessage(err)), []byte(name)) {
			t.Errorf("%s: the error does not name the field: %v", name, err)
		}
	}
}
