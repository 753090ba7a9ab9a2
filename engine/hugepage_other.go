//go:build !linux

package engine

// adviseHuge does nothing where there is no madvise(MADV_HUGEPAGE).
func adviseHuge(b []byte) {}
