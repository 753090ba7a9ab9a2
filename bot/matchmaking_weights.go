package bot

import (
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// offer is the terms of one matchmaking challenge.
type offer struct {
	tc      config.TimeControl
	variant string // standard, chess960
	rated   bool
	weight  int
}

// offersOf lists every matchmaking offer the settings allow: each time
// control in each variant and mode, weighted by the time control's weight
// times the variant's (a weight below 1 counts as 1); the two modes, when
// both are on, share a combination's weight equally.
func offersOf(cfg config.Matchmaking) []offer {
	var modes []bool
	if cfg.Rated {
		modes = append(modes, true)
	}
	if cfg.Casual || !cfg.Rated {
		modes = append(modes, false)
	}
	variants := cfg.Variants
	if len(variants) == 0 {
		variants = []config.VariantWeight{{Variant: "standard", Weight: 1}}
	}
	var out []offer
	for _, tc := range cfg.TimeControls {
		for _, v := range variants {
			for _, rated := range modes {
				out = append(out, offer{tc: tc, variant: v.Variant, rated: rated, weight: max(tc.Weight, 1) * max(v.Weight, 1)})
			}
		}
	}
	return out
}

// pickOffer picks the index of one of offers (not empty) at random, each
// as often as its weight says.
func pickOffer(rng *rand.Rand, offers []offer) int {
	total := 0
	for _, o := range offers {
		total += max(o.weight, 1)
	}
	n := rng.IntN(total)
	for i, o := range offers {
		if n -= max(o.weight, 1); n < 0 {
			return i
		}
	}
	return len(offers) - 1
}

// speed is the offer's Lichess speed.
func (o offer) speed() string {
	if o.tc.Days > 0 {
		return string(lichess.SpeedCorrespondence)
	}
	return string(lichess.SpeedOf(o.tc.Base, o.tc.Increment))
}

// perf is the rating the offer is played for: the variant's, or in
// standard the speed's.
func (o offer) perf() string {
	if o.variant != "" && o.variant != "standard" {
		return o.variant
	}
	return o.speed()
}

func (o offer) mode() string {
	if o.rated {
		return "rated"
	}
	return "casual"
}

func (o offer) String() string {
	return strings.Join([]string{o.tc.String(), o.variant, o.mode()}, " ")
}

// params is the challenge for o: a clock, or days and no clock.
func (o offer) params() lichess.ChallengeParams {
	p := lichess.ChallengeParams{Rated: o.rated}
	if o.variant != "standard" {
		p.Variant = lichess.VariantKey(o.variant)
	}
	if o.tc.Days > 0 {
		p.Days = o.tc.Days
	} else {
		p.ClockLimit, p.ClockIncrement = int(o.tc.Base/time.Second), int(o.tc.Increment/time.Second)
	}
	return p
}
