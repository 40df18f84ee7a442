#include "textflag.h"

// func hamming256(codes, q *uint64, ds *uint16, hist *uint32, n int)
// For each of n 4-word codes: ds[i] = popcount(code XOR q), hist[ds[i]]++.
// POPCNT with the same register as source and destination avoids the false
// dependency some CPUs have on its destination.
TEXT ·hamming256(SB), NOSPLIT, $0-40
	MOVQ codes+0(FP), SI
	MOVQ q+8(FP), DI
	MOVQ ds+16(FP), DX
	MOVQ hist+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ 0(DI), R8
	MOVQ 8(DI), R9
	MOVQ 16(DI), R10
	MOVQ 24(DI), R11
	TESTQ CX, CX
	JZ   hdone

hloop:
	MOVQ 0(SI), AX
	XORQ R8, AX
	POPCNTQ AX, AX
	MOVQ 8(SI), R12
	XORQ R9, R12
	POPCNTQ R12, R12
	MOVQ 16(SI), R13
	XORQ R10, R13
	POPCNTQ R13, R13
	MOVQ 24(SI), DI
	XORQ R11, DI
	POPCNTQ DI, DI
	ADDQ R12, AX
	ADDQ R13, DI
	ADDQ DI, AX
	MOVW AX, (DX)
	INCL (BX)(AX*4)
	ADDQ $32, SI
	ADDQ $2, DX
	DECQ CX
	JNZ  hloop

hdone:
	RET

// func dot8SlotsAVX2(base *int8, stride int, slots *int32, n int, q, qabs *int8, out *int32, length int)
// out[i] = dot(base[slots[i]*stride:][:length], q) for each of n slots;
// length is a positive multiple of 32 and every component lies in
// [-127, 127]. Per 32
// components: a·q = |q| · (a with q's sign), which VPMADDUBSW multiplies
// (unsigned × signed) and adds in pairs without saturating (2·127·127 <
// 2^15), then VPMADDWD widens to int32. The next slot's first lines are
// prefetched while this one is scored: slots are scattered over the index.
TEXT ·dot8SlotsAVX2(SB), NOSPLIT, $0-64
	MOVQ base+0(FP), SI
	MOVQ stride+8(FP), R11
	MOVQ length+56(FP), CX
	MOVQ slots+16(FP), BX
	MOVQ n+24(FP), R8
	MOVQ q+32(FP), R9
	MOVQ qabs+40(FP), R10
	MOVQ out+48(FP), R12
	MOVL $0x00010001, AX
	MOVL AX, X7
	VPBROADCASTD X7, Y7
	TESTQ R8, R8
	JZ   sdone

snext:
	MOVLQSX (BX), DI
	IMULQ R11, DI
	ADDQ SI, DI
	CMPQ R8, $1
	JEQ  sscore
	MOVLQSX 4(BX), DX
	IMULQ R11, DX
	ADDQ SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	PREFETCHT0 128(DX)
	PREFETCHT0 192(DX)

sscore:
	VPXOR Y0, Y0, Y0
	XORQ R13, R13

sloop:
	VMOVDQU (DI)(R13*1), Y1
	VPSIGNB (R9)(R13*1), Y1, Y1
	VMOVDQU (R10)(R13*1), Y2
	VPMADDUBSW Y1, Y2, Y3
	VPMADDWD Y7, Y3, Y3
	VPADDD Y3, Y0, Y0
	ADDQ $32, R13
	CMPQ R13, CX
	JLT  sloop

	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, (R12)
	ADDQ $4, BX
	ADDQ $4, R12
	DECQ R8
	JNZ  snext

sdone:
	VZEROUPPER
	RET

// func dot8SlotsVNNI(base *int8, stride int, slots *int32, n int, q *int8, qsum int32, out *int32, length int)
// dot8SlotsAVX2 with AVX-512 VNNI, 64 components a step: VPDPBUSD
// multiplies unsigned by signed bytes and adds each four products into an
// int32 lane, so a slot's code is made unsigned by adding 128 (a XOR 0x80)
// and 128 times the sum of q's components (qsum) is taken off the sum of
// the lanes. Every step is exact integer arithmetic: the same dot product.
TEXT ·dot8SlotsVNNI(SB), NOSPLIT, $0-64
	MOVQ base+0(FP), SI
	MOVQ stride+8(FP), R11
	MOVQ length+56(FP), CX
	MOVQ slots+16(FP), BX
	MOVQ n+24(FP), R8
	MOVQ q+32(FP), R9
	MOVL qsum+40(FP), R10
	SHLL $7, R10
	MOVQ out+48(FP), R12
	MOVL $0x80808080, AX
	VPBROADCASTD AX, Z6
	TESTQ R8, R8
	JZ   vdone

vnext:
	MOVLQSX (BX), DI
	IMULQ R11, DI
	ADDQ SI, DI
	CMPQ R8, $1
	JEQ  vscore
	MOVLQSX 4(BX), DX
	IMULQ R11, DX
	ADDQ SI, DX
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	PREFETCHT0 128(DX)
	PREFETCHT0 192(DX)

vscore:
	VPXORQ Z0, Z0, Z0
	XORQ R13, R13

vloop:
	VMOVDQU64 (DI)(R13*1), Z1
	VPXORQ Z6, Z1, Z1
	VPDPBUSD (R9)(R13*1), Z1, Z0
	ADDQ $64, R13
	CMPQ R13, CX
	JLT  vloop

	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	SUBL R10, AX
	MOVL AX, (R12)
	ADDQ $4, BX
	ADDQ $4, R12
	DECQ R8
	JNZ  vnext

vdone:
	VZEROUPPER
	RET
