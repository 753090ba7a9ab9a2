package nnue

import (
	_ "embed"
	"sync"
)

// defaultFile is the network built into the binary (engine/nnue/default.nnue):
// the README's NNUE section says which network it is, how it was trained
// and what it measured.
//
//go:embed default.nnue
var defaultFile []byte

// defaultNet parses defaultFile once; the Network is immutable, so every
// engine shares it.
var defaultNet = sync.OnceValues(func() (*Network, error) { return Parse(defaultFile) })

// Default returns the network built into the binary. It cannot fail in a
// binary whose tests passed (TestDefaultNetwork parses it); the error is
// there for a build made from a damaged checkout.
func Default() (*Network, error) { return defaultNet() }
