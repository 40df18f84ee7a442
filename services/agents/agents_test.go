package agents

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// The resource catalog must mirror the built-ins: a sub-agent without a
// prompt resource, or a prompt without a sub-agent, fails here.
func TestCatalogMirrorsBuiltins(t *testing.T) {
	if len(builtins) != 15 {
		t.Errorf("%d built-in sub-agents, want 15", len(builtins))
	}
	resources := map[string]bool{}
	for _, r := range Resources() {
		resources[r.URI] = true
		if r.MimeType != "text/markdown" {
			t.Errorf("%s: mime type %s", r.URI, r.MimeType)
		}
	}
	ids := map[string]bool{}
	for _, d := range builtins {
		ids[d.ID] = true
		if !resources[ResourcePrefix+"agents/"+d.ID] {
			t.Errorf("built-in %s has no resource", d.ID)
		}
		if p, ok := Prompt(d.ID); !ok || !strings.HasPrefix(p, "# ") || len(p) < 300 {
			t.Errorf("built-in %s: prompt.md missing or too thin", d.ID)
		}
	}
	dirs, err := fs.ReadDir(promptFS, "prompts/agents")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !ids[d.Name()] {
			t.Errorf("prompts/agents/%s has no built-in definition", d.Name())
		}
	}
	if len(Resources()) != 3+len(builtins) {
		t.Errorf("%d resources, want %d", len(Resources()), 3+len(builtins))
	}
}

// Tools a sub-agent may name besides the catalog's: the run tool its own
// service adds.
var laterTools = map[string]bool{"agent.run_subagent": true}

func TestDefinitionsAreValid(t *testing.T) {
	idPattern := regexp.MustCompile(`^[a-z][a-z_]*$`)
	for _, d := range Builtins() {
		if !idPattern.MatchString(d.ID) || d.DisplayName == "" || d.WhenToUse == "" {
			t.Errorf("%+v: id, display_name and when_to_use are required", d)
		}
		if d.Temperature < 0 || d.Temperature > 1 || d.MaxIterations < 1 || d.MaxIterations > 20 {
			t.Errorf("%s: temperature %.1f / max_iterations %d out of range", d.ID, d.Temperature, d.MaxIterations)
		}
		writes := false
		for _, tool := range d.Tools {
			ct, ok := contract.ToolByName(tool)
			if !ok && !laterTools[tool] {
				t.Errorf("%s: unknown tool %s", d.ID, tool)
			}
			writes = writes || ct.Writes
		}
		if want := map[bool]string{true: SandboxMemoryWrite, false: SandboxReadOnly}[writes]; d.SandboxMode != want {
			t.Errorf("%s: sandbox_mode %s, but its tools say %s", d.ID, d.SandboxMode, want)
		}
	}
}

func TestReadResource(t *testing.T) {
	for _, uri := range []string{"openhuman://prompts/identity", "openhuman://prompts/soul", "openhuman://prompts/user", "openhuman://prompts/agents/librarian"} {
		res, err := ReadResource(uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		c := res.Contents[0]
		if c.URI != uri || c.MimeType != "text/markdown" || !strings.HasPrefix(c.Text, "# ") {
			t.Errorf("%s: %+v", uri, c)
		}
	}
	for _, uri := range []string{"", "openhuman://prompts/nope", "openhuman://prompts/agents/nope", "openhuman://prompts/agents/../identity",
		"openhuman://prompts/agents/", "file:///etc/passwd", "openhuman://prompts/identity.md"} {
		if _, err := ReadResource(uri); contract.ErrorCode(err) != contract.CodeNotFound {
			t.Errorf("%q: got %v, want NOT_FOUND", uri, err)
		}
	}
}

func TestToolCatalogAndInstructionsAgree(t *testing.T) {
	tools := CoreTools(contract.Tools())
	md := ToolInstructions(tools)
	for _, ct := range tools {
		if strings.HasPrefix(ct.Name, "core.") {
			t.Errorf("introspection tool %s in the agent catalog", ct.Name)
		}
		if !strings.Contains(md, "### `"+ct.Name+"`") {
			t.Errorf("instructions lack %s", ct.Name)
		}
	}
	if !strings.Contains(md, "- `question` (string, required)") || !strings.Contains(md, "- `ids` (array of string, optional)") {
		t.Errorf("arguments not rendered:\n%s", md)
	}
	if strings.Contains(ToolInstructions(nil), "###") {
		t.Error("empty catalog still lists tools")
	}
}
