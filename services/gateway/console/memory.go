package console

import "net/http"

// hit is a memory item as memory.list and memory.fetch return it.
type hit struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Text       string   `json:"text"`
	Meta       hitMeta  `json:"meta"`
	Score      *float64 `json:"score"`
	Confidence *float64 `json:"confidence"`
	// Explain is where Score came from, when the fetch asked.
	Explain *explanation `json:"explain"`
}

// explanation is a hit's rank profile and the features its score read.
type explanation struct {
	Profile  string    `json:"profile"`
	Features []feature `json:"features"`
}

type feature struct {
	Name   string  `json:"name"`
	Phase  string  `json:"phase"`
	Value  float64 `json:"value"`
	Weight float64 `json:"weight"`
}

// Product is what the feature adds to the score of its phase.
func (f feature) Product() float64 { return f.Value * f.Weight }

type hitMeta struct {
	Source       string   `json:"source"`
	Provenance   string   `json:"provenance"`
	LearningKind string   `json:"learning_kind"`
	ObservedAt   string   `json:"observed_at"`
	CreatedAt    string   `json:"created_at"`
	Tags         []string `json:"tags"`
	SourceID     string   `json:"source_id"`
	SourceRef    string   `json:"source_ref"`
	SupersededBy string   `json:"superseded_by"`
	Workspace    string   `json:"workspace"`
	Language     string   `json:"language"`
	FilePath     string   `json:"file_path"`
	URL          string   `json:"url"`
}

// page is a page of items and the cursor of the next.
type page struct {
	Items      []hit    `json:"items"`
	Hits       []hit    `json:"hits"`
	NextCursor string   `json:"next_cursor"`
	Mode       string   `json:"mode"`
	Warnings   []string `json:"warnings"`
}

// chunk is a memory-tree row (tree.browse), with the item's id.
type chunk struct {
	ID             string   `json:"id"`
	SourceKind     string   `json:"source_kind"`
	SourceID       string   `json:"source_id"`
	SourceRef      string   `json:"source_ref"`
	Owner          string   `json:"owner"`
	TimestampMS    int64    `json:"timestamp_ms"`
	TokenCount     int      `json:"token_count"`
	ContentPreview string   `json:"content_preview"`
	Tags           []string `json:"tags"`
}

type chunkList struct {
	Chunks []chunk `json:"chunks"`
	Total  int     `json:"total"`
}

// fullItem is tree.read_chunk's answer: the whole text, the item and its
// entities.
type fullItem struct {
	Chunk    chunk  `json:"chunk"`
	Content  string `json:"content"`
	Item     hit    `json:"item"`
	Entities []struct {
		ID      string `json:"entity_id"`
		Kind    string `json:"kind"`
		Surface string `json:"surface"`
	} `json:"entities"`
}

// readItem reads one item in full through the gateway.
func (c *Console) readItem(r *http.Request, id string) (*fullItem, error) {
	var out fullItem
	if err := c.call(r, "openhuman.memory_tree_get_chunk", map[string]any{"chunk_id": id}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
