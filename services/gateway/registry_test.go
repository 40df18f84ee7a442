package gateway_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/bus"
	"github.com/openhuman-go/openhuman-go/pkg/bus/bustest"
	"github.com/openhuman-go/openhuman-go/pkg/bus/embedded"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/agents/agentsmain"
	"github.com/openhuman-go/openhuman-go/services/gateway"
	"github.com/openhuman-go/openhuman-go/services/gateway/gatewaytest"
	"github.com/openhuman-go/openhuman-go/services/gateway/registry"
)

func TestRegistry(t *testing.T) {
	providers := []contract.CapabilityProvider{
		{ID: "acme-tools", TrustState: "trusted", Enabled: true, SourceURI: "https://example.com/secret-path"},
		{ID: "beta", TrustState: "untrusted", Enabled: true},
		{ID: "gamma", TrustState: "trusted", Enabled: false},
	}
	gw := gatewaytest.Start(t, nil, gateway.Options{Version: "9.9.9", Providers: providers})
	ctx := context.Background()
	entries := gw.Registry(ctx)
	ids := map[string]bool{}
	for _, e := range entries {
		if ids[e.ToolID] {
			t.Errorf("duplicate tool_id %s", e.ToolID)
		}
		ids[e.ToolID] = true
		if e.Version != "9.9.9" || e.InputSchema == nil || e.OutputSchema == nil || e.Route == "" {
			t.Errorf("incomplete entry %+v", e)
		}
		// With no search provider configured the web tools are disabled:
		// the search service answers but serves none of them.
		web := e.HealthDetail.Service == contract.ServiceSearch
		if e.Enabled == web {
			t.Errorf("%s: enabled %v", e.ToolID, e.Enabled)
		}
		if want := map[bool]string{false: registry.HealthAvailable, true: registry.HealthUnavailable}[web]; e.Health != want || !e.HealthDetail.ServiceAnswers {
			t.Errorf("%s: health %s, want %s with every service up", e.ToolID, e.Health, want)
		}
	}
	// MCP entries are the tools of the gateway's profile (v2 here); every
	// profile's JSON-RPC methods are listed.
	mcpNames, rpcs := map[string]bool{}, 4 // the registry's own three methods and the audit's
	for _, tl := range contract.Tools() {
		if tl.In(contract.ProfileV2) {
			mcpNames[tl.Name] = true
		}
		if tl.RPC != "" {
			rpcs++
		}
	}
	if len(entries) != len(mcpNames)+rpcs {
		t.Errorf("%d entries, want %d MCP tools + %d JSON-RPC methods", len(entries), len(mcpNames), rpcs)
	}
	recall, err := gw.RegistryEntry(ctx, "memory.recall")
	if err != nil || recall.Transport != registry.TransportMCP || !slices.Contains(recall.AllowedAgents, "librarian") || slices.Contains(recall.AllowedAgents, "translator") {
		t.Fatalf("memory.recall: %+v %v", recall, err)
	}
	for _, alias := range []string{"rpc.memory_recall", "openhuman.memory_recall"} {
		if e, err := gw.RegistryEntry(ctx, alias); err != nil || e.ToolID != "rpc.memory_recall" || e.Transport != registry.TransportRPC {
			t.Errorf("%s: %+v %v", alias, e, err)
		}
	}
	if e, err := gw.RegistryEntry(ctx, "tool_registry.list"); err != nil || e.ToolID != "rpc.tool_registry_list" {
		t.Errorf("dotted alias: %+v %v", e, err)
	}
	// The documented example id: the JSON-RPC method's dotted form.
	if e, err := gw.RegistryEntry(ctx, "tools.web_search"); err != nil || e.ToolID != "rpc.tools_web_search" || e.Enabled {
		t.Errorf("tools.web_search: %+v %v", e, err)
	}
	if _, err := gw.RegistryEntry(ctx, "tools.web_browse"); err == nil || err.Error() != "tool not found in registry: tools.web_browse" {
		t.Errorf("unknown id: %v", err)
	}

	d := gw.Diagnostics(ctx)
	if d.Counts.TotalTools != len(entries) || d.Counts.MCPStdioTools != len(mcpNames) || d.Counts.JSONRPCTools != rpcs || d.Counts.EnabledTools != len(entries)-6 {
		t.Errorf("counts %+v", d.Counts)
	}
	// learn and forget over MCP and JSON-RPC, running a sub-agent, and
	// deciding a sub-agent's waiting call: whatever a read-only token may
	// not call.
	var surfaces []string
	for _, w := range d.WriteSurfaces {
		surfaces = append(surfaces, w.ToolID)
	}
	slices.Sort(surfaces)
	if got := strings.Join(surfaces, ","); got != "agent.run_subagent,memory.forget,memory.learn,rpc.approval_decide,rpc.memory_forget,rpc.memory_learn" {
		t.Errorf("write surfaces %s", got)
	}
	for id, writes := range map[string]bool{"rpc.approval_decide": true, "rpc.approval_list": false, "rpc.tool_registry_list": false} {
		e, err := gw.RegistryEntry(ctx, id)
		if err != nil || e.WriteCapable != writes || slices.Contains(e.Tags, "write") != writes {
			t.Errorf("%s: %+v %v; want write_capable %v", id, e, err, writes)
		}
	}
	p := d.CapabilityProviders
	if p.Total != 3 || p.Enabled != 2 || p.Trusted != 2 || p.TrustedEnabled != 1 || len(p.EligibleIDs) != 1 || p.EligibleIDs[0] != "acme-tools" {
		t.Errorf("providers %+v", p)
	}
	b, _ := json.Marshal(d)
	if strings.Contains(string(b), "secret-path") {
		t.Error("diagnostics are not redacted: a provider's source leaked")
	}
}

