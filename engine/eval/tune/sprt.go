package tune

import "math"

// LLR returns the generalised SPRT log-likelihood ratio of H1 (Elo elo1)
// against H0 (Elo elo0) for w wins, d draws and l losses, using the normal
// approximation of the trinomial score. Stop when it leaves
// [log(β/(1-α)), log((1-β)/α)], about [-2.94, 2.94] for α = β = 0.05.
func LLR(w, d, l int, elo0, elo1 float64) float64 {
	n := float64(w + d + l)
	if n == 0 || w+l == 0 {
		return 0
	}
	s := (float64(w) + 0.5*float64(d)) / n
	v := (float64(w)*(1-s)*(1-s) + float64(d)*(0.5-s)*(0.5-s) + float64(l)*s*s) / n
	if v <= 0 {
		return 0
	}
	score := func(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }
	s0, s1 := score(elo0), score(elo1)
	return n * (s1 - s0) * (2*s - s0 - s1) / (2 * v)
}
