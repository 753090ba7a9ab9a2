// Package match plays chess engines against each other over UCI or CEGO
// (the mediator side of both protocols) and turns the results into
// statistics: W/L/D, an Elo difference with a 95% interval, pentanomial
// counts over game pairs, and a sequential probability ratio test (SPRT)
// in the normalized-Elo GSPRT formulation used by Fishtest, OpenBench and
// fastchess.
package match

import (
	"fmt"
	"math"
	"strings"
)

// Stats is the tally of a match from the first engine's point of view.
// Penta counts finished game pairs (same opening, colours swapped) by the
// first engine's pair score: Penta[0] = 0 points (two losses), Penta[1] =
// ½, Penta[2] = 1, Penta[3] = 1½, Penta[4] = 2 (two wins).
type Stats struct {
	Wins, Losses, Draws int
	Penta               [5]int
}

// Games returns the number of games counted.
func (s Stats) Games() int { return s.Wins + s.Losses + s.Draws }

// Pairs returns the number of complete game pairs counted.
func (s Stats) Pairs() int {
	n := 0
	for _, c := range s.Penta {
		n += c
	}
	return n
}

// AddGame counts one game with score 1 (win), 0.5 (draw) or 0 (loss) for
// the first engine.
func (s *Stats) AddGame(score float64) {
	switch score {
	case 1:
		s.Wins++
	case 0:
		s.Losses++
	default:
		s.Draws++
	}
}

// AddPair counts a finished game pair whose two scores are a and b.
func (s *Stats) AddPair(a, b float64) {
	i := int(math.Round((a + b) * 2))
	if i < 0 {
		i = 0
	}
	if i > 4 {
		i = 4
	}
	s.Penta[i]++
}

// Score returns the first engine's mean score per game (0..1).
func (s Stats) Score() float64 {
	n := s.Games()
	if n == 0 {
		return 0.5
	}
	return (float64(s.Wins) + 0.5*float64(s.Draws)) / float64(n)
}

// EloFromScore converts a mean score in (0,1) to a logistic Elo difference.
// Scores at or beyond 0 or 1 give ∓Inf.
func EloFromScore(score float64) float64 {
	if score <= 0 {
		return math.Inf(-1)
	}
	if score >= 1 {
		return math.Inf(1)
	}
	return -400 * math.Log10(1/score-1)
}

// z95 is the two-sided 95% quantile of the standard normal distribution.
const z95 = 1.959963984540054

// Elo returns the logistic Elo difference of the first engine and a 95%
// confidence interval [lo, hi]. With complete game pairs it uses the
// pentanomial variance (which accounts for the correlation between the two
// games of an opening), otherwise the trinomial one.
func (s Stats) Elo() (elo, lo, hi float64) {
	var mean, stderr float64
	if pairs := s.Pairs(); pairs >= 2 {
		mean, variance := distStats(pentaDist(s.Penta))
		stderr = math.Sqrt(variance / float64(pairs))
		return EloFromScore(mean), EloFromScore(mean - z95*stderr), EloFromScore(mean + z95*stderr)
	}
	n := s.Games()
	if n == 0 {
		return 0, math.Inf(-1), math.Inf(1)
	}
	mean, variance := distStats(trinomialDist(s))
	stderr = math.Sqrt(variance / float64(n))
	return EloFromScore(mean), EloFromScore(mean - z95*stderr), EloFromScore(mean + z95*stderr)
}

// point is one outcome of a discrete distribution: a score and its
// probability.
type point struct{ x, p float64 }

func trinomialDist(s Stats) []point {
	n := float64(s.Games())
	return []point{{0, float64(s.Losses) / n}, {0.5, float64(s.Draws) / n}, {1, float64(s.Wins) / n}}
}

// pentaDist is the empirical distribution of per-game pair scores
// (0, ¼, ½, ¾, 1).
func pentaDist(penta [5]int) []point {
	n := 0
	for _, c := range penta {
		n += c
	}
	d := make([]point, 5)
	for i, c := range penta {
		d[i] = point{float64(i) / 4, float64(c) / float64(n)}
	}
	return d
}

func distStats(d []point) (mean, variance float64) {
	for _, q := range d {
		mean += q.x * q.p
	}
	for _, q := range d {
		variance += q.p * (q.x - mean) * (q.x - mean)
	}
	return mean, variance
}

