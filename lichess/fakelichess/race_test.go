//go:build race

package fakelichess

// raceEnabled: the race detector is on (the four-piece tables take about
// fifteen times longer to solve under it).
const raceEnabled = true
