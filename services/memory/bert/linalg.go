package bert

import (
	"math"
	"sync"
)

// parallelMin is the multiply-adds from which a matrix product is split
// across cores: below it, starting goroutines costs more than it saves.
const parallelMin = 1 << 17

// apply writes x·Wᵀ + b into y, x of n rows. The output columns are split
// across the cores: each worker reads all of x and its own rows of W, so
// no two write the same memory.
func (l *linear) apply(x, y []float32, n int) {
	w := workers()
	if n*l.in*l.out < parallelMin || w == 1 {
		l.cols(x, y, n, 0, l.out)
		return
	}
	var wg sync.WaitGroup
	chunk := (l.out + w - 1) / w
	chunk = (chunk + 1) &^ 1 // even, for the kernel's pairs of columns
	for lo := 0; lo < l.out; lo += chunk {
		hi := min(lo+chunk, l.out)
		wg.Go(func() { l.cols(x, y, n, lo, hi) })
	}
	wg.Wait()
}

// cols computes output columns [lo, hi) for every row, four rows by two
// columns at a time: each value loaded serves several multiply-adds,
// which is most of what blocking buys. The last rows, when fewer than
// four, go through the same kernel from a copy padded with zeros.
func (l *linear) cols(x, y []float32, n, lo, hi int) {
	in, out := l.in, l.out
	full := n &^ 3
	var tail []float32
	if full < n {
		tail = make([]float32, 4*in)
		copy(tail, x[full*in:n*in])
	}
	j := lo
	for ; j+1 < hi; j += 2 {
		w0, w1 := l.w[j*in:(j+1)*in], l.w[(j+1)*in:(j+2)*in]
		var s [8]float32
		for i := 0; i < full; i += 4 {
			kernel4x2(x[i*in:(i+4)*in], w0, w1, in, &s)
			l.put(y, i, 4, j, &s)
		}
		if tail != nil {
			kernel4x2(tail, w0, w1, in, &s)
			l.put(y, full, n-full, j, &s)
		}
	}
	for ; j < hi; j++ {
		w := l.w[j*in : (j+1)*in]
		for i := range n {
			y[i*out+j] = dot(x[i*in:(i+1)*in], w) + l.b[j]
		}
	}
}

// put writes rows [i, i+rows) of columns j and j+1 from a kernel's sums,
// with the bias.
func (l *linear) put(y []float32, i, rows, j int, s *[8]float32) {
	for r := range rows {
		y[(i+r)*l.out+j] = s[2*r] + l.b[j]
		y[(i+r)*l.out+j+1] = s[2*r+1] + l.b[j+1]
	}
}

// kernel4x2 sets s to the dot products of four rows of x (each in long)
// with w0 and w1, row-major: s[2r] is row r with w0. Where the processor
// has AVX2 and FMA and in is a multiple of 8 (all of MiniLM's sizes), an
// assembly kernel does it eight lanes at a time, about five times as
// fast; the Go loop below is the reference it is tested against.
func kernel4x2(x, w0, w1 []float32, in int, s *[8]float32) {
	if haveAVX2 && in%8 == 0 && in > 0 {
		_ = x[4*in-1]
		_, _ = w0[in-1], w1[in-1]
		kernel4x2AVX2(&x[0], &x[in], &x[2*in], &x[3*in], &w0[0], &w1[0], in, s)
		return
	}
	kernel4x2Go(x, w0, w1, in, s)
}

func kernel4x2Go(x, w0, w1 []float32, in int, s *[8]float32) {
	x0, x1, x2, x3 := x[:in], x[in:2*in], x[2*in:3*in], x[3*in:4*in]
	w0, w1 = w0[:in], w1[:in]
	var a0, a1, a2, a3, b0, b1, b2, b3 float32
	for k := range in {
		u, v := w0[k], w1[k]
		a0 += x0[k] * u
		b0 += x0[k] * v
		a1 += x1[k] * u
		b1 += x1[k] * v
		a2 += x2[k] * u
		b2 += x2[k] * v
		a3 += x3[k] * u
		b3 += x3[k] * v
	}
	*s = [8]float32{a0, b0, a1, b1, a2, b2, a3, b3}
}

// dot is a·b over len(a), in four partial sums for the pipeline's sake.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	k := 0
	for ; k+3 < len(a); k += 4 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
		s2 += a[k+2] * b[k+2]
		s3 += a[k+3] * b[k+3]
	}
	for ; k < len(a); k++ {
		s0 += a[k] * b[k]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds a·x to y.
func axpy(a float32, x, y []float32) {
	y = y[:len(x)]
	for k, v := range x {
		y[k] += a * v
	}
}

// softmax replaces row with its softmax, less its maximum first so that
// exp cannot overflow.
func softmax(row []float32) {
	m := row[0]
	for _, v := range row {
		m = max(m, v)
	}
	var sum float64
	for i, v := range row {
		e := math.Exp(float64(v - m))
		row[i] = float32(e)
		sum += e
	}
	inv := float32(1 / sum)
	for i := range row {
		row[i] *= inv
	}
}

// apply normalises each row of x (width h) to zero mean and unit variance,
// then scales and shifts it.
func (ln layerNorm) apply(x []float32, h int, eps float64) {
	for r := 0; r < len(x); r += h {
		row := x[r : r+h]
		var mean, vr float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(h)
		for _, v := range row {
			d := float64(v) - mean
			vr += d * d
		}
		inv := 1 / math.Sqrt(vr/float64(h)+eps)
		for i, v := range row {
			row[i] = float32((float64(v)-mean)*inv)*ln.g[i] + ln.b[i]
		}
	}
}
