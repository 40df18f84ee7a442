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

// retired reports whether a field of type t is a retired setting.
func retired(t reflect.Type) bool { return t == reflect.TypeFor[retiredRoute]() }
