package main

// usage is what --help prints; commandHelp cuts one command's part of it.
const usage = `openhuman-core: OpenHuman Core's MCP server and tools.

Usage:
  openhuman-core [flags] mcp [--profile v1]   serve MCP over stdin/stdout (for Claude Desktop, Cursor, Zed, Codex);
                                              --profile v1 serves the older read-only memory-tree tools
  openhuman-core [flags] serve [--addr A]     serve HTTP: the console at /console/, MCP at /mcp, JSON-RPC at /rpc,
                                              /metrics, /healthz, /readyz
                                              (default address 127.0.0.1:9300, or $OPENHUMAN_HTTP_ADDR)
  openhuman-core [flags] call TOOL [ARGS]     call one tool and print its result; ARGS is a JSON object, or - to read it from stdin
  openhuman-core [flags] ingest PATH...       store files and folders in memory as chunks (respects .gitignore,
                                              skips secret files unless named; exit status 3 when some files failed;
                                              --workspace W, --max-file-size BYTES, --conversation for turn files)
  openhuman-core [flags] forget [ID...]       forget items for good: by id, or --source PATH (everything ingested from
                                              a file, or from any file under a folder), --workspace W (all of its
                                              items); --dry-run counts them first and forgets nothing
  openhuman-core [flags] export [FILE|-]      write every item as JSON Lines (docs/export.md) to FILE or stdout;
                                              --workspace W, --since TIME (RFC 3339 or a date)
  openhuman-core [flags] import FILE          store an export's items again, ids kept (importing twice stores nothing
                                              twice); exit status 3 when some lines were refused, each named on stderr;
                                              --from server-memory|basic-memory|mem0|claude|chatgpt (default: detected)
                                              reads another tool's memory, --workspace W puts it there
  openhuman-core [flags] backup FILE          copy memory and the audit, consistent, while serve keeps serving
  openhuman-core [flags] restore FILE         put a backup into a home no openhuman-core is running on (--force
                                              replaces the memory it holds)
  openhuman-core [flags] models pull|list|verify|rm
                                              the models memory runs itself (docs/models.md): pull fetches the sentence
                                              model and the reranker into $OPENHUMAN_HOME/models (OPENHUMAN_MODELS_DIR)
                                              from OPENHUMAN_MODELS_HUB_URL, showing each file's bytes on stderr, for a
                                              folder to copy to a machine without internet; list shows each model's
                                              commit, files and sizes; verify checks every file's SHA-256 and runs the
                                              self-check (exit status 1 naming what failed); rm NAME|--all removes one
                                              (embedder, reranker, or its repository) or all
  openhuman-core token new NAME               print a new bearer token for serve and the config.toml lines that
                                              declare it (--scopes read,act; default read; --workspaces a,b)
  openhuman-core buskeys                      print a new set of the keys that sign calls on the bus, for a
                                              deployment's .env (embedded mode makes its own)
  openhuman-core [flags] healthcheck [--addr A]
                                              exit 0 when serve's /readyz there answers 200, else 1 with the reason
  openhuman-core version                      print the version (or --version)

Flags (anywhere after openhuman-core, before or after the command and its words):
  --home DIR    data and config directory (default $OPENHUMAN_HOME or ~/.openhuman)
  --verbose     debug logs on stderr

Environment (docs/configuration.md lists every setting and its variable):
  OPENHUMAN_HOME          data and config directory (default ~/.openhuman)
  OPENHUMAN_CONFIG        config file (default $OPENHUMAN_HOME/config.toml)
  OPENHUMAN_NATS_URL      NATS server of separately run services (default none:
                          everything in this process on an embedded NATS server)
  OPENHUMAN_NATS_USER, OPENHUMAN_NATS_PASSWORD
                          its credentials, or OPENHUMAN_NATS_TOKEN, _NKEY or _CREDS
                          (TLS: OPENHUMAN_NATS_TLS_CA, _TLS_CERT, _TLS_KEY)
  OPENHUMAN_BUS_SIGNING_SEED, OPENHUMAN_BUS_GATEWAY_KEY, OPENHUMAN_BUS_AGENTS_KEY
                          with OPENHUMAN_NATS_URL: the seed the gateway signs calls with, and
                          the keys services trust (openhuman-core buskeys makes a set)
  OPENHUMAN_HTTP_ADDR     serve's address (default 127.0.0.1:9300)
  OPENHUMAN_API_TOKEN     a bearer token serve accepts with every scope (default none; with no
                          token at all serve answers everyone, on a loopback address only)
  OPENHUMAN_HTTP_PUBLIC_URL
                          the https origin remote clients reach serve at (a TLS proxy in front):
                          turns on OAuth sign-in for Claude, ChatGPT, VS Code (docs/oauth.md)
  OPENHUMAN_MCP_PROFILE   mcp's tool surface, v2 or v1 (default v2)
  OPENHUMAN_LOG_LEVEL     debug, info, warn or error (default info)
  OPENHUMAN_SHUTDOWN_GRACE_SECONDS
                          on SIGTERM, serve lets requests being handled finish this long (default 20)
  OPENHUMAN_LLM_MODEL, OPENHUMAN_SEARXNG_ENABLED, OPENHUMAN_BRAVE_API_KEY, ...
                          models and web search (default none)

Ports: serve listens on 127.0.0.1:9300 (MCP at /mcp, JSON-RPC at /rpc,
/metrics); mcp, call, ingest, forget, export, import, backup and models open none
(models pull connects to the model hub). The embedded NATS server opens no
port. Logs go to stderr; stdout is for MCP and results.
`
