// Package deploy holds the checks of the deployment files beside it:
// docker-compose.yml and compose.local.yml loaded as Compose loads them and
// held to the configuration the binaries read (compose_test.go), and the
// container tests run against the stack make up-local starts
// (stack_test.go, OPENHUMAN_TEST_COMPOSE=1). local/searxng-fake is the
// SearXNG stand-in of that stack.
package deploy
