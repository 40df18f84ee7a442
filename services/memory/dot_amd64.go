package memory

// dot8AVX2 is dot8 over the first n components, n a positive multiple of 32.
//
//go:noescape
func dot8AVX2(a, b *int8, n int) int32

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

var useAVX2 = hasAVX2()

// hasAVX2 asks the CPU, and the OS through XGETBV whether it saves the YMM
// registers on a context switch: both must hold for AVX2 to be usable.
func hasAVX2() bool {
	if maxLeaf, _, _, _ := cpuid(0, 0); maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

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
