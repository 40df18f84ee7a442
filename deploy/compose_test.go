package deploy

import (
	"context"
	"fmt"
	"os"
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
	"NATS_AGENTS_PASSWORD", "NATS_CLUSTER_PASSWORD", "REDIS_PASSWORD", "SEARXNG_SECRET", "GRAFANA_ADMIN_PASSWORD",
	"BUS_GATEWAY_SEED", "BUS_AGENTS_SEED", "OPENHUMAN_BUS_GATEWAY_KEY", "OPENHUMAN_BUS_AGENTS_KEY", "MEMORY_ID_KEY"}

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
				"memory-3", "search", "agents", "prometheus", "grafana", "ollama"} {
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
			checkReplication(t, p)
			checkRedisAuth(t, p)
			if name == "docker-compose.yml" {
				for _, s := range []string{"gateway", "memory-1", "memory-2", "memory-3", "search", "agents"} {
					if p.Services[s].PullPolicy != types.PullPolicyBuild {
						t.Errorf("%s: pull_policy %q, want build: `compose pull` must not fetch someone else's image of its name", s, p.Services[s].PullPolicy)
					}
				}
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

// checkReplication: every memory replica replicates through JetStream with
// no more stream copies than NATS servers, keeps its own database in a
// home volume of its own (none shares a file), and every service is given
// every NATS server, each of which keeps JetStream in a named volume.
func checkReplication(t *testing.T, p *types.Project) {
	t.Helper()
	var servers, urls []string
	for name, s := range p.Services {
		if strings.HasPrefix(name, "nats-") {
			servers = append(servers, name)
			urls = append(urls, "nats://"+name+":4222")
			var store string
			for _, v := range s.Volumes {
				if v.Target == "/data" && v.Type == types.VolumeTypeVolume {
					store = v.Source
				}
			}
			if store == "" {
				t.Errorf("%s keeps JetStream (store_dir /data/jetstream) in no named volume at /data", name)
			}
		}
	}
	conf, err := os.ReadFile("nats/cluster.conf")
	if err != nil || !strings.Contains(string(conf), "store_dir: /data/jetstream") {
		t.Errorf("nats/cluster.conf does not enable JetStream in /data/jetstream (%v)", err)
	}
	checkRoutes(t, p, servers)
	slices.Sort(urls)
	homes := map[string]string{}
	memory := 0
	for name, s := range p.Services {
		if url := s.Environment["OPENHUMAN_NATS_URL"]; url != nil {
			got := strings.Split(*url, ",")
			slices.Sort(got)
			if !slices.Equal(got, urls) {
				t.Errorf("%s: OPENHUMAN_NATS_URL %s, want every NATS server (%s) so that losing one does not cut it off", name, *url, strings.Join(urls, ","))
			}
		}
		if !strings.HasPrefix(name, "memory-") {
			continue
		}
		memory++
		env := func(k string) string {
			if v := s.Environment[k]; v != nil {
				return *v
			}
			return ""
		}
		if env("OPENHUMAN_MEMORY_REPLICATED") != "true" {
			t.Errorf("%s: OPENHUMAN_MEMORY_REPLICATED %q, want true", name, env("OPENHUMAN_MEMORY_REPLICATED"))
		}
		if n, err := strconv.Atoi(env("OPENHUMAN_MEMORY_STREAM_REPLICAS")); err != nil || n < 1 || n > len(servers) {
			t.Errorf("%s: OPENHUMAN_MEMORY_STREAM_REPLICAS %q, want 1 to %d (the NATS servers)", name, env("OPENHUMAN_MEMORY_STREAM_REPLICAS"), len(servers))
		}
		if path := env("OPENHUMAN_MEMORY_PATH"); path != "" {
			t.Errorf("%s: OPENHUMAN_MEMORY_PATH %s: each replica keeps its database in its own home", name, path)
		}
		for _, v := range s.Volumes {
			if v.Target != "/data" {
				t.Errorf("%s mounts %s at %s: a replica's state is its home volume alone", name, v.Source, v.Target)
				continue
			}
			if other, taken := homes[v.Source]; taken {
				t.Errorf("%s and %s share the home volume %s", name, other, v.Source)
			}
			homes[v.Source] = name
		}
	}
	if memory < 3 || len(homes) != memory {
		t.Errorf("%d memory replicas with home volumes %v, want memory-1..3 with one each", memory, homes)
	}
}

// Every NATS server's routes log in to every server as "route" with
// NATS_CLUSTER_PASSWORD (nats/cluster.conf reads each URL whole from
// NATS_ROUTE_<n>), and its monitoring port stays on loopback.
func checkRoutes(t *testing.T, p *types.Project, servers []string) {
	t.Helper()
	pw := secretEnv()["NATS_CLUSTER_PASSWORD"]
	conf, err := os.ReadFile("nats/cluster.conf")
	if err != nil || !strings.Contains(string(conf), "password: $NATS_CLUSTER_PASSWORD") || !strings.Contains(string(conf), `http: "127.0.0.1:8222"`) {
		t.Errorf("nats/cluster.conf: want cluster authorization with $NATS_CLUSTER_PASSWORD and monitoring on 127.0.0.1 (%v)", err)
	}
	for _, name := range servers {
		env := p.Services[name].Environment
		for i := 1; i <= len(servers); i++ {
			k := fmt.Sprintf("NATS_ROUTE_%d", i)
			want := fmt.Sprintf("nats://route:%s@nats-%d:6222", pw, i)
			if v := env[k]; v == nil || *v != want || !strings.Contains(string(conf), "$"+k) {
				t.Errorf("%s: %s is %v, want %s, read by nats/cluster.conf", name, k, v, want)
			}
		}
		if v := env["NATS_CLUSTER_PASSWORD"]; v == nil || *v != pw {
			t.Errorf("%s: no NATS_CLUSTER_PASSWORD", name)
		}
	}
}

// Redis requires REDIS_PASSWORD, its healthcheck logs in, and every
// service that uses Redis gives the password in its URL.
func checkRedisAuth(t *testing.T, p *types.Project) {
	t.Helper()
	pw := secretEnv()["REDIS_PASSWORD"]
	r := p.Services["redis"]
	if !slices.Contains(r.Command, "--requirepass") || slices.Contains(r.Command, "--protected-mode") || r.Command[slices.Index(r.Command, "--requirepass")+1] != pw {
		t.Errorf("redis command %q, want --requirepass REDIS_PASSWORD and protected mode left on", r.Command)
	}
	if v := r.Environment["REDISCLI_AUTH"]; v == nil || *v != pw {
		t.Error("redis: no REDISCLI_AUTH, so its healthcheck's redis-cli cannot log in")
	}
	users := 0
	for name, s := range p.Services {
		if u := s.Environment["OPENHUMAN_REDIS_URL"]; u != nil {
			users++
			if *u != "redis://:"+pw+"@redis:6379/0" {
				t.Errorf("%s: OPENHUMAN_REDIS_URL %s, want redis://:REDIS_PASSWORD@redis:6379/0", name, *u)
			}
		}
	}
	if users < 3 {
		t.Errorf("%d services use Redis, want the gateway, search and agents", users)
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
