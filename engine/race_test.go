//go:build race

package engine

import "time"

const raceEnabled = true

// moveTimeNoise is how far past its deadline a timed search may return:
// under the race detector a poll interval (1024 nodes) takes some
// milliseconds and the machine is shared (up to 740 ms measured past a
// 45 ms deadline at load 28 on two cores).
const moveTimeNoise = 1500 * time.Millisecond
