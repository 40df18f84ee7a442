package config

import (
	"slices"
	"strings"
	"testing"
)

// [memory] replication = "jetstream" became replicated = true: an upgraded
// deployment that still says the old thing, in its file or its
// environment, keeps replicating and is told to rename the setting; any
// other old value is refused with the new name.
func TestRetiredReplication(t *testing.T) {
	const nats = "nats://127.0.0.1:4222"
	for _, tc := range []struct {
		name, file string
		env        map[string]string
		replicated bool
		warning    string // "" when none is expected
	}{
		{name: "old key in the file", file: "[memory]\nreplication = \"jetstream\"\n",
			replicated: true, warning: `[memory] replication = "jetstream" is now replicated = true`},
		{name: "old variable", env: map[string]string{envReplication: "jetstream"},
			replicated: true, warning: "OPENHUMAN_MEMORY_REPLICATION=jetstream is now OPENHUMAN_MEMORY_REPLICATED=true"},
		{name: "old variable beside the new one", env: map[string]string{envReplication: "jetstream", "OPENHUMAN_MEMORY_REPLICATED": "true"},
			replicated: true, warning: "OPENHUMAN_MEMORY_REPLICATION=jetstream is now"},
		{name: "old empty value, as the example had it", file: "[memory]\nreplication = \"\"\n"},
		{name: "the variable overrides the old key", file: "[memory]\nreplication = \"jetstream\"\n",
			env: map[string]string{"OPENHUMAN_MEMORY_REPLICATED": "false"}, warning: `replication = "jetstream" is now replicated = true`},
		{name: "new key", file: "[memory]\nreplicated = true\n", replicated: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.file != "" {
				write(t, home, tc.file)
			}
			vars := map[string]string{"OPENHUMAN_NATS_URL": nats, "OPENHUMAN_MEMORY_ID_KEY": testIDKey}
			for k, v := range tc.env {
				vars[k] = v
			}
			c, err := Load(home, env(vars))
			if err != nil {
				t.Fatal(err)
			}
			if c.Memory.Replicated != tc.replicated {
				t.Errorf("replicated %v, want %v", c.Memory.Replicated, tc.replicated)
			}
			if tc.warning == "" && len(c.Deprecated) != 0 {
				t.Errorf("warnings %q, want none", c.Deprecated)
			}
			if tc.warning != "" && (len(c.Deprecated) != 1 || !strings.Contains(c.Deprecated[0], tc.warning)) {
				t.Errorf("warnings %q, want one saying %q", c.Deprecated, tc.warning)
			}
		})
	}
	for _, tc := range []struct {
		name, file string
		env        map[string]string
		want       string
	}{
		{name: "other old value in the file", file: "[memory]\nreplication = \"raft\"\n",
			want: `replication = "raft": the replication setting is gone; write replicated = true (OPENHUMAN_MEMORY_REPLICATED=true)`},
		{name: "other old value in the environment", env: map[string]string{envReplication: "raft"},
			want: `OPENHUMAN_MEMORY_REPLICATION="raft": the variable is gone; set OPENHUMAN_MEMORY_REPLICATED=true`},
		{name: "old and new variables disagree", env: map[string]string{envReplication: "jetstream", "OPENHUMAN_MEMORY_REPLICATED": "false"},
			want: "OPENHUMAN_MEMORY_REPLICATION=jetstream and OPENHUMAN_MEMORY_REPLICATED=false disagree"},
		{name: "old key without NATS", file: "[memory]\nreplication = \"jetstream\"\n", env: map[string]string{"OPENHUMAN_NATS_URL": ""},
			want: "memory.replicated (OPENHUMAN_MEMORY_REPLICATED) needs nats.url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.file != "" {
				write(t, home, tc.file)
			}
			vars := map[string]string{"OPENHUMAN_NATS_URL": nats, "OPENHUMAN_MEMORY_ID_KEY": testIDKey}
			for k, v := range tc.env {
				vars[k] = v
			}
			if _, err := Load(home, env(vars)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	if w := UnknownEnv([]string{envReplication + "=jetstream"}); len(w) != 0 {
		t.Errorf("%s is read, yet reported unknown: %v", envReplication, w)
	}
	if slices.Contains(knownKeys(), "memory.replication") {
		t.Error("memory.replication is still listed as a setting")
	}
}