func TestRegistryHealth(t *testing.T) {
	ctx := context.Background()
	t.Run("failing calls degrade a tool", func(t *testing.T) {
		gw := gatewaytest.Start(t, map[string]string{"OPENHUMAN_MEMORY_ENABLED": "false"}, gateway.Options{})
		for i := 0; i < 3; i++ {
			if _, err := gw.CallTool(ctx, "memory.list", nil, contract.CallContext{}); contract.ErrorCode(err) != contract.CodeMemoryOff {
				t.Fatalf("got %v", err)
			}
		}
		// A caller's mistakes do not count against a tool.
		for i := 0; i < 5; i++ {
			_, _ = gw.CallTool(ctx, "memory.fetch", json.RawMessage(`{}`), contract.CallContext{})
		}
		list, _ := gw.RegistryEntry(ctx, "memory.list")
		fetch, _ := gw.RegistryEntry(ctx, "memory.fetch")
		if list.Health != registry.HealthDegraded || list.HealthDetail.RecentFailures != 3 {
			t.Errorf("memory.list: %s %+v", list.Health, list.HealthDetail)
		}
		if fetch.Health != registry.HealthAvailable || fetch.HealthDetail.RecentCalls != 0 {
			t.Errorf("memory.fetch: %s %+v", fetch.Health, fetch.HealthDetail)
		}
	})
	t.Run("forged cursors from a read-only token leave a tool available", func(t *testing.T) {
		gw := gatewaytest.StartIn(t, withTokens(t, "reader=read"), nil, gateway.Options{})
		for i := range 3 {
			if _, err := gw.CallTool(ctx, "memory.learn", json.RawMessage(fmt.Sprintf(`{"text":"alpha note %d"}`, i)), contract.CallContext{}); err != nil {
				t.Fatal(err)
			}
		}
		reader := contract.CallContext{Source: "http:reader", Token: "reader", Transport: contract.TransportJSONRPC}
		raw, err := gw.CallTool(ctx, "memory.fetch", json.RawMessage(`{"query":"alpha","limit":1}`), reader)
		var page struct {
			NextCursor string `json:"next_cursor"`
		}
		if err != nil || json.Unmarshal(raw, &page) != nil || page.NextCursor == "" {
			t.Fatalf("%s %v", raw, err)
		}
		// The cursor's JSON with its offset made as large as it goes.
		b, _ := base64.RawURLEncoding.DecodeString(page.NextCursor)
		forged := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(b), `"o":1,`, `"o":9223372036854775807,`, 1)))
		args := json.RawMessage(`{"query":"alpha","limit":1,"cursor":"` + forged + `"}`)
		for range 10 {
			_, err := gw.CallTool(ctx, "memory.fetch", args, reader)
			if ce := contract.AsError(err); contract.ErrorCode(err) != contract.CodeInvalidRequest || ce.Data["field"] != "cursor" {
				t.Fatalf("a forged cursor: %v", err)
			}
		}
		fetch, _ := gw.RegistryEntry(ctx, "memory.fetch")
		if fetch.Health != registry.HealthAvailable || fetch.HealthDetail.RecentFailures != 0 || fetch.HealthDetail.RecentCalls != 1 {
			t.Errorf("memory.fetch after ten forged cursors: %s %+v", fetch.Health, fetch.HealthDetail)
		}
	})
	t.Run("calls count for the tool called, not for another of its name", func(t *testing.T) {
		gw := gatewaytest.Start(t, nil, gateway.Options{})
		if _, err := gw.CallRPC(ctx, "openhuman.memory_recall", json.RawMessage(`{"question":"anything?"}`), contract.CallContext{}); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]int{"memory.recall": 1, "rpc.memory_recall": 1, "rpc.memory_tree_recall": 0} {
			e, err := gw.RegistryEntry(ctx, id)
			if err != nil || e.HealthDetail.RecentCalls != want {
				t.Errorf("%s: %+v, %v; want %d recent calls", id, e, err, want)
			}
		}
	})
	t.Run("a service that does not answer makes its tools unavailable", func(t *testing.T) {
		ns, err := embedded.Start(embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ns.Shutdown)
		svcConn, _ := ns.Connect("agents", slog.New(slog.DiscardHandler))
		closer, err := agentsmain.Start(svcConn, config.Config{Bus: bustest.Keys().Agents()}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { closer.Close() })
		nc, _ := ns.Connect("gateway", slog.New(slog.DiscardHandler))
		t.Cleanup(nc.Close)
		gw := gateway.New(bus.NewClient(nc, bustest.Keys().GatewaySigner()), gateway.Options{})
		for _, e := range gw.Registry(ctx) {
			want := registry.HealthAvailable
			if e.HealthDetail.Service == contract.ServiceMemory || e.HealthDetail.Service == contract.ServiceSearch {
				want = registry.HealthUnavailable
			}
			// Whether a silent service's tools are configured is unknown:
			// they are not reported disabled.
			if e.Health != want || !e.Enabled {
				t.Errorf("%s (%s): %s enabled=%v, want %s", e.ToolID, e.HealthDetail.Service, e.Health, e.Enabled, want)
			}
		}
		if d := gw.Diagnostics(ctx); d.Services["memory"] != registry.HealthUnavailable || d.Services["agents"] != registry.HealthAvailable {
			t.Errorf("services %v", d.Services)
		}
	})
}

