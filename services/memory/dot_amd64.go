package memory

import "golang.org/x/sys/cpu"

// dot8AVX2 is dot8 over the first n components, n a positive multiple of 32.
//
//go:noescape
func dot8AVX2(a, b *int8, n int) int32

var useAVX2 = cpu.X86.HasAVX2

// dot8 is the dot product of two int8 codes of the same length; this loop
// is most of a vector search's time, so on CPUs with AVX2 the bulk of it
// runs 32 components a step.
func dot8(a, b []int8) int32 {
	n := min(len(a), len(b))
	if !useAVX2 || n < 32 {
		return dot8Go(a[:n], b[:n])
	}
	bulk := n &^ 31
	return dot8AVX2(&a[0], &b[0], bulk) + dot8Go(a[bulk:n], b[bulk:n])
}
