package bert

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"sort"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// maxHeader bounds a safetensors header; the format's own limit is 100 MB
// and real headers are a few kilobytes.
const maxHeader = 100 << 20

// Tensor is a float32 tensor, row-major.
type Tensor struct {
	Shape []int
	Data  []float32
}

type tensorInfo struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

// ReadSafetensors reads the float tensors of a safetensors file (an
// 8-byte little-endian header length, a JSON header naming each tensor's
// type, shape and byte range, then the raw little-endian data), converting
// F16 and BF16 to float32. Tensors of other types are left out: integer
// buffers some checkpoints carry (embeddings.position_ids) are not
// weights, and a weight that is missing is NewModel's to report.
func ReadSafetensors(path string) (map[string]Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, contract.Errorf(contract.CodeEngine, "opening the model's weights: %v", err)
	}
	defer f.Close()
	infos, base, err := readHeader(f)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(infos))
	for n := range infos {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make(map[string]Tensor, len(infos))
	for _, n := range names {
		if floatSize[infos[n].DType] == 0 {
			continue
		}
		t, err := readTensor(f, base, infos[n])
		if err != nil {
			return nil, contract.Errorf(contract.CodeEngine, "the model's tensor %s: %v", n, contract.ErrorMessage(err))
		}
		out[n] = t
	}
	return out, nil
}

func readHeader(f *os.File) (map[string]tensorInfo, int64, error) {
	var n uint64
	if err := binary.Read(f, binary.LittleEndian, &n); err != nil {
		return nil, 0, contract.Errorf(contract.CodeEngine, "the model's weights are not safetensors: %v", err)
	}
	if n == 0 || n > maxHeader {
		return nil, 0, contract.Errorf(contract.CodeEngine, "the model's weights are not safetensors: header of %d bytes", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, 0, contract.Errorf(contract.CodeEngine, "the model's weights are cut short: %v", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(buf, &raw); err != nil {
		return nil, 0, contract.Errorf(contract.CodeEngine, "the model's weights have a bad header: %v", err)
	}
	infos := make(map[string]tensorInfo, len(raw))
	for name, v := range raw {
		if name == "__metadata__" {
			continue
		}
		var ti tensorInfo
		if err := json.Unmarshal(v, &ti); err != nil {
			return nil, 0, contract.Errorf(contract.CodeEngine, "the model's tensor %s has a bad header: %v", name, err)
		}
		infos[name] = ti
	}
	return infos, int64(8 + n), nil
}

// floatSize is the bytes of a value of each type read.
var floatSize = map[string]int{"F32": 4, "F16": 2, "BF16": 2}

func readTensor(f *os.File, base int64, ti tensorInfo) (Tensor, error) {
	count := 1
	for _, d := range ti.Shape {
		count *= d
	}
	size := floatSize[ti.DType]
	if ti.Offsets[1]-ti.Offsets[0] != int64(count*size) || ti.Offsets[0] < 0 {
		return Tensor{}, contract.Errorf(contract.CodeEngine, "byte range %v does not hold shape %v", ti.Offsets, ti.Shape)
	}
	buf := make([]byte, count*size)
	if _, err := f.ReadAt(buf, base+ti.Offsets[0]); err != nil {
		return Tensor{}, contract.Errorf(contract.CodeEngine, "cut short: %v", err)
	}
	t := Tensor{Shape: ti.Shape, Data: make([]float32, count)}
	for i := range t.Data {
		switch ti.DType {
		case "F32":
			t.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		case "F16":
			t.Data[i] = halfToFloat(binary.LittleEndian.Uint16(buf[2*i:]))
		case "BF16":
			t.Data[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(buf[2*i:])) << 16)
		}
	}
	return t, nil
}

// halfToFloat widens an IEEE 754 half-precision number.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: normalise.
	e := uint32(113)
	for frac&0x400 == 0 {
		frac <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (frac&0x3ff)<<13)
}

// WriteSafetensors writes tensors as F32 safetensors: the tests' models,
// and a way to keep a converted model.
func WriteSafetensors(w io.Writer, tensors map[string]Tensor) error {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	header := make(map[string]tensorInfo, len(names))
	var off int64
	for _, n := range names {
		size := int64(4 * len(tensors[n].Data))
		header[n] = tensorInfo{DType: "F32", Shape: tensors[n].Shape, Offsets: [2]int64{off, off + size}}
		off += size
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	if err := binary.Write(w, binary.LittleEndian, uint64(len(h))); err != nil {
		return err
	}
	if _, err := w.Write(h); err != nil {
		return err
	}
	for _, n := range names {
		if err := binary.Write(w, binary.LittleEndian, tensors[n].Data); err != nil {
			return err
		}
	}
	return nil
}
