package contract

// MethodStoreHealth is memory's method that says whether its storage can be
// trusted; readiness folds it in.
const MethodStoreHealth = "store_health"

// StoreHealthEndpoint serves StoreHealth.
var StoreHealthEndpoint = Endpoint{Service: ServiceMemory, Method: MethodStoreHealth, Input: inputFor[NoParams](nil), Retryable: true, Scope: ScopeRead}

// Store health states.
const (
	StoreOK       = "ok"       // the integrity check passed and storage works
	StoreChecking = "checking" // the integrity check run at start has not finished
	StoreDamaged  = "damaged"  // the file is corrupt: the check or a query said so
	StoreFailing  = "failing"  // storage failed again and again in the last minute
	StoreOff      = "off"      // memory is configured on but its database cannot be opened
	StoreDisabled = "disabled" // memory is turned off in the configuration
)

// StoreHealth is the memory service's answer to StoreHealthEndpoint.
type StoreHealth struct {
	// OK is false when memory is configured on but its storage cannot be
	// trusted (damaged, failing or off): the gateway is then not ready.
	OK bool `json:"ok"`
	// State is one of the Store* states.
	State string `json:"state"`
	// Detail says what is wrong and what to do, when something is.
	Detail string `json:"detail,omitempty"`
	// RecentErrors counts storage failures in the last minute (a busy
	// lock or a deadline is not one).
	RecentErrors int `json:"recent_errors"`
	// LastError is the latest of them.
	LastError string `json:"last_error,omitempty"`
	// Embedding is how far embedding has come, when memory is on. It
	// never makes OK false.
	Embedding *EmbeddingProgress `json:"embedding,omitempty"`
}

// EmbeddingProgress is how far the memory service has come in giving every
// item a vector of its active model. A backlog never makes the gateway
// unready: until an item has its vector, searches find it by its words.
type EmbeddingProgress struct {
	// Model is the active embedding model (its vector space).
	Model string `json:"model"`
	// Pending counts the items without a vector of Model, or -1 when they
	// could not be counted.
	Pending int64 `json:"pending"`
	// Failures counts the embedding attempts that failed in a row; 0 once
	// one succeeds.
	Failures int `json:"failures"`
	// LastError is the latest failure's message, and LastErrorAt when it
	// happened (RFC 3339); both stay after a success, to say what it was.
	LastError   string `json:"last_error,omitempty"`
	LastErrorAt string `json:"last_error_at,omitempty"`
	// BackoffSeconds is the wait before the next attempt while the
	// embedder fails, and RetryAt when that attempt is (RFC 3339).
	BackoffSeconds float64 `json:"backoff_seconds,omitempty"`
	RetryAt        string  `json:"retry_at,omitempty"`
	// Detail says it in a sentence a person can act on.
	Detail string `json:"detail"`
	// Configured is the sentence model memory runs itself, when one is
	// configured (the minilm provider, the default, with models on):
	// fetching, failed, fetched (being loaded), refused, or ready.
	Configured *ModelState `json:"configured_model,omitempty"`
	// Reranker is the cross-encoder memory runs itself for ranking's
	// second phase, when models are on: until it is ready memory ranks
	// without it.
	Reranker *ModelState `json:"reranker,omitempty"`
}

// Failing reports whether the embedder's last attempt failed.
func (p EmbeddingProgress) Failing() bool { return p.Failures > 0 }

// The states of a model memory runs itself (ModelState.State).
const (
	ModelFetching = "fetching" // being fetched from the model hub
	ModelFailed   = "failed"   // the last fetch failed; another comes at RetryAt
	ModelFetched  = "fetched"  // on disk; being loaded and self-checked
	ModelRefused  = "refused"  // on disk but failed its self-check: not used
	ModelReady    = "ready"    // loaded, checked and embedding
)

// ModelState is how a model memory runs itself fares (the minilm
// provider's sentence embedder, or the reranker): until it is ready memory
// embeds with its offline embedder and ranks without the reranker, so a
// model that is not ready leaves memory working.
type ModelState struct {
	// Repo is the model's repository on the hub.
	Repo string `json:"repo"`
	// State is one of the Model* states.
	State string `json:"state"`
	// File is the file being fetched, FileBytes how much of it is on
	// disk, and FileSize its size (0 when the hub has not said).
	File      string `json:"file,omitempty"`
	FileBytes int64  `json:"file_bytes,omitempty"`
	FileSize  int64  `json:"file_size,omitempty"`
	// FilesDone counts the model's files fetched whole, of Files.
	FilesDone int `json:"files_done"`
	Files     int `json:"files"`
	// FetchedBytes counts the bytes this process fetched of the model.
	FetchedBytes int64 `json:"fetched_bytes"`
	// Failures counts the fetches that failed in a row; LastError is the
	// latest failure or the self-check's refusal; RetryAt (RFC 3339) is
	// when the next fetch starts.
	Failures  int    `json:"failures,omitempty"`
	LastError string `json:"last_error,omitempty"`
	RetryAt   string `json:"retry_at,omitempty"`
	// Detail says it in a sentence a person can act on.
	Detail string `json:"detail"`
}

// Ready reports whether the model is in use.
func (m ModelState) Ready() bool { return m.State == ModelReady }