// SPRT describes a sequential probability ratio test of H0: the first
// engine is Elo0 better against H1: it is Elo1 better, with Elo0 and Elo1
// in normalized Elo (as Fishtest, OpenBench and fastchess use), and
// false-positive and false-negative rates Alpha and Beta.
type SPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
}

// DefaultSPRT is the usual gainer test: [0, 5] normalized Elo, α = β = 0.05.
var DefaultSPRT = SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}

// ParseSPRT reads "elo0=0,elo1=5[,alpha=0.05,beta=0.05]"; missing keys keep
// DefaultSPRT's values.
func ParseSPRT(spec string) (SPRT, error) {
	t := DefaultSPRT
	for _, kv := range strings.Split(spec, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return SPRT{}, fmt.Errorf("sprt: %q is not key=value", kv)
		}
		var x float64
		if _, err := fmt.Sscan(strings.TrimSpace(v), &x); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return SPRT{}, fmt.Errorf("sprt: %s: %q is not a number", k, v)
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "elo0":
			t.Elo0 = x
		case "elo1":
			t.Elo1 = x
		case "alpha":
			t.Alpha = x
		case "beta":
			t.Beta = x
		default:
			return SPRT{}, fmt.Errorf("sprt: unknown key %q (want elo0, elo1, alpha, beta)", k)
		}
	}
	if t.Elo1 <= t.Elo0 {
		return SPRT{}, fmt.Errorf("sprt: elo1 (%g) must be greater than elo0 (%g)", t.Elo1, t.Elo0)
	}
	if t.Alpha <= 0 || t.Alpha >= 0.5 || t.Beta <= 0 || t.Beta >= 0.5 {
		return SPRT{}, fmt.Errorf("sprt: alpha and beta must lie in (0, 0.5), got %g and %g", t.Alpha, t.Beta)
	}
	return t, nil
}

// Bounds returns the LLR bounds: below lower accept H0, above upper accept H1.
func (t SPRT) Bounds() (lower, upper float64) {
	return math.Log(t.Beta / (1 - t.Alpha)), math.Log((1 - t.Beta) / t.Alpha)
}

// Verdict is the state of an SPRT.
type Verdict int

// SPRT verdicts.
const (
	Continue Verdict = iota
	AcceptH0         // the change is not an Elo1 gain (reject it)
	AcceptH1         // the change gains (accept it)
)

func (v Verdict) String() string {
	switch v {
	case AcceptH0:
		return "H0 accepted (not better than elo0)"
	case AcceptH1:
		return "H1 accepted (better: at least elo1)"
	}
	return "continue"
}

// Verdict compares llr with the bounds.
func (t SPRT) Verdict(llr float64) Verdict {
	lo, hi := t.Bounds()
	switch {
	case llr <= lo:
		return AcceptH0
	case llr >= hi:
		return AcceptH1
	}
	return Continue
}

// nEloPerT converts a normalized t-value (score excess in standard
// deviations) into normalized Elo: nElo = t · 800/ln 10.
const nEloPerT = 800 / math.Ln10

// LLR returns the generalized log-likelihood ratio of the test for s.
// With at least one complete pair it uses the pentanomial model (each pair
// is one sample, and the per-game normalized Elo scales by √2 per pair),
// else the trinomial model over games. Each hypothesis' distribution is
// the maximum-likelihood distribution on the observed outcomes whose
// normalized t-value equals the hypothesis (Van den Bergh, "Normalized
// Elo"), which is exactly what Fishtest and OpenBench compute.
func (t SPRT) LLR(s Stats) float64 {
	if s.Pairs() > 0 {
		counts := make([]float64, 5)
		for i, c := range s.Penta {
			counts[i] = float64(c)
		}
		return gsprt(counts, []float64{0, 0.25, 0.5, 0.75, 1}, t.Elo0/nEloPerT*math.Sqrt2, t.Elo1/nEloPerT*math.Sqrt2)
	}
	if s.Games() == 0 {
		return 0
	}
	counts := []float64{float64(s.Losses), float64(s.Draws), float64(s.Wins)}
	return gsprt(counts, []float64{0, 0.5, 1}, t.Elo0/nEloPerT, t.Elo1/nEloPerT)
}

