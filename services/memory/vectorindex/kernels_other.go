//go:build !amd64

package vectorindex

const useAVX2 = false

func hammingHist(codes, q []uint64, words int, ds []uint16, hist *[1025]uint32) {
	hammingHistGo(codes, q, words, ds, hist)
}

func dotSlots(base []int8, dim int, slots []int32, q []int8, out []int32) {
	dotSlotsGo(base, dim, slots, q, out)
}
