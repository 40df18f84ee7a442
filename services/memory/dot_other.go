//go:build !amd64

package memory

const useAVX2 = false

func dot8(a, b []int8) int32 { return dot8Go(a, b) }
