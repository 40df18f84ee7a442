//go:build amd64 && !purego

package bert

import "golang.org/x/sys/cpu"

// haveAVX2 says whether the assembly kernel may run: AVX2 and FMA, which
// x86-64 processors have had since 2013 and a virtual machine may hide.
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernel4x2AVX2 is kernel4x2 eight lanes at a time; n is a multiple of 8.
//
//go:noescape
func kernel4x2AVX2(x0, x1, x2, x3, w0, w1 *float32, n int, s *[8]float32)
