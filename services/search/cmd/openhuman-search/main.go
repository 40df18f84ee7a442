// Command openhuman-search serves the web tools (web_search, web_answer,
// searxng_search) on NATS (set OPENHUMAN_NATS_URL).
package main

import (
	"os"

	"github.com/openhuman-go/openhuman-go/pkg/run"
	"github.com/openhuman-go/openhuman-go/services/search/searchmain"
)

const about = `openhuman-search: serves the web tools (web_search, web_answer, searxng_search)
on NATS, for running OpenHuman as separate processes next to openhuman-core.`

const env = `  OPENHUMAN_SEARCH_ENABLED
                          false turns search off (default true)
  OPENHUMAN_SEARXNG_ENABLED, _BASE_URL, _MAX_RESULTS, _DEFAULT_LANGUAGE, _TIMEOUT_SECONDS
                          your SearXNG instance (default off)
  OPENHUMAN_<NAME>_API_KEY, OPENHUMAN_<NAME>_BASE_URL
                          a provider's key and address; NAME is BRAVE, TAVILY,
                          EXA or GEMINI (default none)
  OPENHUMAN_LLM_BASE_URL, _MODEL, _API_KEY, _TIMEOUT_SECONDS
                          the model web_answer may use (default none)
  OPENHUMAN_REDIS_URL, _PREFIX
                          cache and rate limits shared by replicas
                          (default none: in process)`

func main() {
	s := run.Service{Name: "openhuman-search", MetricsAddr: "127.0.0.1:9303", About: about, Env: env,
		Start: searchmain.Start}
	os.Exit(s.Main(os.Args[1:], os.Stdout, os.Stderr, os.Environ()))
}
