package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/engine/eval/tune"
	"github.com/ponderosa-chess/ponderosa/internal/progress"
)

// cmdTune fits the weights to labelled positions and writes tuned.go.
func cmdTune(args []string) error {
	fs := flag.NewFlagSet("texel tune", flag.ExitOnError)
	data := fs.String("data", "", "labelled positions file")
	iters := fs.Int("iters", 400, "gradient descent steps")
	lr := fs.Float64("lr", 1, "Adam learning rate (centipawns)")
	out := fs.String("out", "", "write tuned.go here (empty: only report)")
	fromHand := fs.Bool("handset", true, "start from the hand-set weights (else from eval.Default())")
	l2 := fs.Float64("l2", 0, "L2 pull towards the starting weights (per cp², e.g. 1e-7)")
	freezePST := fs.Bool("freeze-pst", false, "do not tune the piece-square tables")
	valid := fs.String("valid", "", "held-out labelled positions: report their error before and after")
	note := fs.String("note", "", "describe the data in the generated file's comment")
	fs.Parse(args)
	return tuneWeights(*note, *data, *valid, *iters, *lr, *out, *fromHand, *l2, *freezePST)
}

func tuneWeights(note, data, valid string, iters int, lr float64, out string, fromHand bool, l2 float64, freezePST bool) error {
	// On a terminal the step lines are one status line redrawn in place,
	// shown every step; elsewhere every 50th step is a line of its own.
	stdout, tty, stopProgress := progress.Lines(os.Stdout, func(line string) bool {
		return strings.HasPrefix(line, "iter ")
	})
	defer stopProgress()
	report := 50
	if tty {
		report = 1
	}
	start := eval.Default()
	if fromHand {
		start = eval.HandSet()
	}
	f, err := os.Open(data)
	if err != nil {
		return err
	}
	samples, err := tune.Load(f, start)
	f.Close()
	if err != nil {
		return err
	}
	t := tune.New(samples, start)
	t.L2 = l2
	k := t.FitK()
	e0 := t.Error(k)
	fmt.Fprintf(stdout, "%d positions, K = %.4f, error %.6f\n", len(samples), k, e0)
	var vt *tune.Tuner
	v0 := 0.0
	if valid != "" {
		vf, err := os.Open(valid)
		if err != nil {
			return err
		}
		vs, err := tune.Load(vf, start)
		vf.Close()
		if err != nil {
			return err
		}
		vt = tune.New(vs, start)
		v0 = vt.Error(k)
		fmt.Fprintf(stdout, "validation: %d positions, error %.6f\n", len(vs), v0)
		defer func() {
			vt.W = t.W
			fmt.Fprintf(stdout, "validation error after tuning: %.6f\n", vt.Error(k))
		}()
	}
	// The king's material weight is unused; keep it at zero.
	frozen := func(i int) bool {
		return i == eval.IdxMaterial+5 || (freezePST && i >= eval.IdxPST && i < eval.IdxPST+6*64)
	}
	t0 := time.Now()
	// With a validation set, keep the weights of the step with the lowest
	// validation error (early stopping; possibly the starting weights).
	bestW, bestV, bestIter := t.W, math.Inf(1), 0
	if vt != nil {
		bestV = vt.Error(k)
	}
	for i := 1; i <= iters; i++ {
		e := t.Step(lr, frozen)
		if vt != nil && i%5 == 0 {
			vt.W = t.W
			if v := vt.Error(k); v < bestV {
				bestW, bestV, bestIter = t.W, v, i
			}
		}
		if i%report == 0 || i == 1 {
			fmt.Fprintf(stdout, "iter %4d error %.6f (%v)\n", i, e, time.Since(t0).Round(time.Second))
		}
	}
	if vt != nil {
		fmt.Fprintf(stdout, "early stopping: best validation error %.6f at step %d\n", bestV, bestIter)
		t.W = bestW
		iters = bestIter
	}
	e1 := t.Error(k)
	fmt.Fprintf(stdout, "final error %.6f (from %.6f)\n", e1, e0)
	if out == "" {
		return nil
	}
	var buf bytes.Buffer
	comment := fmt.Sprintf("tunedTable: Texel-tuned on %d labelled positions (%s),\n%d Adam steps (lr %g, L2 %g, PST frozen %v), K = %.4f, training MSE %.6f -> %.6f.",
		len(samples), note, iters, lr, l2, freezePST, k, e0, e1)
	if vt != nil {
		comment += fmt.Sprintf("\nHeld-out MSE %.6f -> %.6f (early stopping on it).", v0, bestV)
	}
	if err := tune.WriteGo(&buf, t.Params(), comment); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