func TestRegistryWebToolsFollowConfiguration(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		env     map[string]string
		enabled string
	}{
		"searxng": {map[string]string{"OPENHUMAN_SEARXNG_ENABLED": "true", "OPENHUMAN_SEARXNG_BASE_URL": "http://127.0.0.1:1"},
			"rpc.tools_searxng_search,rpc.tools_web_answer,rpc.tools_web_search,searxng_search,web_answer,web_search"},
		"gemini only": {map[string]string{"OPENHUMAN_GEMINI_API_KEY": "g"}, "rpc.tools_web_answer,web_answer"},
		"brave":       {map[string]string{"OPENHUMAN_BRAVE_API_KEY": "b"}, "rpc.tools_web_answer,rpc.tools_web_search,web_answer,web_search"},
		"search off":  {map[string]string{"OPENHUMAN_BRAVE_API_KEY": "b", "OPENHUMAN_SEARCH_ENABLED": "false"}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			gw := gatewaytest.Start(t, tc.env, gateway.Options{})
			var enabled []string
			for _, e := range gw.Registry(ctx) {
				if e.HealthDetail.Service != contract.ServiceSearch {
					continue
				}
				if e.Enabled {
					enabled = append(enabled, e.ToolID)
					if e.Health != registry.HealthAvailable {
						t.Errorf("%s: enabled but %s", e.ToolID, e.Health)
					}
				}
			}
			slices.Sort(enabled)
			if got := strings.Join(enabled, ","); got != tc.enabled {
				t.Errorf("enabled web entries %q, want %q", got, tc.enabled)
			}
			var listed []string
			for _, tl := range gw.Tools(ctx) {
				if tl.Service == contract.ServiceSearch {
					listed = append(listed, tl.Name)
				}
			}
			var want []string
			for _, id := range strings.Split(tc.enabled, ",") {
				if id != "" && !strings.HasPrefix(id, "rpc.") {
					want = append(want, id)
				}
			}
			slices.Sort(listed)
			if strings.Join(listed, ",") != strings.Join(want, ",") {
				t.Errorf("tools/list offers %v, want %v", listed, want)
			}
		})
	}
}
