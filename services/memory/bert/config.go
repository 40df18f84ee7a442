package bert

import (
	"encoding/json"
	"os"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// Config is what the forward pass reads of a model's config.json.
type Config struct {
	VocabSize         int     `json:"vocab_size"`
	Hidden            int     `json:"hidden_size"`
	Layers            int     `json:"num_hidden_layers"`
	Heads             int     `json:"num_attention_heads"`
	Intermediate      int     `json:"intermediate_size"`
	MaxPositions      int     `json:"max_position_embeddings"`
	TypeVocabSize     int     `json:"type_vocab_size"`
	LayerNormEps      float64 `json:"layer_norm_eps"`
	HiddenAct         string  `json:"hidden_act"`
	PositionEmbedding string  `json:"position_embedding_type"`
}

// ReadConfig reads and checks config.json.
func ReadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, contract.Errorf(contract.CodeEngine, "reading the model's config: %v", err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, contract.Errorf(contract.CodeEngine, "the model's config is not JSON: %v", err)
	}
	return c, c.check()
}

func (c *Config) check() error {
	if c.LayerNormEps == 0 {
		c.LayerNormEps = 1e-12
	}
	if c.TypeVocabSize == 0 {
		c.TypeVocabSize = 2
	}
	switch {
	case c.Hidden <= 0 || c.Layers <= 0 || c.Heads <= 0 || c.Intermediate <= 0 || c.MaxPositions <= 0 || c.VocabSize <= 0:
		return contract.Errorf(contract.CodeEngine, "the model's config lacks a size: %+v", *c)
	case c.Hidden%c.Heads != 0:
		return contract.Errorf(contract.CodeEngine, "the model's hidden size %d is not a multiple of its %d heads", c.Hidden, c.Heads)
	case c.HiddenAct != "" && c.HiddenAct != "gelu":
		return contract.Errorf(contract.CodeEngine, "the model's activation %q is not supported (gelu is)", c.HiddenAct)
	case c.PositionEmbedding != "" && c.PositionEmbedding != "absolute":
		return contract.Errorf(contract.CodeEngine, "the model's position embedding %q is not supported (absolute is)", c.PositionEmbedding)
	}
	return nil
}
