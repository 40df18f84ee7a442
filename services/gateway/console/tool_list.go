package console

import (
	"net/http"
	"sort"
)

type registryEntry struct {
	ToolID       string `json:"tool_id"`
	Name         string `json:"name"`
	Title        string `json:"title"`
	Transport    string `json:"transport"`
	WriteCapable bool   `json:"write_capable"`
	Enabled      bool   `json:"enabled"`
	Health       string `json:"health"`
	HealthDetail struct {
		Service string `json:"service"`
		Reason  string `json:"reason"`
	} `json:"health_detail"`
}

type provider struct {
	Name      string   `json:"name"`
	Roles     []string `json:"roles"`
	State     string   `json:"state"`
	Reachable *bool    `json:"reachable"`
	Detail    string   `json:"detail"`
	RetryAt   string   `json:"retry_at"`
}

type toolRow struct {
	registryEntry
	toolFigures
}

// embedding is how far memory has come in giving every item a vector
// (contract.EmbeddingProgress, as the diagnostics send it).
type embedding struct {
	Model          string  `json:"model"`
	Pending        int64   `json:"pending"`
	Failures       int     `json:"failures"`
	LastError      string  `json:"last_error"`
	LastErrorAt    string  `json:"last_error_at"`
	BackoffSeconds float64 `json:"backoff_seconds"`
	RetryAt        string  `json:"retry_at"`
	Detail         string  `json:"detail"`
	// Configured is the model memory runs itself, when one is configured
	// (contract.ModelState): until it is ready memory embeds with its
	// offline embedder.
	Configured *modelState `json:"configured_model"`
	// Reranker is the cross-encoder memory runs itself for ranking, when
	// models are on: until it is ready ranking goes without it.
	Reranker *modelState `json:"reranker"`
}

// Models are the models memory runs itself, each named for its row.
func (e *embedding) Models() []*modelState {
	var out []*modelState
	for _, m := range []struct {
		role string
		s    *modelState
	}{{"Configured model", e.Configured}, {"Reranker", e.Reranker}} {
		if m.s != nil {
			m.s.Role = m.role
			out = append(out, m.s)
		}
	}
	return out
}

type modelState struct {
	// Role names the row: "Configured model" or "Reranker".
	Role         string `json:"-"`
	Repo         string `json:"repo"`
	State        string `json:"state"`
	File         string `json:"file"`
	FileBytes    int64  `json:"file_bytes"`
	FileSize     int64  `json:"file_size"`
	FilesDone    int    `json:"files_done"`
	Files        int    `json:"files"`
	FetchedBytes int64  `json:"fetched_bytes"`
	Failures     int    `json:"failures"`
	LastError    string `json:"last_error"`
	RetryAt      string `json:"retry_at"`
	Detail       string `json:"detail"`
}

type toolsData struct {
	Tools     []toolRow
	Providers []provider
	Services  []serviceRow
	Embedding *embedding
}

type serviceRow struct{ Name, Health, Detail string }

// toolList shows every MCP tool with its health and why, its last hour
// from this process's metrics (calls, error rate, p50 and p95 latency, a
// chart of calls per minute), every search provider with its state, and
// each service, and how far memory's embedding has come. It refreshes itself every five seconds with htmx.
func (c *Console) toolList(w http.ResponseWriter, r *http.Request) {
	var reg struct {
		Tools []registryEntry `json:"tools"`
	}
	if err := c.call(r, "openhuman.tool_registry_list", map[string]any{}, &reg); err != nil {
		c.fail(w, r, err)
		return
	}
	var diag struct {
		Services        map[string]string `json:"services"`
		ServiceDetail   map[string]string `json:"service_detail"`
		SearchProviders []provider        `json:"search_providers"`
		MemoryEmbedding *embedding        `json:"memory_embedding"`
	}
	if err := c.call(r, "openhuman.tool_registry_diagnostics", map[string]any{}, &diag); err != nil {
		c.fail(w, r, err)
		return
	}
	figures := c.stats.figures()
	d := toolsData{Providers: diag.SearchProviders, Embedding: diag.MemoryEmbedding}

	for _, e := range reg.Tools {
		if e.Transport != "mcp_stdio" {
			continue // the JSON-RPC methods behind them: the same tools
		}
		d.Tools = append(d.Tools, toolRow{registryEntry: e, toolFigures: figures[e.Name]})
	}
	for name, h := range diag.Services {
		d.Services = append(d.Services, serviceRow{Name: name, Health: h, Detail: diag.ServiceDetail[name]})
	}
	sort.Slice(d.Services, func(i, j int) bool { return d.Services[i].Name < d.Services[j].Name })
	c.render(w, r, http.StatusOK, "tools", view{Title: "Tools", Nav: "tools", Data: d})
}
