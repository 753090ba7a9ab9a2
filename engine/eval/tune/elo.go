package tune

import "math"

// EloEstimate returns the Elo difference implied by w wins, d draws and l
// losses, with the half-width of its 95% confidence interval (normal
// approximation of the trinomial score).
func EloEstimate(w, d, l int) (elo, margin float64) {
	n := float64(w + d + l)
	if n == 0 {
		return 0, math.Inf(1)
	}
	s := (float64(w) + 0.5*float64(d)) / n
	v := (float64(w)*(1-s)*(1-s) + float64(d)*(0.5-s)*(0.5-s) + float64(l)*s*s) / n
	se := math.Sqrt(v / n)
	toElo := func(x float64) float64 {
		x = math.Min(math.Max(x, 1e-6), 1-1e-6)
		return -400 * math.Log10(1/x-1)
	}
	return toElo(s), (toElo(s+1.96*se) - toElo(s-1.96*se)) / 2
}
