package nnuetrain

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func TestMeasure(t *testing.T) {
	q := Measure("x", []int{100, -50, 0, 600}, []int{80, 50, 10, 500})
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	near("MAE", q.MAE, 57.5)
	near("MAEBalanced", q.MAEBalanced, 130.0/3)
	near("Sign", q.Sign, 2.0/3)
	if q.N != 4 || q.NBalanced != 3 || q.NSign != 3 {
		t.Errorf("counts %d %d %d, want 4 3 3", q.N, q.NBalanced, q.NSign)
	}
	// An evaluation that is a linear function of the score: correlation 1,
	// the slope and offset found.
	scores := []int{-300, -100, 0, 40, 250, 390}
	evals := make([]int, len(scores))
	for i, s := range scores {
		evals[i] = 2*s + 10
	}
	q = Measure("lin", evals, scores)
	near("Corr", q.Corr, 1)
	near("Slope", q.Slope, 2)
	near("Bias", q.Bias, 10+float64(-300-100+0+40+250+390)/6)
	// Scores and evaluations beyond the cap count as the cap.
	q = Measure("cap", []int{30000}, []int{ScoreCap})
	near("capped MAE", q.MAE, 0)
}

func TestMeasureFileSideToMove(t *testing.T) {
	// The synthetic records' score is the material balance from White's
	// point of view; an evaluation of the material balance from the side to
	// move's point of view must match it exactly — on the records with
	// Black to move too, so the score is turned to that view.
	dir := t.TempDir()
	data := filepath.Join(dir, "d.bin")
	syntheticData(t, data, 600)
	values := [7]int{0, 100, 300, 300, 500, 900, 0}
	material := func(pos *board.Position) int {
		v := 0
		for pt := board.Pawn; pt <= board.Queen; pt++ {
			v += values[pt] * (pos.Pieces(pos.SideToMove(), pt).Count() - pos.Pieces(pos.SideToMove()^1, pt).Count())
		}
		return v
	}
	qs, err := MeasureFile(data, Selection{From: 100, Every: 3, Max: 150}, []Evaluator{
		{Name: "material", Eval: material},
		{Name: "negated", Eval: func(pos *board.Position) int { return -material(pos) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if q := qs[0]; q.N != 150 || q.MAE != 0 || q.Sign != 1 || q.NSign == 0 {
		t.Errorf("material: %v", q)
	}
	if q := qs[1]; q.Sign != 0 || q.Corr > -0.99 {
		t.Errorf("negated: %v", q)
	}
	if _, err := MeasureFile(data, Selection{From: 600}, nil); err == nil {
		t.Error("no records after the end: no error")
	}
	if _, err := MeasureFile(filepath.Join(dir, "missing"), Selection{}, nil); err == nil {
		t.Error("missing file: no error")
	}
}

func TestResultFit(t *testing.T) {
	// Results drawn from sigmoid(eval/200): the fit finds K near 200 and
	// the negated evaluation predicts them worse.
	rng := rand.New(rand.NewPCG(4, 5))
	var evals, negated []int
	var results []float64
	for range 20000 {
		e := rng.IntN(1601) - 800
		r := 0.0
		if rng.Float64() < 1/(1+math.Exp(-float64(e)/200)) {
			r = 1
		}
		evals, negated, results = append(evals, e), append(negated, -e), append(results, r)
	}
	mse, k := ResultFit(evals, results)
	if k < 170 || k > 230 {
		t.Errorf("K %d, want about 200", k)
	}
	if neg, _ := ResultFit(negated, results); !(neg > mse+0.05) {
		t.Errorf("negated evaluation's MSE %.4f, the evaluation's %.4f", neg, mse)
	}
}
