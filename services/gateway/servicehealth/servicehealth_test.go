package servicehealth_test

import (
	"testing"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/gateway/servicehealth"
)

// TestSearchStatus: each mix of provider states has its word, and the
// detail names every provider that is not ok.
func TestSearchStatus(t *testing.T) {
	yes, no := true, false
	ok := contract.SearchProvider{Name: "brave", State: contract.ProviderClosed, Reachable: &yes}
	failing := contract.SearchProvider{Name: "tavily", State: contract.ProviderClosed, Reachable: &no, Detail: "its last call failed"}
	untested := contract.SearchProvider{Name: "exa", State: contract.ProviderClosed, Detail: "not called yet"}
	open := contract.SearchProvider{Name: "searxng", State: contract.ProviderOpen, Detail: "circuit open"}
	absent := contract.SearchProvider{Name: "gemini", State: contract.ProviderNotConfigured}
	for _, tc := range []struct {
		name         string
		providers    []contract.SearchProvider
		word, detail string
	}{
		{"none", nil, "", ""},
		{"none configured", []contract.SearchProvider{absent}, "", ""},
		{"all answered", []contract.SearchProvider{ok, absent}, servicehealth.SearchOK, ""},
		{"none called", []contract.SearchProvider{untested}, servicehealth.SearchUntested, "exa: not called yet"},
		{"one untested beside one that answered", []contract.SearchProvider{ok, untested}, servicehealth.SearchOK, ""},
		{"one failing", []contract.SearchProvider{ok, failing}, servicehealth.SearchDegraded, "tavily: its last call failed"},
		{"one skipped", []contract.SearchProvider{open, ok}, servicehealth.SearchDegraded, "searxng: circuit open"},
		{"all skipped", []contract.SearchProvider{open, absent}, servicehealth.SearchUnavailable, "every configured provider is skipped: searxng: circuit open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			word, detail := servicehealth.SearchStatus(tc.providers)
			if word != tc.word || detail != tc.detail {
				t.Errorf("SearchStatus = %q, %q; want %q, %q", word, detail, tc.word, tc.detail)
			}
		})
	}
}
