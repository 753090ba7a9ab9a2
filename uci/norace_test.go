//go:build !race

package uci_test

const raceEnabled = false
