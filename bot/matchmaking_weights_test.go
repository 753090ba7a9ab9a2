package bot

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// TestPickOfferWeights: with time-control weights 3 and 1, variant weights
// 3 and 1 and both modes, the first time control is picked about three
// times as often, chess960 one challenge in four, rated half the time (a
// fixed seed: the counts are deterministic; the bounds hold for any fair
// pick with near certainty).
func TestPickOfferWeights(t *testing.T) {
	cfg := defaultConfig(t, map[string]string{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "3+0*3, 5+3",
		"PONDEROSA_MATCHMAKING_VARIANTS": "standard*3,chess960", "PONDEROSA_MATCHMAKING_RATED": "both"}).Matchmaking
	if len(cfg.TimeControls) != 2 || cfg.TimeControls[0].Weight != 3 || cfg.TimeControls[1].Weight != 1 {
		t.Fatalf("parsed %+v", cfg.TimeControls)
	}
	offers := offersOf(cfg)
	if len(offers) != 8 {
		t.Fatalf("%d offers, want 2 time controls × 2 variants × 2 modes", len(offers))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var blitz3, c960, rated int
	const n = 8000
	for range n {
		o := offers[pickOffer(rng, offers)]
		if o.tc.Base == 3*time.Minute {
			blitz3++
		}
		if o.variant == "chess960" {
			c960++
		}
		if o.rated {
			rated++
		}
	}
	within := func(what string, got, lo, hi int) {
		if got < n*lo/100 || got > n*hi/100 {
			t.Errorf("%s picked %d times of %d, want %d%% to %d%%", what, got, n, lo, hi)
		}
	}
	within("3+0 (weight 3 of 4)", blitz3, 70, 80)
	within("chess960 (weight 1 of 4)", c960, 20, 30)
	within("rated (both modes)", rated, 45, 55)

	one := offersOf(defaultConfig(t, nil).Matchmaking)
	for _, o := range one {
		if o.variant != "standard" || o.rated {
			t.Errorf("default offer %s, want standard casual", o)
		}
	}
	for _, bad := range []map[string]string{
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "3+0*0"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "3+0*101"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "3+0*x"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "3+0*"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "4d", "PONDEROSA_CORRESPONDENCE": "true"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "2d"}, // correspondence not accepted
		{"PONDEROSA_MATCHMAKING_VARIANTS": "atomic"},
		{"PONDEROSA_MATCHMAKING_VARIANTS": "fromPosition"},
		{"PONDEROSA_MATCHMAKING_VARIANTS": "chess960*0"},
		{"PONDEROSA_MATCHMAKING_VARIANTS": "chess960,chess960"},
		{"PONDEROSA_MATCHMAKING_VARIANTS": ","},
		{"PONDEROSA_MATCHMAKING_RATED": "sometimes"},
	} {
		if _, err := config.Load(func(k string) string { return bad[k] }); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	corr := defaultConfig(t, map[string]string{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "2d*2,1+0",
		"PONDEROSA_CORRESPONDENCE": "true", "PONDEROSA_MATCHMAKING_VARIANTS": "chess960"}).Matchmaking
	p := offersOf(corr)[0].params()
	if p.Days != 2 || p.ClockLimit != 0 || p.ClockIncrement != 0 || p.Variant != lichess.VariantChess960 || offersOf(corr)[0].perf() != "chess960" {
		t.Errorf("2d chess960 offer: %+v", p)
	}
	if o := offersOf(corr)[1]; o.speed() != "bullet" || o.params().ClockLimit != 60 || o.params().Days != 0 {
		t.Errorf("1+0 offer: %+v", o.params())
	}
}
