package vectorindex

import "math/bits"

// The portable kernels: what other CPUs run, and what the batched ones are
// tested against.

// dot8Go is the dot product of two int8 codes in portable Go; four
// accumulators let the CPU overlap the multiplies.
func dot8Go(a, b []int8) int32 {
	var s0, s1, s2, s3 int32
	for len(a) >= 8 && len(b) >= 8 {
		x, y := a[:8:8], b[:8:8]
		s0 += int32(x[0])*int32(y[0]) + int32(x[4])*int32(y[4])
		s1 += int32(x[1])*int32(y[1]) + int32(x[5])*int32(y[5])
		s2 += int32(x[2])*int32(y[2]) + int32(x[6])*int32(y[6])
		s3 += int32(x[3])*int32(y[3]) + int32(x[7])*int32(y[7])
		a, b = a[8:], b[8:]
	}
	for i := range min(len(a), len(b)) {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// hammingHistGo is hammingHist in portable Go.
func hammingHistGo(codes, q []uint64, words int, ds []uint16, hist *[1025]uint32) {
	for s := range ds {
		if len(codes) < (s+1)*words {
			return
		}
		d := 0
		for i, w := range codes[s*words : (s+1)*words] {
			d += bits.OnesCount64(w ^ q[i])
		}
		d = min(d, 1024)
		ds[s] = uint16(d)
		hist[d]++
	}
}

// dotSlotsGo is dotSlots without the batched vector code.
func dotSlotsGo(base []int8, dim int, slots []int32, q []int8, out []int32) {
	for i, s := range slots {
		out[i] = dot8Go(base[int(s)*dim:(int(s)+1)*dim], q)
	}
}
