package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The struct tags of Config are the one table of settings: `toml` names the
// key, `env` the OPENHUMAN_* variable that overrides it, `default` the value
// taken when neither file nor environment gave one. In a map of tables an
// env name holds * for the entry's name in capitals
// (OPENHUMAN_*_API_KEY under [search.providers.<name>]). Defaults that
// depend on other values, such as paths under the home directory, are set
// in applyDefaults instead.

// Variables Load reads before any file, so they have no key.
const (
	envHome   = "OPENHUMAN_HOME"
	envConfig = "OPENHUMAN_CONFIG"
)

// EnvVars lists every environment variable Load reads, OPENHUMAN_HOME,
// OPENHUMAN_CONFIG, OPENHUMAN_API_TOKEN (which has no key: the file
// holds hashes, not tokens) and OPENHUMAN_API_TOKEN_FROM first, then in the order of Config's fields, and the
// retired ones Load still reads (OPENHUMAN_MEMORY_REPLICATION) last. It is for
// checking a deployment's variables: one missing from this list is
// ignored by every binary, which is almost always a typo (UnknownEnv
// reports them).
func EnvVars() []string {
	return append(append([]string{envHome, envConfig, envAPIToken, envAPITokenFrom}, envNames(envScope)...), envReplication)
}

// envNames lists the env tags a walk reaches, each once:
// OPENHUMAN_SEARXNG_BASE_URL is both [searxng] base_url and
// search.providers.searxng's.
func envNames(s scope) []string {
	var out []string
	var c Config
	_ = eachField(&c, s, func(f field) error {
		if f.env != "" && !slices.Contains(out, f.env) {
			out = append(out, f.env)
		}
		return nil
	})
	return out
}

// A field is one leaf of the configuration, reached by walking Config.
type field struct {
	key string // dotted TOML key: search.providers.brave.api_key
	env string // "" when only the file can set it
	def string // "" when there is no constant default
	v   reflect.Value
}

// A scope says which entries of the maps and arrays of tables a walk visits.
type scope int

const (
	// envScope visits the entries an environment variable may create: the
	// search providers, whether listed in the file or not.
	envScope scope = iota
	// fileScope visits the entries the file created.
	fileScope
	// keyScope visits one made-up entry named *, to list keys, not values.
	keyScope
)

func (s scope) mapKeys(key string, m reflect.Value) []string {
	switch {
	case s == keyScope:
		return []string{"*"}
	case s == envScope && key == "search.providers":
		return SearchProviders
	case s == fileScope:
		var out []string
		for _, k := range m.MapKeys() {
			out = append(out, k.String())
		}
		return out
	}
	return nil
}

// eachField calls fn on every leaf of c the scope reaches. An entry of a
// map is a copy, stored back only when fn changed it, so a walk creates no
// empty entries (an entry in search.providers counts as listed).
func eachField(c *Config, s scope, fn func(field) error) error {
	return walker{s, fn}.table(reflect.ValueOf(c).Elem(), "", "")
}

type walker struct {
	scope scope
	fn    func(field) error
}

// table walks the struct v at key; name is the entry v is in, if any.
func (w walker) table(v reflect.Value, key, name string) error {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("toml")
		if tag == "" || tag == "-" || retired(sf.Type) {
			continue
		}
		k, fv := tag, v.Field(i)
		if key != "" {
			k = key + "." + tag
		}
		var err error
		switch ft := sf.Type; {
		case ft.Kind() == reflect.Struct:
			err = w.table(fv, k, name)
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
			err = w.mapOfTables(fv, k)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			err = w.arrayOfTables(fv, k)
		default:
			env := strings.ReplaceAll(sf.Tag.Get("env"), "*", strings.ToUpper(name))
			err = w.fn(field{key: k, env: env, def: sf.Tag.Get("default"), v: fv})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (w walker) mapOfTables(m reflect.Value, key string) error {
	for _, name := range w.scope.mapKeys(key, m) {
		e := reflect.New(m.Type().Elem()).Elem()
		if old := m.MapIndex(reflect.ValueOf(name)); old.IsValid() {
			e.Set(old)
		}
		before := e.Interface()
		if err := w.table(e, key+"."+name, name); err != nil {
			return err
		}
		if !reflect.DeepEqual(before, e.Interface()) {
			if m.IsNil() {
				m.Set(reflect.MakeMap(m.Type()))
			}
			m.SetMapIndex(reflect.ValueOf(name), e)
		}
	}
	return nil
}

// arrayOfTables has no names, so its elements share one key each field.
func (w walker) arrayOfTables(s reflect.Value, key string) error {
	if w.scope == keyScope {
		return w.table(reflect.New(s.Type().Elem()).Elem(), key, "")
	}
	for i := range s.Len() {
		if err := w.table(s.Index(i), key, ""); err != nil {
			return err
		}
	}
	return nil
}

// readEnv lets each variable that is set override the file.
func (c *Config) readEnv(getenv func(string) string) error {
	return eachField(c, envScope, func(f field) error {
		if f.env == "" {
			return nil
		}
		s := getenv(f.env)
		if s == "" {
			return nil
		}
		if hint := set(f.v, s); hint != "" {
			return fmt.Errorf("%s=%q: %s", f.env, s, hint)
		}
		return nil
	})
}

// applyTagDefaults fills the fields still zero from their default tags.
// A nil list is zero but an empty one is not: `search = []` means none.
func (c *Config) applyTagDefaults() {
	_ = eachField(c, fileScope, func(f field) error {
		if f.def == "" || !f.v.IsZero() {
			return nil
		}
		if hint := set(f.v, f.def); hint != "" {
			panic(fmt.Sprintf("config: default %q of %s: %s", f.def, f.key, hint))
		}
		return nil
	})
}

// set parses s into v by v's type; it returns what to write instead when s
// does not parse. A list is comma-separated, blanks dropped.
func set(v reflect.Value, s string) (hint string) {
	switch p := v.Addr().Interface().(type) {
	case *string:
		*p = s
	case *int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return "use a whole number"
		}
		*p = n
	case *float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "use a number such as 0.55"
		}
		*p = f
	case *bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return "use true or false"
		}
		*p = b
	case **bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return "use true or false"
		}
		*p = &b
	case *Seconds:
		d, hint := parseDuration(s, time.Second, "seconds")
		*p = Seconds(d)
		return hint
	case *Minutes:
		d, hint := parseDuration(s, time.Minute, "minutes")
		*p = Minutes(d)
		return hint
	case *[]string:
		*p = nil
		for _, item := range strings.Split(s, ",") {
			if item = strings.TrimSpace(item); item != "" {
				*p = append(*p, item)
			}
		}
	default:
		panic(fmt.Sprintf("config: no parser for %s", v.Type()))
	}
	return ""
}
