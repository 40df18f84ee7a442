package bert

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestHalfToFloat(t *testing.T) {
	for h, want := range map[uint16]float32{
		0x3c00: 1, 0xc000: -2, 0x3555: 0.33325195, 0x7bff: 65504, 0x0001: 5.9604645e-08,
		0x0200: 3.0517578e-05, 0x8000: float32(math.Copysign(0, -1)), 0x7c00: float32(math.Inf(1)),
	} {
		if got := halfToFloat(h); got != want || math.Signbit(float64(got)) != math.Signbit(float64(want)) {
			t.Errorf("%#04x: got %g, want %g", h, got, want)
		}
	}
}

// TestSafetensorsRefusesDamage: a cut file, a header out of bounds and a
// tensor whose bytes do not hold its shape are errors, not garbage
// weights.
func TestSafetensorsRefusesDamage(t *testing.T) {
	var good bytes.Buffer
	if err := WriteSafetensors(&good, map[string]Tensor{"a": {Shape: []int{2, 3}, Data: []float32{1, 2, 3, 4, 5, 6}}}); err != nil {
		t.Fatal(err)
	}
	header := func(json string) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(json)))
		return append(append(b, json...), make([]byte, 24)...)
	}
	for name, data := range map[string][]byte{
		"cut":         good.Bytes()[:good.Len()-4],
		"huge header": binary.LittleEndian.AppendUint64(nil, 1<<40),
		"wrong size":  header(`{"a":{"dtype":"F32","shape":[2,4],"data_offsets":[0,24]}}`),
		"not json":    header(`{"a":`),
	} {
		path := filepath.Join(t.TempDir(), "m.safetensors")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadSafetensors(path); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := os.WriteFile(path, good.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadSafetensors(path)
	if err != nil || len(ts["a"].Data) != 6 || ts["a"].Data[5] != 6 {
		t.Fatalf("%v %v", ts, err)
	}
	// An integer buffer beside the weights is left out, not an error.
	mixed := header(`{"embeddings.position_ids":{"dtype":"I64","shape":[3],"data_offsets":[0,24]},"__metadata__":{"format":"pt"}}`)
	if err := os.WriteFile(path, mixed, 0o644); err != nil {
		t.Fatal(err)
	}
	if ts, err := ReadSafetensors(path); err != nil || len(ts) != 0 {
		t.Fatalf("%v %v", ts, err)
	}
}
