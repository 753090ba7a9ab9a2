package engine

import "syscall"

// adviseHuge asks the kernel to back b with transparent huge pages. It is
// only advice: errors (no THP support, older kernels) are ignored.
func adviseHuge(b []byte) { _ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) }
