package match

import (
	"math"
	"strings"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestEloFromScore(t *testing.T) {
	cases := map[float64]float64{0.5: 0, 0.75: 190.848, 0.25: -190.848, 0.64: 99.95}
	for s, want := range cases {
		if got := EloFromScore(s); !near(got, want, 0.01) {
			t.Errorf("EloFromScore(%g) = %g, want %g", s, got, want)
		}
	}
	if !math.IsInf(EloFromScore(1), 1) || !math.IsInf(EloFromScore(0), -1) {
		t.Error("EloFromScore at 0 or 1 should be infinite")
	}
}

func TestEloInterval(t *testing.T) {
	// 100 games, 40 W / 30 L / 30 D: score 0.55, variance 0.1725.
	s := Stats{Wins: 40, Losses: 30, Draws: 30}
	elo, lo, hi := s.Elo()
	se := math.Sqrt(0.1725 / 100)
	if !near(elo, EloFromScore(0.55), 1e-9) || !near(lo, EloFromScore(0.55-z95*se), 1e-9) || !near(hi, EloFromScore(0.55+z95*se), 1e-9) {
		t.Errorf("Elo() = %g [%g, %g]", elo, lo, hi)
	}
	if !(lo < elo && elo < hi) {
		t.Errorf("interval does not contain the estimate: %g [%g, %g]", elo, lo, hi)
	}
	// Pentanomial: 50 pairs.
	p := Stats{Penta: [5]int{5, 10, 15, 12, 8}}
	elo, lo, hi = p.Elo()
	mean := (0*5 + 0.25*10 + 0.5*15 + 0.75*12 + 1*8) / 50.0
	if !near(elo, EloFromScore(mean), 1e-9) || !(lo < elo && elo < hi) {
		t.Errorf("pentanomial Elo() = %g [%g, %g], mean %g", elo, lo, hi, mean)
	}
}

func TestAddPair(t *testing.T) {
	var s Stats
	for _, g := range [][2]float64{{1, 1}, {1, 0.5}, {0.5, 0.5}, {1, 0}, {0, 0.5}, {0, 0}} {
		s.AddGame(g[0])
		s.AddGame(g[1])
		s.AddPair(g[0], g[1])
	}
	if s.Penta != [5]int{1, 1, 2, 1, 1} || s.Wins != 4 || s.Losses != 4 || s.Draws != 4 {
		t.Errorf("got %+v", s)
	}
}

func TestSPRTBoundsAndParse(t *testing.T) {
	lo, hi := DefaultSPRT.Bounds()
	if !near(lo, -2.944, 0.001) || !near(hi, 2.944, 0.001) {
		t.Errorf("bounds %g %g", lo, hi)
	}
	s, err := ParseSPRT("elo0=-1.5, elo1=3,alpha=0.1")
	if err != nil || s != (SPRT{-1.5, 3, 0.1, 0.05}) {
		t.Errorf("ParseSPRT = %+v, %v", s, err)
	}
	for _, bad := range []string{"elo0=5,elo1=0", "elo0", "elo2=3", "alpha=0.7", "elo1=x", "elo1=NaN"} {
		if _, err := ParseSPRT(bad); err == nil {
			t.Errorf("ParseSPRT(%q) accepted", bad)
		}
	}
}

// TestLLRMatchesNormalApproximation checks the exact GSPRT against its
// well-known normal approximation LLR ≈ N·(t1−t0)·(2t−t0−t1)/2, which is
// accurate when the hypotheses are close to the observed t-value.
func TestLLRMatchesNormalApproximation(t *testing.T) {
	test := SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}
	for _, penta := range [][5]int{
		{100, 520, 1150, 540, 110},
		{110, 540, 1150, 520, 100},
		{300, 1400, 3000, 1500, 330},
	} {
		s := Stats{Penta: penta}
		n := float64(s.Pairs())
		mean, variance := distStats(pentaDist(penta))
		tv := (mean - 0.5) / math.Sqrt(variance)
		t0, t1 := test.Elo0/nEloPerT*math.Sqrt2, test.Elo1/nEloPerT*math.Sqrt2
		approx := n * (t1 - t0) * (2*tv - t0 - t1) / 2
		got := test.LLR(s)
		if !near(got, approx, 0.02*math.Max(1, math.Abs(approx))) {
			t.Errorf("penta %v: LLR = %g, normal approximation %g", penta, got, approx)
		}
	}
	// Trinomial, no pairs.
	s := Stats{Wins: 2600, Losses: 2400, Draws: 5000}
	mean, variance := distStats(trinomialDist(s))
	tv := (mean - 0.5) / math.Sqrt(variance)
	t0, t1 := 0.0, 5/nEloPerT
	approx := 10000 * (t1 - t0) * (2*tv - t0 - t1) / 2
	if got := test.LLR(s); !near(got, approx, 0.02*math.Max(1, math.Abs(approx))) {
		t.Errorf("trinomial: LLR = %g, normal approximation %g", got, approx)
	}
}

func TestSPRTVerdicts(t *testing.T) {
	test := DefaultSPRT
	if v := test.Verdict(test.LLR(Stats{})); v != Continue {
		t.Errorf("empty: %v", v)
	}
	strong := Stats{Penta: [5]int{10, 100, 500, 300, 90}}
	if llr := test.LLR(strong); test.Verdict(llr) != AcceptH1 {
		t.Errorf("clearly better engine: LLR %g", llr)
	}
	weak := Stats{Penta: [5]int{90, 300, 500, 100, 10}}
	if llr := test.LLR(weak); test.Verdict(llr) != AcceptH0 {
		t.Errorf("clearly worse engine: LLR %g", llr)
	}
	// Degenerate samples must give finite numbers.
	for _, s := range []Stats{{Penta: [5]int{0, 0, 7, 0, 0}}, {Penta: [5]int{0, 0, 0, 0, 3}}, {Wins: 3}, {Draws: 9}} {
		if llr := test.LLR(s); math.IsNaN(llr) || math.IsInf(llr, 0) {
			t.Errorf("%+v: LLR %g", s, llr)
		}
	}
}

func TestSummary(t *testing.T) {
	sprt := DefaultSPRT
	res := Result{
		Stats: Stats{Wins: 10, Losses: 8, Draws: 2, Penta: [5]int{2, 1, 3, 1, 3}},
		Names: [2]string{"new", "old"}, Terminations: map[Termination]int{TermNormal: 19, TermTime: 1},
	}
	res.LLR = sprt.LLR(res.Stats)
	res.Verdict = sprt.Verdict(res.LLR)
	var b strings.Builder
	Summary(&b, res, &sprt)
	got := b.String()
	for _, want := range []string{
		"Results of new vs old (20 games):",
		"W - L - D: 10 - 8 - 2  [0.550]",
		"Elo: 34.9 +/- ",
		"Pentanomial [0, 0.5, 1, 1.5, 2]: [2, 1, 3, 1, 3] (10 pairs)",
		"SPRT (elo0=0, elo1=5, alpha=0.05, beta=0.05): LLR ",
		"(-2.94, 2.94) continue",
		"Endings: normal 19, time forfeit 1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}
