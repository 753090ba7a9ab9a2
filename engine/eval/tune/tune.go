// Package tune is a Texel-style tuner for the evaluation weights of package
// eval: given positions labelled with game results, it finds the scaling
// constant K of the logistic win-probability model and then minimises the
// mean squared error between results and sigmoid(K·eval/400) by full-batch
// gradient descent (Adam) over every middlegame and endgame weight.
//
// The evaluation is linear in its weights (eval.Features gives the feature
// counts), so each sample is stored once as a sparse feature vector and the
// gradient is exact. The tuner is not part of the engine's hot path.
package tune

import (
	"bufio"
	"bytes"
	"fmt"
	"go/format"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

// Sample is one labelled position as a sparse feature vector.
type Sample struct {
	Idx    []uint16
	Coef   []float64
	Phase  float64 // 0..24
	Scale  float64 // 0..64
	Result float64 // 1 White won, 0.5 draw, 0 Black won
}

// NewSample extracts the features of pos under weights p.
func NewSample(pos *board.Position, p *eval.Params, result float64) Sample {
	var tr eval.Trace
	eval.Features(pos, p, &tr)
	s := Sample{Phase: float64(tr.Phase), Scale: float64(tr.Scale), Result: result}
	for i, c := range tr.Coef {
		if c != 0 {
			s.Idx = append(s.Idx, uint16(i))
			s.Coef = append(s.Coef, float64(c))
		}
	}
	return s
}

// ParseLine parses a labelled position: a FEN (4 to 6 fields) followed by a
// result written as [1.0]/[0.5]/[0.0], 1-0/0-1/1/2-1/2 (optionally in
// quotes, or after "c9" as in the zurichess quiet-labeled set).
func ParseLine(line string) (fen string, result float64, err error) {
	line = strings.TrimSpace(line)
	fields := strings.Fields(line)
	if len(fields) < 5 {
		return "", 0, fmt.Errorf("tune: short line %q", line)
	}
	n := 4
	for n < len(fields) && n < 6 {
		if _, err := strconv.Atoi(fields[n]); err != nil {
			break
		}
		n++
	}
	fen = strings.Join(fields[:4], " ")
	if n == 6 {
		fen = strings.Join(fields[:6], " ")
	}
	rest := strings.Join(fields[n:], " ")
	switch {
	case strings.Contains(rest, "1/2-1/2"), strings.Contains(rest, "[0.5]"):
		return fen, 0.5, nil
	case strings.Contains(rest, "1-0"), strings.Contains(rest, "[1.0]"), strings.Contains(rest, "[1]"):
		return fen, 1, nil
	case strings.Contains(rest, "0-1"), strings.Contains(rest, "[0.0]"), strings.Contains(rest, "[0]"):
		return fen, 0, nil
	}
	return "", 0, fmt.Errorf("tune: no result in %q", line)
}

// Load reads labelled positions from r, extracting features under p. Bad
// lines are errors.
func Load(r io.Reader, p *eval.Params) ([]Sample, error) {
	var out []Sample
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fen, res, err := ParseLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		pos, err := board.ParseFEN(fen)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, NewSample(&pos, p, res))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tune: read: %w", err)
	}
	return out, nil
}

// Tuner holds the weights being tuned as floats.
type Tuner struct {
	Samples []Sample
	W       [eval.NumParams][2]float64 // (mg, eg)
	K       float64
	// L2 pulls every weight towards its starting value (Prior) with this
	// strength per centipawn², which limits overfitting small data sets.
	L2    float64
	Prior [eval.NumParams][2]float64

	m, v [eval.NumParams][2]float64 // Adam moments
	t    int
}

// New returns a tuner starting from weights p.
func New(samples []Sample, p *eval.Params) *Tuner {
	t := &Tuner{Samples: samples, K: 1}
	for i, s := range p {
		t.W[i] = [2]float64{float64(s.MG()), float64(s.EG())}
	}
	t.Prior = t.W
	return t
}

// Eval returns the white-relative evaluation of s under the current weights.
func (t *Tuner) Eval(s *Sample) float64 {
	mg, eg := 0.0, 0.0
	for j, i := range s.Idx {
		mg += s.Coef[j] * t.W[i][0]
		eg += s.Coef[j] * t.W[i][1]
	}
	return eval.Blend(mg, eg, int(s.Phase), int(s.Scale))
}

