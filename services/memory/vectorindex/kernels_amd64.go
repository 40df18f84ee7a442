package vectorindex

import "golang.org/x/sys/cpu"

// hamming256 is hammingHist for 4-word (256-bit) codes, n of them.
//
//go:noescape
func hamming256(codes, q *uint64, ds *uint16, hist *uint32, n int)

// dot8SlotsAVX2 is dotSlots over the first length components of each slot
// (stride apart), length a positive multiple of 32, with qabs holding |q|.
//
//go:noescape
func dot8SlotsAVX2(base *int8, stride int, slots *int32, n int, q, qabs *int8, out *int32, length int)

// dot8SlotsVNNI is dotSlots over the first length components of each slot,
// length a positive multiple of 64, with qsum the sum of q's first length.
//
//go:noescape
func dot8SlotsVNNI(base *int8, stride int, slots *int32, n int, q *int8, qsum int32, out *int32, length int)

// cpu checks the OS side of AVX2 too: that it saves the YMM registers on
// a context switch.
var (
	useAVX2   = cpu.X86.HasAVX2
	usePOPCNT = cpu.X86.HasPOPCNT
	useVNNI   = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI
)

// hammingHist writes into ds the Hamming distance of each code (words
// uint64 each) to q, capped at 1024, and counts each distance in hist.
// The pre-pass runs it over every code of the index; the assembly loop is
// kept because BenchmarkHammingHist has it some three times as fast as
// hammingHistGo.
func hammingHist(codes, q []uint64, words int, ds []uint16, hist *[1025]uint32) {
	if words != 4 || !usePOPCNT || len(ds) == 0 || len(q) < 4 {
		hammingHistGo(codes, q, words, ds, hist)
		return
	}
	hamming256(&codes[0], &q[0], &ds[0], &hist[0], min(len(ds), len(codes)/4))
}

// dotSlots writes into out the dot product of q with the code of each slot
// of base (dim components a slot). Components must lie in [-127, 127], as
// quantize makes them. This loop is most of a vector search's time, so on
// CPUs with AVX2 it runs 32 components a step: BenchmarkDotSlots has that
// over ten times as fast as dotSlotsGo.
func dotSlots(base []int8, dim int, slots []int32, q []int8, out []int32) {
	bulk := dim &^ 31
	if !useAVX2 || bulk == 0 || len(slots) == 0 || len(q) < dim || len(out) < len(slots) {
		dotSlotsGo(base, dim, slots, q, out)
		return
	}
	n := int32(len(base) / dim)
	for _, s := range slots {
		if s < 0 || s >= n {
			panic("vectorindex: slot out of range")
		}
	}
	if wide := dim &^ 63; useVNNI && wide > 0 {
		// With VNNI, 64 components a step: over 3,000 codes of 256
		// components it takes 11 µs of CPU where the AVX2 loop takes 20.
		var qsum int32
		for _, c := range q[:wide] {
			qsum += int32(c)
		}
		dot8SlotsVNNI(&base[0], dim, &slots[0], len(slots), &q[0], qsum, &out[0], wide)
		bulk = wide
	} else {
		var buf [4096]int8
		qabs := buf[:0]
		if bulk > len(buf) {
			qabs = make([]int8, 0, bulk)
		}
		for _, c := range q[:bulk] {
			qabs = append(qabs, max(c, -c))
		}
		dot8SlotsAVX2(&base[0], dim, &slots[0], len(slots), &q[0], &qabs[0], &out[0], bulk)
	}
	if bulk < dim { // the components past the last whole step, in Go
		for i, s := range slots {
			out[i] += dot8Go(base[int(s)*dim+bulk:(int(s)+1)*dim], q[bulk:dim])
		}
	}
}
