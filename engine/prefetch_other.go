//go:build !amd64

package engine

import "unsafe"

// prefetch is a no-op where there is no assembly version.
func prefetch(addr unsafe.Pointer) {}
