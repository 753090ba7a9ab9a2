package engine_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/eval/tune"
)

// TestSelfPlayAB plays the engine as shipped (A) against the engine with
// one knob set (B) at a fixed node count per move, each unbalanced opening
// twice with colours swapped, and logs W/D/L, Elo and the SPRT(0, 10)
// log-likelihood ratio, all from A's point of view: a positive Elo means
// the shipped engine is stronger than the knob variant. Opt-in:
//
//	PONDEROSA_AB=nosingular PONDEROSA_AB_GAMES=200 PONDEROSA_AB_NODES=20000 \
//	  PONDEROSA_OPENINGS=../shared/books/8mvs_+90_+99.epd go test ./engine -run SelfPlayAB -v -timeout 2h
func TestSelfPlayAB(t *testing.T) {
	knob := os.Getenv("PONDEROSA_AB")
	if knob == "" {
		t.Skip("set PONDEROSA_AB=<knob> (and PONDEROSA_OPENINGS) to run an A/B self-play match")
	}
	games, _ := strconv.Atoi(os.Getenv("PONDEROSA_AB_GAMES"))
	if games == 0 {
		games = 100
	}
	nodes, _ := strconv.ParseUint(os.Getenv("PONDEROSA_AB_NODES"), 10, 64)
	if nodes == 0 {
		nodes = 20000
	}
	f, err := os.Open(os.Getenv("PONDEROSA_OPENINGS"))
	if err != nil {
		t.Fatal(err)
	}
	ops, err := tune.LoadOpenings(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	a := engine.New(engine.Options{HashMB: 16})
	b := engine.New(engine.Options{HashMB: 16})
	engine.SetKnob(b, knob, true)
	w, d, l := 0, 0, 0
	for i := 0; i < games; i++ {
		op := ops[(i/2*7919)%len(ops)]
		white, black := a, b
		if i%2 == 1 {
			white, black = b, a
		}
		rec := tune.PlayGame(context.Background(), white, black, op, engine.Limits{Nodes: nodes})
		score := rec.Result
		if i%2 == 1 {
			score = 1 - score
		}
		switch score {
		case 1:
			w++
		case 0:
			l++
		default:
			d++
		}
		if (i+1)%20 == 0 || i+1 == games {
			elo, m := tune.EloEstimate(w, d, l)
			msg := fmt.Sprintf("%d games vs %s: +%d =%d -%d Elo %+.1f ± %.1f LLR(0,10) %.2f", i+1, knob, w, d, l, elo, m, tune.LLR(w, d, l, 0, 10))
			t.Log(msg)
			fmt.Fprintln(os.Stderr, msg)
		}
	}
}
