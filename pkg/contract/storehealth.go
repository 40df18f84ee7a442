package contract

// MethodStoreHealth is memory's method that says whether its storage can be
// trusted; readiness folds it in.
const MethodStoreHealth = "store_health"

// StoreHealthEndpoint serves StoreHealth.
var StoreHealthEndpoint = Endpoint{Service: ServiceMemory, Method: MethodStoreHealth, Input: Object("", nil, nil), Retryable: true, Scope: ScopeRead}

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
}