func sigmoid(k, e float64) float64 { return 1 / (1 + math.Exp(-k*e/400)) }

// Error returns the mean squared error of the samples with constant k.
func (t *Tuner) Error(k float64) float64 {
	if len(t.Samples) == 0 {
		return 0
	}
	sum := 0.0
	for i := range t.Samples {
		s := &t.Samples[i]
		d := s.Result - sigmoid(k, t.Eval(s))
		sum += d * d
	}
	return sum / float64(len(t.Samples))
}

// FitK finds the K minimising the error for the current weights (golden
// section search on [0.1, 5]) and stores it.
func (t *Tuner) FitK() float64 {
	a, b := 0.1, 5.0
	g := (math.Sqrt(5) - 1) / 2
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := t.Error(c), t.Error(d)
	for b-a > 1e-4 {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = t.Error(c)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = t.Error(d)
		}
	}
	t.K = (a + b) / 2
	return t.K
}

// Step does one full-batch Adam step with learning rate lr (in centipawns)
// and returns the error before the step. Frozen weights are not changed.
func (t *Tuner) Step(lr float64, frozen func(i int) bool) float64 {
	var grad [eval.NumParams][2]float64
	sum := 0.0
	for n := range t.Samples {
		s := &t.Samples[n]
		p := sigmoid(t.K, t.Eval(s))
		d := s.Result - p
		sum += d * d
		// dE/d eval = -2 d · p(1-p) · K/400
		g := -2 * d * p * (1 - p) * t.K / 400
		gm := g * s.Phase / 24
		ge := g * (24 - s.Phase) * s.Scale / 64 / 24
		for j, i := range s.Idx {
			grad[i][0] += gm * s.Coef[j]
			grad[i][1] += ge * s.Coef[j]
		}
	}
	nS := float64(len(t.Samples))
	t.t++
	const b1, b2, eps = 0.9, 0.999, 1e-8
	for i := range grad {
		if frozen != nil && frozen(i) {
			continue
		}
		for h := 0; h < 2; h++ {
			gr := grad[i][h]/nS + 2*t.L2*(t.W[i][h]-t.Prior[i][h])
			t.m[i][h] = b1*t.m[i][h] + (1-b1)*gr
			t.v[i][h] = b2*t.v[i][h] + (1-b2)*gr*gr
			mh := t.m[i][h] / (1 - math.Pow(b1, float64(t.t)))
			vh := t.v[i][h] / (1 - math.Pow(b2, float64(t.t)))
			t.W[i][h] -= lr * mh / (math.Sqrt(vh) + eps)
		}
	}
	return sum / nS
}

// Params returns the current weights rounded to integers.
func (t *Tuner) Params() *eval.Params {
	p := new(eval.Params)
	for i, w := range t.W {
		p[i] = eval.Pack(int(math.Round(w[0])), int(math.Round(w[1])))
	}
	return p
}

// WriteGo writes p as the gofmt-formatted Go source of engine/eval/tuned.go.
func WriteGo(w io.Writer, p *eval.Params, comment string) error {
	var raw bytes.Buffer
	bw := bufio.NewWriter(&raw)
	fmt.Fprintf(bw, "// Code generated by engine/eval/tune; DO NOT EDIT.\n\npackage eval\n\n")
	for _, line := range strings.Split(strings.TrimSpace(comment), "\n") {
		fmt.Fprintf(bw, "// %s\n", line)
	}
	fmt.Fprintf(bw, "var tunedTable = &[NumParams][2]int16{\n")
	for i, s := range p {
		fmt.Fprintf(bw, "\t{%d, %d},", s.MG(), s.EG())
		if i%8 == 7 || i == len(p)-1 {
			fmt.Fprintf(bw, "\n")
		} else {
			fmt.Fprintf(bw, " ")
		}
	}
	fmt.Fprintf(bw, "}\n")
	if err := bw.Flush(); err != nil {
		return err
	}
	src, err := format.Source(raw.Bytes())
	if err != nil {
		return fmt.Errorf("tune: format generated source: %w", err)
	}
	_, err = w.Write(src)
	return err
}
