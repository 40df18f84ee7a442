package contract

import "testing"

func TestMCPSource(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Claude Desktop", "mcp:claude-desktop"},
		{"Cursor", "mcp:cursor"},
		{"  Windsurf  ", "mcp:windsurf"},
		{"zed_editor v2.0", "mcp:zed-editor-v2-0"},
		{"--Codex--", "mcp:codex"},
		{"Ünïcode Client", "mcp:n-code-client"},
		{"", "mcp"},
		{"   ", "mcp"},
		{"!!!", "mcp"},
		{"日本語", "mcp"},
	} {
		if got := MCPSource(tc.in); got != tc.want {
			t.Errorf("MCPSource(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
