//go:build !amd64 || purego

package bert

// haveAVX2 is false where there is no assembly kernel (other processors,
// or a build with the purego tag).
const haveAVX2 = false

func kernel4x2AVX2(x0, x1, x2, x3, w0, w1 *float32, n int, s *[8]float32) {
	panic("bert: no assembly kernel in this build")
}