// gsprt computes N · E_p̂[log p1/p0] where p̂ is the empirical distribution of
// outcomes xs with counts, and p0, p1 the maximum-likelihood distributions
// with normalized t-value t0, t1. Empty cells get a tiny weight so that the
// logarithms stay finite (as OpenBench does).
func gsprt(counts, xs []float64, t0, t1 float64) float64 {
	n := 0.0
	for _, c := range counts {
		n += c
	}
	if n == 0 {
		return 0
	}
	emp := make([]point, len(xs))
	total := 0.0
	for i := range xs {
		c := math.Max(counts[i], 1e-3)
		emp[i] = point{xs[i], c}
		total += c
	}
	for i := range emp {
		emp[i].p /= total
	}
	p0 := mleForT(emp, t0)
	p1 := mleForT(emp, t1)
	llr := 0.0
	for i := range emp {
		llr += emp[i].p * (math.Log(p1[i].p) - math.Log(p0[i].p))
	}
	return n * llr
}

// mleForT returns the distribution on emp's outcomes that maximizes the
// likelihood of emp subject to (mean − ½)/σ = t. It iterates the fixed point
// of the Lagrange condition: with μ, σ from the current estimate, the
// constraint is linear in the probabilities, Σ pᵢ·aᵢ = 0 with
// aᵢ = xᵢ − ½ − t·σ·(1 + ((xᵢ−μ)/σ)²)/2, whose maximum-likelihood solution is
// pᵢ = p̂ᵢ / (1 + λ·aᵢ) for the λ solving Σ p̂ᵢ·aᵢ/(1+λ·aᵢ) = 0.
func mleForT(emp []point, t float64) []point {
	cur := make([]point, len(emp))
	for i := range emp {
		cur[i] = point{emp[i].x, 1 / float64(len(emp))}
	}
	a := make([]float64, len(emp))
	for range 50 {
		mu, variance := distStats(cur)
		sigma := math.Sqrt(variance)
		if sigma == 0 {
			break
		}
		for i, q := range emp {
			z := (mu - q.x) / sigma
			a[i] = q.x - 0.5 - t*sigma*(1+z*z)/2
		}
		lambda := solveLambda(emp, a)
		next := make([]point, len(emp))
		sum := 0.0
		for i, q := range emp {
			next[i] = point{q.x, q.p / (1 + lambda*a[i])}
			sum += next[i].p
		}
		diff := 0.0
		for i := range next {
			next[i].p /= sum
			diff = math.Max(diff, math.Abs(next[i].p-cur[i].p))
		}
		cur = next
		if diff < 1e-10 {
			break
		}
	}
	return cur
}

// solveLambda finds λ with Σ p̂ᵢ·aᵢ/(1+λ·aᵢ) = 0 and 1+λ·aᵢ > 0 for all i,
// by bisection: the left side is strictly decreasing in λ on that interval.
func solveLambda(emp []point, a []float64) float64 {
	minA, maxA := 0.0, 0.0
	for _, v := range a {
		minA = math.Min(minA, v)
		maxA = math.Max(maxA, v)
	}
	if minA >= 0 || maxA <= 0 {
		return 0 // the constraint cannot be met; keep the current estimate
	}
	lo, hi := -1/maxA, -1/minA
	f := func(l float64) float64 {
		s := 0.0
		for i, q := range emp {
			s += q.p * a[i] / (1 + l*a[i])
		}
		return s
	}
	// Shrink the open interval slightly so the poles are never evaluated.
	eps := (hi - lo) * 1e-12
	lo, hi = lo+eps, hi-eps
	for range 200 {
		mid := (lo + hi) / 2
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-15*math.Max(1, math.Abs(mid)) {
			break
		}
	}
	return (lo + hi) / 2
}

// NormalizedElo returns the normalized Elo estimate of s (pentanomial when
// pairs exist): the score excess in standard deviations times 800/ln 10.
func (s Stats) NormalizedElo() float64 {
	if s.Pairs() >= 2 {
		mean, variance := distStats(pentaDist(s.Penta))
		if variance == 0 {
			return math.NaN()
		}
		return (mean - 0.5) / math.Sqrt(2*variance) * nEloPerT
	}
	if s.Games() == 0 {
		return 0
	}
	mean, variance := distStats(trinomialDist(s))
	if variance == 0 {
		return math.NaN()
	}
	return (mean - 0.5) / math.Sqrt(variance) * nEloPerT
}
