package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOfficialSDKClient connects the official MCP Go SDK's client to the
// real binary: what the reference client accepts, real clients accept.
func TestOfficialSDKClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(filepath.Join(binDir, "openhuman-core"), "mcp")
	cmd.Env = testEnv(t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "SDK Interop", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	init := cs.InitializeResult()
	if init.ServerInfo.Name != "openhuman-core" || init.Capabilities.Tools == nil || init.Capabilities.Resources == nil ||
		init.Capabilities.Logging != nil || init.Capabilities.Prompts != nil {
		t.Errorf("initialize = %+v", init)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil {
			t.Errorf("%s has no input schema", tl.Name)
		}
	}
	if !strings.Contains(strings.Join(names, ","), "memory.learn,memory.forget") {
		t.Errorf("tools = %v", names)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory.learn", Arguments: map[string]any{"text": "SDK clients can store learnings.", "kind": "fact"}})
	if err != nil || res.IsError {
		t.Fatalf("learn: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory.fetch", Arguments: map[string]any{"query": "SDK learnings"}})
	if err != nil || res.IsError {
		t.Fatalf("fetch: %v %+v", err, res)
	}
	var fetched struct {
		Hits []struct {
			Meta map[string]any `json:"meta"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &fetched); err != nil || len(fetched.Hits) != 1 {
		t.Fatalf("fetch text: %v %+v", err, res.Content[0])
	}
	if fetched.Hits[0].Meta["provenance"] != "mcp:sdk-interop" {
		t.Errorf("provenance = %v", fetched.Hits[0].Meta["provenance"])
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "agent.list_subagents", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.StructuredContent == nil {
		t.Fatalf("list_subagents: %v %+v", err, res)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory.recall", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "question") {
		t.Errorf("missing argument: %v", err)
	}

	resources, err := cs.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) != 18 {
		t.Fatalf("resources: %v %d", err, len(resources.Resources))
	}
	soul, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "openhuman://prompts/soul"})
	if err != nil || soul.Contents[0].MIMEType != "text/markdown" || !strings.HasPrefix(soul.Contents[0].Text, "# Soul") {
		t.Fatalf("soul: %v %+v", err, soul)
	}
}
