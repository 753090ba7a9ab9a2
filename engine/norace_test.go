//go:build !race

package engine

import "time"

const raceEnabled = false

// moveTimeNoise is how far past its deadline a timed search may return:
// a poll interval (1024 nodes, about a millisecond) and the scheduling
// noise of a shared machine (up to 390 ms measured past a 45 ms deadline
// at load 28 on two cores; 2-17 ms at lower load).
const moveTimeNoise = 500 * time.Millisecond
