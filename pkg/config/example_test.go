package config

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// The example is the reference users copy from, so it has to load, hold
// every key, and say the defaults that a file without it would give.
func TestExample(t *testing.T) {
	file, err := filepath.Abs("../../config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	got, err := Load(home, env(map[string]string{envConfig: file}))
	if err != nil {
		t.Fatal(err)
	}
	if got.File != file {
		t.Fatalf("read %q, not the example", got.File)
	}
	if len(got.CapabilityProviders) != 0 {
		t.Errorf("the example declares capability providers %+v: copied as it is, it must change nothing", got.CapabilityProviders)
	}

	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Sample entries of lists (capability providers) are commented out
	// with "#~ ", so that the file as it stands declares none; their keys
	// count as present.
	var scratch Config
	md, err := toml.Decode(strings.ReplaceAll(string(text), "\n#~ ", "\n"), &scratch)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range envNames(keyScope) {
		if v = strings.ReplaceAll(v, "*", "<NAME>"); !strings.Contains(string(text), v) {
			t.Errorf("config.example.toml does not mention %s", v)
		}
	}
	for _, key := range knownKeys() {
		pattern := strings.ReplaceAll(key, ".", "/")
		if !slices.ContainsFunc(md.Keys(), func(k toml.Key) bool {
			ok, _ := path.Match(pattern, strings.Join(k, "/"))
			return ok
		}) {
			t.Errorf("config.example.toml lacks %s", key)
		}
	}

	want, err := Load(home, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	defaults := values(&want)
	for key, v := range values(&got) {
		if d, ok := defaults[key]; ok && !reflect.DeepEqual(v, d) {
			t.Errorf("config.example.toml sets %s = %v, but its default is %v", key, v, d)
		}
	}
}

// knownKeys are the leaf keys Load decodes, with * for a map's entry.
func knownKeys() []string {
	var keys []string
	var c Config
	_ = eachField(&c, keyScope, func(f field) error {
		keys = append(keys, f.key)
		return nil
	})
	return keys
}

// values maps each key of c to its value, read as Config's methods read
// it: a nil *bool is true, a nil list or map is empty.
func values(c *Config) map[string]any {
	out := map[string]any{}
	_ = eachField(c, fileScope, func(f field) error {
		v := f.v.Interface()
		switch x := v.(type) {
		case *bool:
			v = x == nil || *x
		case []string:
			v = append([]string{}, x...)
		case map[string]string:
			v = maps.Clone(x)
			if x == nil {
				v = map[string]string{}
			}
		}
		out[f.key] = v
		return nil
	})
	return out
}
