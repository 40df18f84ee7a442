package contract

import "strings"

// ClientSlug normalizes an MCP clientInfo.name: trim, lowercase, each run of
// characters outside [a-z0-9] becomes one hyphen, hyphens trimmed from both ends.
// "Claude Desktop" → "claude-desktop".
func ClientSlug(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	var b strings.Builder
	pendingHyphen := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			if pendingHyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			pendingHyphen = false
			b.WriteByte(c)
			continue
		}
		pendingHyphen = true
	}
	return b.String()
}

// MCPSource is the provenance label of an MCP session: "mcp:<client>", or the
// bare "mcp" when the client did not identify itself usefully.
func MCPSource(clientName string) string {
	if slug := ClientSlug(clientName); slug != "" {
		return "mcp:" + slug
	}
	return "mcp"
}
