package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"strings"
)

// The corpus: short notes over a vocabulary large enough that a two-word
// query matches about one item in a hundred, as questions about one's own
// notes do.
var vocabulary = func() []string {
	r := rand.New(rand.NewSource(1))
	syll := []string{"ka", "lo", "mi", "ren", "to", "sa", "vel", "dor", "an", "is", "qu", "ber", "tin", "ox", "fe", "ul"}
	seen := map[string]bool{}
	var out []string
	for len(out) < 3000 {
		w := ""
		for n := 2 + r.Intn(2); n > 0; n-- {
			w += syll[r.Intn(len(syll))]
		}
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}()

func note(r *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Note %d:", i)
	for n := 12 + r.Intn(12); n > 0; n-- {
		b.WriteString(" " + vocabulary[r.Intn(len(vocabulary))])
	}
	b.WriteString(".")
	return b.String()
}

func queries() []string {
	r := rand.New(rand.NewSource(2))
	out := make([]string, 256)
	for i := range out {
		out[i] = vocabulary[r.Intn(len(vocabulary))] + " " + vocabulary[r.Intn(len(vocabulary))]
	}
	return out
}

func seed(ctx context.Context, url string, n int) error {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < n; i += 100 {
		var batch []map[string]any
		for j := i; j < min(i+100, n); j++ {
			batch = append(batch, map[string]any{"jsonrpc": "2.0", "id": j, "method": "openhuman.memory_learn", "params": map[string]any{"text": note(r, j)}})
		}
		body, _ := json.Marshal(batch)
		resp, err := post(ctx, http.DefaultClient, url+"/rpc", body, nil)
		if err != nil {
			return err
		}
		if bytes.Contains(resp, []byte(`"error"`)) {
			return fmt.Errorf("seeding failed: %.300s", resp)
		}
	}
	return nil
}
