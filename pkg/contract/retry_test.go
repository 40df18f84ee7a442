package contract_test

import (
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// TestRetryable: what the bus may send again when a replica stops
// answering. A write is retried only when a replay of it changes nothing.
func TestRetryable(t *testing.T) {
	want := map[string]bool{
		"memory.learn": true, "memory.forget": true, // ids are content fingerprints; forgetting twice forgets once
		"agent.run_subagent": false, "approval.decide": false, // may have been partly done
	}
	for _, tool := range contract.Tools() {
		w, named := want[tool.Name]
		if !named {
			w = tool.Annotations.ReadOnlyHint != nil && *tool.Annotations.ReadOnlyHint
			if tool.Writes || tool.Acts {
				t.Errorf("%s writes or acts: say here whether it may be retried", tool.Name)
			}
		}
		if tool.Retryable() != w {
			t.Errorf("%s: Retryable() = %v, want %v", tool.Name, tool.Retryable(), w)
		}
		if tool.Endpoint().Retryable != tool.Retryable() {
			t.Errorf("%s: its endpoint disagrees on Retryable", tool.Name)
		}
	}
	for _, ep := range []contract.Endpoint{contract.IngestEndpoint, contract.ConversationEndpoint} {
		if !ep.Retryable {
			t.Errorf("%s is not retryable; a replayed ingest stores nothing twice", ep.Subject())
		}
	}
}
