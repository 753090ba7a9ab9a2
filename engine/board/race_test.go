//go:build race

package board

const raceEnabled = true
