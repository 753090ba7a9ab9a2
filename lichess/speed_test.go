package lichess_test

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// TestSpeedOf checks the classes at Lichess's boundaries (Speed.scala in
// lila: UltraBullet up to 29 s of estimated time, bullet up to 179 s, blitz
// up to 479 s, rapid up to 1499 s) and on the common time controls.
func TestSpeedOf(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		base, inc time.Duration
		want      lichess.Speed
	}{
		{15 * s, 0, lichess.SpeedUltraBullet},      // 1/4+0
		{29 * s, 0, lichess.SpeedUltraBullet},      // the last UltraBullet second
		{30 * s, 0, lichess.SpeedBullet},           // 1/2+0
		{0, 1 * s, lichess.SpeedBullet},            // 0+1: 40 s
		{60 * s, 1 * s, lichess.SpeedBullet},       // 1+1: 100 s
		{179 * s, 0, lichess.SpeedBullet},          // the last bullet second
		{180 * s, 0, lichess.SpeedBlitz},           // 3+0
		{120 * s, 1 * s, lichess.SpeedBullet},      // 2+1: 160 s
		{300 * s, 3 * s, lichess.SpeedBlitz},       // 5+3: 420 s
		{479 * s, 0, lichess.SpeedBlitz},           // the last blitz second
		{480 * s, 0, lichess.SpeedRapid},           // 8+0
		{600 * s, 5 * s, lichess.SpeedRapid},       // 10+5: 800 s
		{1499 * s, 0, lichess.SpeedRapid},          // the last rapid second
		{1500 * s, 0, lichess.SpeedClassical},      // 25+0
		{1800 * s, 20 * s, lichess.SpeedClassical}, // 30+20
	} {
		if got := lichess.SpeedOf(c.base, c.inc); got != c.want {
			t.Errorf("SpeedOf(%v, %v) = %s, want %s", c.base, c.inc, got, c.want)
		}
	}
}
