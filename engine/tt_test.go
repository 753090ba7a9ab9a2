package engine

import (
	"testing"
	"unsafe"
)

// TestAllocBuckets checks the table allocation: the length asked for, zeroed,
// and tables of a huge page or more aligned to one.
func TestAllocBuckets(t *testing.T) {
	for _, mb := range []int{0, 1, 2, 3, 16} {
		n := uint64(mb) << 20 / 64
		if n == 0 {
			n = 1
		}
		b := allocBuckets(n)
		if uint64(len(b)) != n || uint64(cap(b)) != n {
			t.Fatalf("%d MiB: len %d cap %d, want %d", mb, len(b), cap(b), n)
		}
		addr := uintptr(unsafe.Pointer(&b[0]))
		if n*64 >= hugePage && addr%hugePage != 0 {
			t.Errorf("%d MiB: table at %#x, not on a huge-page boundary", mb, addr)
		}
		for i := range b {
			for j := range b[i] {
				if b[i][j].data.Load() != 0 || b[i][j].check.Load() != 0 {
					t.Fatalf("%d MiB: bucket %d not zero", mb, i)
				}
			}
		}
	}
}
