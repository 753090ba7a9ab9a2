//go:build !race

package fakelichess

const raceEnabled = false
