package bot

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
)

// TestPickTimeControlWeights: with weights 3 and 1, the first time control
// is picked about three times as often (a fixed seed: the counts are
// deterministic; the bounds hold for any fair pick with near certainty).
func TestPickTimeControlWeights(t *testing.T) {
	cfg := defaultConfig(t, map[string]string{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "3+0*3, 5+3"}).Matchmaking
	if len(cfg.TimeControls) != 2 || cfg.TimeControls[0].Weight != 3 || cfg.TimeControls[1].Weight != 1 {
		t.Fatalf("parsed %+v", cfg.TimeControls)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[time.Duration]int{}
	const n = 8000
	for range n {
		counts[pickTimeControl(rng, cfg.TimeControls).Base]++
	}
	if c := counts[3*time.Minute]; c < n*70/100 || c > n*80/100 {
		t.Errorf("3+0 (weight 3 of 4) picked %d times of %d, want about 75%%", c, n)
	}
	for _, bad := range []string{"3+0*0", "3+0*101", "3+0*x", "3+0*"} {
		m := map[string]string{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": bad}
		if _, err := config.Load(func(k string) string { return m[k] }); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
