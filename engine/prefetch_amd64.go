package engine

import "unsafe"

// prefetch asks the CPU to bring the cache line at addr closer (a hint: no
// fault, no effect on results).
//
//go:noescape
func prefetch(addr unsafe.Pointer)
