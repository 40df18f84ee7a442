package contract

// Service names, as registered with NATS micro (and so as seen by $SRV.PING).
const (
	ServiceMemory = "memory"
	ServiceAgents = "agents"
	ServiceSearch = "search"
)

// Services lists every service the gateway may route to.
func Services() []string { return []string{ServiceMemory, ServiceAgents, ServiceSearch} }

// SubjectPrefix starts every endpoint subject: openhuman.<service>.<method>.
const SubjectPrefix = "openhuman"

// Subject returns the NATS subject of a service method.
func Subject(service, method string) string { return SubjectPrefix + "." + service + "." + method }

// Methods that are not tools.
const (
	MethodResourcesList = "resources_list"      // agents: the static prompt resources
	MethodResourcesRead = "resources_read"      // agents: one resource by URI
	MethodIngest        = "ingest"              // memory: files as document chunks
	MethodConversation  = "ingest_conversation" // memory: conversation turns
	MethodSearchHealth  = "provider_health"     // search: each provider's state
	MethodRunResult     = "run_result"          // agents: a run's outcome by call id
)

// QueueGroup balances replicas of a service; every endpoint uses it.
const QueueGroup = "openhuman"
