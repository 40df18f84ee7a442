package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Load reads the configuration. home overrides OPENHUMAN_HOME when not empty;
// getenv is os.Getenv outside tests.
func Load(home string, getenv func(string) string) (Config, error) {
	var c Config
	var err error
	if c.Home, err = HomeDir(home, getenv); err != nil {
		return c, err
	}
	if file := getenv(envConfig); file != "" {
		// A file named on purpose must exist: a typo in its path would
		// otherwise run everything on defaults without a word.
		if err := c.readFile(file); errors.Is(err, os.ErrNotExist) {
			return c, fmt.Errorf("%s=%s: no such file: correct the path or create the file, or unset %s to use %s (optional)",
				envConfig, file, envConfig, filepath.Join(c.Home, "config.toml"))
		} else if err != nil {
			return c, err
		}
	} else if err := c.readFile(filepath.Join(c.Home, "config.toml")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return c, err
	}
	c.applyRetiredFile()
	if err := c.readEnv(getenv); err != nil {
		return c, err
	}
	if err := c.readRetiredEnv(getenv); err != nil {
		return c, err
	}
	if err := c.readAPIToken(getenv); err != nil {
		return c, err
	}
	c.applyDefaults()
	return c, c.setBy(c.validate(), getenv)
}

// setBy names the variable that set the value err is about, when one did:
// a refusal reads in the file's keys ("log.level ..."), and a person who
// set OPENHUMAN_LOG_LEVEL would look for it in a config.toml that does not
// hold it.
func (c *Config) setBy(err error, getenv func(string) string) error {
	if err == nil {
		return nil
	}
	key, _, _ := strings.Cut(err.Error(), " ")
	key = strings.TrimSuffix(key, ":")
	env := ""
	_ = eachField(c, envScope, func(f field) error {
		if f.key == key && f.env != "" && getenv(f.env) != "" {
			env = f.env
		}
		return nil
	})
	if env == "" || strings.Contains(err.Error(), env) {
		return err
	}
	return fmt.Errorf("%s: %w", env, err) // the value is not repeated: it may be a secret
}

// tokenLine is the number of the first line of the file at path that is
// a bearer token as `token new` prints it, 0 when there is none.
func tokenLine(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "oh_") && !strings.ContainsAny(line, "=\"' ") {
			return i + 1
		}
	}
	return 0
}

// HomeDir is the home a binary given --home home uses: home, else
// OPENHUMAN_HOME, else ~/.openhuman.
func HomeDir(home string, getenv func(string) string) (string, error) {
	if home == "" {
		home = getenv(envHome)
	}
	if home == "" {
		dir, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no home directory to keep memory in: set OPENHUMAN_HOME or pass --home: %w", err)
		}
		home = filepath.Join(dir, ".openhuman")
	}
	if strings.HasPrefix(home, "~/") {
		if dir, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(dir, home[2:])
		}
	}
	return home, nil
}

// FilePath is the config.toml a binary given --home home reads:
// OPENHUMAN_CONFIG, else config.toml in its home.
func FilePath(home string, getenv func(string) string) (string, error) {
	if file := getenv(envConfig); file != "" {
		return file, nil
	}
	home, err := HomeDir(home, getenv)
	return filepath.Join(home, "config.toml"), err
}

// readFile reads path into c; a missing file is an error wrapping
// os.ErrNotExist, for the caller to decide about.
func (c *Config) readFile(path string) error {
	md, err := toml.DecodeFile(path, c)
	if err != nil {
		if line := tokenLine(path); line > 0 {
			// `token new NAME >> config.toml` appends the token itself:
			// the file must not keep it, and the parse error does not say.
			return fmt.Errorf("%s: line %d holds a bearer token itself (oh_…): delete that line; config.toml keeps only the token's sha256, and the token goes to the client", path, line)
		}
		if msg, ok := typeError(err); ok {
			return fmt.Errorf("%s: %s", path, msg)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	c.File = path
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		keys := make([]string, len(undecoded))
		for i, k := range undecoded {
			keys[i] = k.String()
			if near := nearestKey(keys[i]); near != "" {
				keys[i] += " (did you mean " + near + "?)"
			}
		}
		return fmt.Errorf("%s: unknown key %s: check the spelling against docs/configuration.md or config.example.toml", path, strings.Join(keys, ", "))
	}
	return nil
}

// applyDefaults is the one place defaults live: the constant ones in the
// struct tags, here those that depend on other values.
func (c *Config) applyDefaults() {
	c.applyTagDefaults()
	if c.Tools.TimeoutSeconds == 0 {
		c.Tools.TimeoutSeconds = Seconds(contract.DefaultCallTimeout)
	}
	if c.Memory.Path == "" {
		c.Memory.Path = filepath.Join(c.Home, "memory.db")
	}
	e := &c.Memory.Embeddings
	if e.ModelsDir == "" {
		e.ModelsDir = filepath.Join(c.Home, "models")
	}
	if e.BaseURL == "" {
		e.BaseURL = map[string]string{"openai": "https://api.openai.com/v1", "ollama": "http://localhost:11434"}[e.Provider]
	}
	if c.LLM.BaseURL == "" && c.LLM.Model != "" {
		c.LLM.BaseURL = "https://api.openai.com/v1"
	}
	if c.Audit.Path == "" {
		c.Audit.Path = filepath.Join(c.Home, "audit.db")
	}
	for i := range c.CapabilityProviders {
		c.CapabilityProviders[i].ID = contract.ClientSlug(c.CapabilityProviders[i].ID)
		if c.CapabilityProviders[i].TrustState == "" {
			c.CapabilityProviders[i].TrustState = "untrusted"
		}
	}
}
