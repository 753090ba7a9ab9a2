package engine

import "testing"

// TestStrengthPlanCurve pins the calibrated curve (see the calibration table
// in engine/README.md): the node budget never shrinks and the margin never
// widens as the setting rises, the margin closes at 2000, and from there the
// engine plays its best line with only the node budget limiting it.
func TestStrengthPlanCurve(t *testing.T) {
	prev := planStrength(MinElo)
	for elo := MinElo + 1; elo <= MaxElo; elo++ {
		sp := planStrength(elo)
		if sp.nodes < prev.nodes || sp.margin > prev.margin {
			t.Fatalf("Elo %d: plan %+v not monotonic after %+v", elo, sp, prev)
		}
		if (sp.margin > 0) != (sp.multiPV > 1) {
			t.Fatalf("Elo %d: margin %d with MultiPV %d", elo, sp.margin, sp.multiPV)
		}
		prev = sp
	}
	for _, c := range []struct {
		elo    int
		nodes  uint64
		margin Score
	}{
		{1320, 800, 148},
		{1400, 1269, 140},
		{1800, 12800, 100},
		{1900, 24000, 50},
		{2000, 45000, 0},
		{2105, 90000, 0},
		{2400, 630947, 0},
		{2800, 8846559, 0},
	} {
		sp := planStrength(c.elo)
		if diff := int64(sp.nodes) - int64(c.nodes); diff < -1 || diff > 1 || sp.margin != c.margin {
			t.Errorf("Elo %d: %d nodes, margin %d; want %d nodes, margin %d", c.elo, sp.nodes, sp.margin, c.nodes, c.margin)
		}
	}
	if sp := planStrength(MaxElo); sp.nodes < 20_000_000 || sp.multiPV != 1 {
		t.Errorf("top setting should be close to full strength: %+v", sp)
	}
}
