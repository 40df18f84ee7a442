package config

import (
	"slices"
	"testing"
)

func TestEnvVars(t *testing.T) {
	vars := EnvVars()
	read := map[string]bool{}
	_, err := Load("", func(k string) string {
		read[k] = true
		if k == envHome {
			return t.TempDir()
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range read {
		if !slices.Contains(vars, k) {
			t.Errorf("Load reads %s, which EnvVars leaves out", k)
		}
	}
	for i, v := range vars {
		if !read[v] {
			t.Errorf("EnvVars lists %s, which Load never reads", v)
		}
		if slices.Contains(vars[:i], v) {
			t.Errorf("EnvVars lists %s twice", v)
		}
	}
}
