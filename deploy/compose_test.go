package deploy

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/openhuman-go/openhuman-go/pkg/config"
)

// secrets are what .env must set; any value does for loading.
var secrets = []string{"OPENHUMAN_API_TOKEN", "NATS_GATEWAY_PASSWORD", "NATS_MEMORY_PASSWORD", "NATS_SEARCH_PASSWORD",
	"NATS_AGENTS_PASSWORD", "SEARXNG_SECRET", "GRAFANA_ADMIN_PASSWORD"}

// load reads the compose files as Compose v2 does, from the repository's
// root, with env as the environment and the given profiles enabled.
func load(t *testing.T, env map[string]string, profiles []string, files ...string) (*types.Project, error) {
	t.Helper()
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	opts, err := cli.NewProjectOptions(files, cli.WithWorkingDirectory(".."), cli.WithName("openhuman"),
		cli.WithEnv(environ), cli.WithProfiles(profiles))
	if err != nil {
		t.Fatal(err)
	}
	return opts.LoadProject(context.Background())
}

func secretEnv() map[string]string {
	env := map[string]string{}
	for _, s := range secrets {
		env[s] = "oh_" + strings.Repeat(strings.ToLower(s[:4]), 10)
	}
	return env
}

var (
	base  = []string{"../docker-compose.yml"}
	local = []string{"../docker-compose.yml", "compose.local.yml"}
)

func mustLoad(t *testing.T, profiles []string, files ...string) *types.Project {
	t.Helper()
	p, err := load(t, secretEnv(), profiles, files...)
	if err != nil {
		t.Fatalf("loading %v: %v", files, err)
	}
	return p
}

// Every service, in both stacks and every profile, has a healthcheck,
// keeps its state in named volumes (bind mounts are read-only
// configuration), and sets only OPENHUMAN_* variables the binaries read.
func TestComposeFiles(t *testing.T) {
	known := config.EnvVars()
	for name, files := range map[string][]string{"docker-compose.yml": base, "with compose.local.yml": local} {
		t.Run(name, func(t *testing.T) {
			p := mustLoad(t, []string{"*"}, files...)
			for _, want := range []string{"nats-1", "nats-2", "nats-3", "redis", "searxng", "gateway", "memory-1", "memory-2",
				"search", "agents", "prometheus", "grafana", "ollama"} {
				if _, ok := p.Services[want]; !ok {
					t.Errorf("no service %s", want)
				}
			}
			for _, s := range p.Services {
				if s.HealthCheck == nil || s.HealthCheck.Disable || len(s.HealthCheck.Test) < 2 {
					t.Errorf("%s has no healthcheck", s.Name)
				}
				for k := range s.Environment {
					if strings.HasPrefix(k, "OPENHUMAN_") && !slices.Contains(known, k) {
						t.Errorf("%s sets %s, which no binary reads (config.EnvVars)", s.Name, k)
					}
				}
				for _, v := range s.Volumes {
					switch {
					case v.Type == types.VolumeTypeVolume && v.Source == "":
						t.Errorf("%s: anonymous volume at %s; name it", s.Name, v.Target)
					case v.Type == types.VolumeTypeVolume:
						if _, ok := p.Volumes[v.Source]; !ok {
							t.Errorf("%s: volume %s is not declared", s.Name, v.Source)
						}
					case v.Type == types.VolumeTypeBind && !v.ReadOnly:
						t.Errorf("%s: bind mount %s → %s is writable; state goes in named volumes", s.Name, v.Source, v.Target)
					}
				}
				for _, port := range s.Ports {
					if port.HostIP != "127.0.0.1" {
						t.Errorf("%s publishes %s:%s on %q, want 127.0.0.1 only", s.Name, port.Published, strconv.Itoa(int(port.Target)), port.HostIP)
					}
				}
			}
			if ports := p.Services["gateway"].Ports; len(ports) != 1 || ports[0].Published != "9300" || ports[0].Target != 9300 {
				t.Errorf("gateway ports %+v, want 127.0.0.1:9300:9300", ports)
			}
			homes := map[string]string{}
			for _, name := range []string{"memory-1", "memory-2"} {
				for _, v := range p.Services[name].Volumes {
					if v.Target == "/data" {
						homes[name] = v.Source
					}
				}
			}
			if homes["memory-1"] == "" || homes["memory-1"] == homes["memory-2"] {
				t.Errorf("memory replicas' home volumes %v, want one each", homes)
			}
			for _, name := range []string{"gateway", "memory-1", "memory-2", "search", "agents"} {
				s := p.Services[name]
				if s.StopGracePeriod == nil || *s.StopGracePeriod <= types.Duration(20e9) {
					t.Errorf("%s: stop_grace_period %v, want more than OPENHUMAN_SHUTDOWN_GRACE_SECONDS (20s)", name, s.StopGracePeriod)
				}
				if user := s.Environment["OPENHUMAN_NATS_USER"]; user == nil || *user == "" {
					t.Errorf("%s has no NATS user", name)
				}
			}
		})
	}
}

// The local override swaps images and nothing else of a service, keeps
// every network internal but the gateway's edge, builds every image it
// starts (nothing is pulled), and leaves Grafana and Ollama out.
func TestComposeLocalOverride(t *testing.T) {
	b := mustLoad(t, []string{"*"}, base...)
	l := mustLoad(t, []string{"*"}, local...)
	for name, ls := range l.Services {
		bs := b.Services[name]
		for _, f := range []string{"Command", "Entrypoint", "Environment", "Volumes", "HealthCheck", "DependsOn", "Networks", "Ports", "User", "StopGracePeriod"} {
			if bv, lv := reflect.ValueOf(bs).FieldByName(f).Interface(), reflect.ValueOf(ls).FieldByName(f).Interface(); !reflect.DeepEqual(bv, lv) {
				t.Errorf("%s: compose.local.yml changes %s:\n%v\nto\n%v", name, f, bv, lv)
			}
		}
	}
	for name, n := range l.Networks {
		if name == "edge" {
			continue
		}
		if !n.Internal {
			t.Errorf("network %s is not internal in the local stack", name)
		}
	}
	for name, s := range l.Services {
		if _, onEdge := s.Networks["edge"]; onEdge && name != "gateway" {
			t.Errorf("%s joins edge, the gateway's published port's network", name)
		}
	}
	started := mustLoad(t, nil, local...)
	for _, gone := range []string{"grafana", "ollama"} {
		if _, ok := started.Services[gone]; ok {
			t.Errorf("%s starts in the local stack, but no image of it can be had", gone)
		}
	}
	for name, s := range started.Services {
		if s.Build == nil || !strings.HasPrefix(s.Image, "openhuman-local/") {
			t.Errorf("%s: image %q with build %v: it would be pulled", name, s.Image, s.Build)
		}
	}
	if _, ok := b.Networks["edge"]; !ok {
		t.Error("docker-compose.yml has no edge network")
	}
}

// A missing secret stops Compose with the variable's name and how to set it.
func TestComposeNeedsSecrets(t *testing.T) {
	for _, s := range secrets {
		env := secretEnv()
		delete(env, s)
		_, err := load(t, env, []string{"*"}, base...)
		if err == nil || !strings.Contains(err.Error(), "set "+s+" in .env") {
			t.Errorf("without %s: %v", s, err)
		}
	}
}
