package config

import (
	"fmt"
	"reflect"
)

// Settings that had a single legal value are gone: a file that still sets
// one to that value reads as it did, and any other value is refused with
// the reason, so an old config.toml goes on working and a wrong one is not
// silently ignored. A retired setting has no default, variable or place in
// config.example.toml; the walk of settings skips it.

// retiredRoute is search.providers.<name>.route, whose only value was
// "direct": every provider is called directly.
type retiredRoute struct{}

func (*retiredRoute) UnmarshalTOML(v any) error {
	if v == "direct" {
		return nil
	}
	return fmt.Errorf("route = %#v: the route setting is gone (its only value was \"direct\": providers are called directly); delete the line", v)
}

// retiredReplication is [memory] replication, whose one non-empty value,
// "jetstream", is now replicated = true. That value still turns
// replication on, with a warning, rather than stopping the binary: a
// deployment upgraded with its old .env keeps one memory across its
// replicas instead of refusing to start (and ignoring it would be worse,
// each replica quietly keeping a memory of its own).
type retiredReplication struct{ jetstream bool }

// envReplication is [memory] replication's variable; Load still reads it
// (readRetiredEnv), so EnvVars lists it.
const envReplication = "OPENHUMAN_MEMORY_REPLICATION"

func (r *retiredReplication) UnmarshalTOML(v any) error {
	switch v {
	case "":
	case "jetstream":
		r.jetstream = true
	default:
		return fmt.Errorf("[memory] replication = %#v: the replication setting is gone; "+
			"write replicated = true (OPENHUMAN_MEMORY_REPLICATED=true) to replicate memory through JetStream, or delete the line for one store per process", v)
	}
	return nil
}

// applyRetiredFile turns what the file's retired settings said into the
// settings that replaced them, before the environment may override those.
func (c *Config) applyRetiredFile() {
	if c.Memory.Replication.jetstream {
		c.Memory.Replicated = true
		c.Deprecated = append(c.Deprecated, `[memory] replication = "jetstream" is now replicated = true; `+
			`replication is on, but rename the setting: the old name will stop being read`)
	}
}

// readRetiredEnv reads the retired variables, after the others: one that
// contradicts its replacement, set beside it, is an error rather than a
// guess.
func (c *Config) readRetiredEnv(getenv func(string) string) error {
	switch v := getenv(envReplication); v {
	case "":
	case "jetstream":
		if now := getenv("OPENHUMAN_MEMORY_REPLICATED"); now != "" && !c.Memory.Replicated {
			return fmt.Errorf("%s=jetstream and OPENHUMAN_MEMORY_REPLICATED=%s disagree: %s is gone, delete it and keep OPENHUMAN_MEMORY_REPLICATED", envReplication, now, envReplication)
		}
		c.Memory.Replicated = true
		c.Deprecated = append(c.Deprecated, envReplication+"=jetstream is now OPENHUMAN_MEMORY_REPLICATED=true; "+
			"replication is on, but rename the variable: the old name will stop being read")
	default:
		return fmt.Errorf("%s=%q: the variable is gone; set OPENHUMAN_MEMORY_REPLICATED=true to replicate memory through JetStream, or unset it for one store per process", envReplication, v)
	}
	return nil
}

// retired reports whether a field of type t is a retired setting.
func retired(t reflect.Type) bool {
	return t == reflect.TypeFor[retiredRoute]() || t == reflect.TypeFor[retiredReplication]()
}
