//go:build !amd64

package nnuetrain

// addVec is the pure-Go kernel where there is no assembly one.
var addVec vecAdd = addGo

// addSIMD is addGo here (tests compare the two on every platform).
func addSIMD(dst, src []float32) { addGo(dst, src) }
