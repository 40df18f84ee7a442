package console

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// tokenPlaceholder stands for the person's token: the console never shows
// one, and does not know it (only its hash is configured).
const tokenPlaceholder = "<your token>"

type clientConfig struct {
	Client string
	// Where the configuration goes.
	Where string
	Text  string
	Note  string
}

// connect shows, for each MCP client, what connects it to this server:
// its URL as the browser reached it, or the binary for clients that start
// the server themselves.
func (c *Console) connect(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	url := scheme + "://" + r.Host + "/mcp"
	headers := map[string]string{}
	if !c.open() {
		headers["Authorization"] = "Bearer " + tokenPlaceholder
	}
	args := []string{"mcp"}
	if c.opts.Home != "" {
		args = []string{"--home", c.opts.Home, "mcp"}
	}
	exe := c.opts.Executable
	// Structs, not maps, so each configuration reads in the order its
	// client documents it.
	type stdioServer struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	type remoteServer struct {
		Type    string            `json:"type,omitempty"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	type zedServer struct {
		Source  string            `json:"source"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	stdio := stdioServer{Command: exe, Args: args}
	remote := remoteServer{URL: url, Headers: headers}
	vscode := remoteServer{Type: "http", URL: url, Headers: headers}
	zed := zedServer{Source: "custom", Command: exe, Args: args, Env: map[string]string{}}
	claudeHTTP := "claude mcp add --transport http openhuman " + url
	codexHTTP := "[mcp_servers.openhuman]\nurl = " + strconv.Quote(url)
	if len(headers) > 0 {
		claudeHTTP += " --header \"Authorization: Bearer " + tokenPlaceholder + "\""
		// Not OPENHUMAN_API_TOKEN: that is the variable serve reads as a
		// token of every scope, and a shell that exports it for Codex may
		// start serve too.
		codexHTTP += "\nbearer_token_env_var = \"OPENHUMAN_TOKEN\"   # export OPENHUMAN_TOKEN=<your token> before starting Codex"
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	configs := []clientConfig{
		{Client: "Claude Desktop", Where: "claude_desktop_config.json (Settings → Developer → Edit Config)", Text: indent(map[string]any{"mcpServers": map[string]any{"openhuman": stdio}}),
			Note: "Claude Desktop starts the server itself, on this machine's memory."},
		{Client: "Claude Code", Where: "a shell", Text: claudeHTTP + "\n# or, started by Claude Code itself on this machine:\nclaude mcp add openhuman -- " + shellQuote(exe) + " " + strings.Join(args, " ")},
		{Client: "Cursor", Where: "~/.cursor/mcp.json, or .cursor/mcp.json in a project", Text: indent(map[string]any{"mcpServers": map[string]any{"openhuman": remote}})},
		{Client: "VS Code", Where: ".vscode/mcp.json in a workspace (or MCP: Open User Configuration)", Text: indent(map[string]any{"servers": map[string]any{"openhuman": vscode}}),
			Note: "VS Code asks in the chat before a sub-agent's write, when one waits for approval."},
		{Client: "Codex", Where: "~/.codex/config.toml", Text: codexHTTP + "\n\n# or, started by Codex itself on this machine, in place of the table above:\n# [mcp_servers.openhuman]\n# command = " + strconv.Quote(exe) + "\n# args = [" + strings.Join(quoted, ", ") + "]"},
		{Client: "Zed", Where: "settings.json", Text: indent(map[string]any{"context_servers": map[string]any{"openhuman": zed}}),
			Note: "Zed starts the server itself, on this machine's memory."},
	}
	c.render(w, r, http.StatusOK, "connect", view{Title: "Connect a client", Nav: "connect", Data: map[string]any{"URL": url, "Configs": configs, "Open": c.open()}})
}

func indent(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return strings.TrimRight(b.String(), "\n")
}

func shellQuote(s string) string {
	if !strings.ContainsAny(s, " \t'\"$\\`") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
