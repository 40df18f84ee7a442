package memory

import "github.com/openhuman-go/openhuman-go/pkg/contract"

// The arguments of memory's methods are declared once, in pkg/contract,
// where the schema every call is checked against is generated from them;
// these names let the domain speak of them as its own.
type (
	Meta               = contract.Meta
	Filter             = contract.Filter
	RecallParams       = contract.RecallParams
	FetchParams        = contract.FetchParams
	ListParams         = contract.ListParams
	LearnParams        = contract.LearnParams
	ForgetParams       = contract.ForgetParams
	ExportParams       = contract.ExportParams
	ImportParams       = contract.ImportParams
	TreeQuery          = contract.TreeQuery
	ReadChunkParams    = contract.ReadChunkParams
	BrowseParams       = contract.BrowseParams
	TopEntitiesParams  = contract.TopEntitiesParams
	ListSourcesParams  = contract.ListSourcesParams
	IngestParams       = contract.IngestParams
	Turn               = contract.Turn
	ConversationParams = contract.ConversationParams
)
