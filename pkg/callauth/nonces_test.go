package callauth

import (
	"context"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// A nonce is kept as a copy: kept as the piece of the header it was cut
// from, it would keep the whole decoded header alive until it expires.
func TestNoncesKeepACopy(t *testing.T) {
	n := newNonces()
	header := "v1 key 123 " + strings.Repeat("n", 32) + " " + strings.Repeat("s", 4096)
	nonce := header[11:43]
	if ok, err := n.Add(context.Background(), nonce, time.Now().Add(time.Minute).UnixMilli()); !ok || err != nil {
		t.Fatal(ok, err)
	}
	hdr := uintptr(unsafe.Pointer(unsafe.StringData(header)))
	for kept := range n.seen {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(kept))); p >= hdr && p < hdr+uintptr(len(header)) {
			t.Error("the kept nonce points into the header it came in")
		}
	}
	if ok, _ := n.Add(context.Background(), nonce, time.Now().Add(time.Minute).UnixMilli()); ok {
		t.Error("a nonce seen before was taken again")
	}
}
