package engine

import (
	"math"
	"testing"
)

// TestStrengthPlanCurve checks the strength plan against what the README
// documents and the calibration measured, not against numbers the plan
// itself printed: the plans of the calibration table (engine/README.md:
// nodes and margin per setting, as played in the measured games), the
// budget doubling every 120 points up to 1800 and every 105 points from
// 2000, the margin shrinking by 1 cp per 10 points up to 1800 and closing
// to 0 at 2000, and nothing shrinking or widening on the way.
func TestStrengthPlanCurve(t *testing.T) {
	// Each documented budget with the precision it is written to: the
	// anchors of the curve (800, 12 800, 45 000) to the node, the others to
	// one unit of their last written digit.
	for _, c := range []struct {
		elo        int
		nodes, tol float64
		margin     Score
	}{
		{1320, 800, 1, 148},          // README: 800 nodes, 148 cp at 1320
		{1400, 1269, 1, 140},         // calibration table row 1400: 1 269 nodes, 140 cp
		{1800, 12800, 1, 100},        // row 1800: 12 800 nodes, 100 cp
		{1900, 0, 0, 50},             // half-way from 100 cp at 1800 to 0 at 2000
		{2000, 45000, 1, 0},          // row 2000: 45 000 nodes, best line
		{2200, 168000, 1000, 0},      // row 2200: 168 000 nodes
		{2400, 630000, 10000, 0},     // row 2400: 630 000 nodes
		{2800, 8.8e6, 0.1e6, 0},      // README: 8.8 M at 2800
		{3000, 33e6, 1e6, 0},         // README: 33 M at 3000
		{MinElo - 100, 0, 0, 148},    // clamped to MinElo
		{MaxElo + 100, 33e6, 1e6, 0}, // clamped to MaxElo
	} {
		sp := planStrength(c.elo)
		if c.nodes > 0 && math.Abs(float64(sp.nodes)-c.nodes) > c.tol {
			t.Errorf("Elo %d: %d nodes, want %.0f ± %.0f", c.elo, sp.nodes, c.nodes, c.tol)
		}
		if sp.margin != c.margin {
			t.Errorf("Elo %d: margin %d cp, want %d", c.elo, sp.margin, c.margin)
		}
	}
	// Doubling rates hold to 0.5% (budgets are truncated to whole nodes).
	near := func(got uint64, want float64) bool { return math.Abs(float64(got)-want) <= want/200 }
	prev := planStrength(MinElo)
	for elo := MinElo + 1; elo <= MaxElo; elo++ {
		sp := planStrength(elo)
		if sp.nodes < prev.nodes || sp.margin > prev.margin {
			t.Fatalf("Elo %d: plan %+v not monotonic after %+v", elo, sp, prev)
		}
		if (sp.margin > 0) != (sp.multiPV > 1) {
			t.Fatalf("Elo %d: margin %d with MultiPV %d", elo, sp.margin, sp.multiPV)
		}
		if elo+120 <= 1800 && !near(planStrength(elo+120).nodes, 2*float64(sp.nodes)) {
			t.Fatalf("Elo %d: %d nodes, but %d at +120 (want double)", elo, sp.nodes, planStrength(elo+120).nodes)
		}
		if elo >= 2000 && elo+105 <= MaxElo && !near(planStrength(elo+105).nodes, 2*float64(sp.nodes)) {
			t.Fatalf("Elo %d: %d nodes, but %d at +105 (want double)", elo, sp.nodes, planStrength(elo+105).nodes)
		}
		if elo <= 1800 && elo%10 == 0 && sp.margin != Score(100+(1800-elo)/10) {
			t.Fatalf("Elo %d: margin %d cp, want %d", elo, sp.margin, 100+(1800-elo)/10)
		}
		prev = sp
	}
}
