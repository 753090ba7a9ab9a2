//go:build !race

package board

const raceEnabled = false
