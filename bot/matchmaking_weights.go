package bot

import (
	"math/rand/v2"

	"github.com/ponderosa-chess/ponderosa/config"
)

// pickTimeControl picks one of tcs (not empty) at random, each as often as
// its weight says (a weight below 1 counts as 1).
func pickTimeControl(rng *rand.Rand, tcs []config.TimeControl) config.TimeControl {
	total := 0
	for _, tc := range tcs {
		total += max(tc.Weight, 1)
	}
	n := rng.IntN(total)
	for _, tc := range tcs {
		if n -= max(tc.Weight, 1); n < 0 {
			return tc
		}
	}
	return tcs[len(tcs)-1]
}
