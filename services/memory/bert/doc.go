// Package bert runs BERT encoders in Go, without cgo: the WordPiece tokenizer of
// BERT uncased, a safetensors reader, and the forward pass with the two
// heads memory uses, mean pooling for a sentence embedder
// (all-MiniLM-L6-v2) and pooler plus one-logit classifier for a
// cross-encoder reranker (ms-marco-MiniLM-L6-v2).
//
// It is written by hand, about a thousand lines, because the maintained
// pure-Go route (hugot over GoMLX) builds without cgo but brings about a
// hundred modules into the graph and reads ONNX exports only; these
// models need eight kinds of operation, and the safetensors files the hub
// publishes for them are read directly. The tests compare the tokenizer
// with Hugging Face's and the forward pass with ONNX Runtime.
//
// The matrix products are the time; on amd64 with AVX2 and FMA they run
// in a small assembly kernel (kernel_amd64.s), elsewhere (or with the
// purego build tag) in its Go twin, which the tests hold it to.
package bert
