// Command openhuman-search serves the web tools (web_search, web_answer,
// searxng_search) on NATS (set OPENHUMAN_NATS_URL).
package main

import (
	"fmt"
	"os"

	"github.com/openhuman-go/openhuman-go/pkg/run"
	"github.com/openhuman-go/openhuman-go/services/search/searchmain"
)

func main() {
	if err := run.Service("openhuman-search", "127.0.0.1:9303", os.Args[1:], os.Stderr, os.Getenv, searchmain.Start); err != nil {
		fmt.Fprintln(os.Stderr, "openhuman-search:", err)
		os.Exit(1)
	}
}
