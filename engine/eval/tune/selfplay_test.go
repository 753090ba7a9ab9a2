package tune

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

func TestLoadOpenings(t *testing.T) {
	const src = `[Result "*"]

1. Nf3 d5 2. g3 c6 3. Bg2 Nf6 *

[Result "*"]

1. e4 e5 2. Nf3 Nc6 *
r1bq1rk1/pp1nppbp/3p1np1/8/2PNP3/2N5/PP2BPPP/R1BQ1RK1 w - - 4 9
`
	ops, err := LoadOpenings(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 3 {
		t.Fatalf("got %d openings, want 3", len(ops))
	}
	if n := len(ops[0].Moves()); n != 6 {
		t.Errorf("first opening has %d plies, want 6", n)
	}
	pos := ops[2].Position()
	if pos.FullmoveNumber() != 9 {
		t.Errorf("FEN opening fullmove %d", pos.FullmoveNumber())
	}
	if _, err := LoadOpenings(strings.NewReader("1. e4 Ke7?? 2. Qxh8 *\n")); err == nil {
		t.Error("illegal opening accepted")
	}
}

func TestPlayGameFinishes(t *testing.T) {
	// A won endgame: the game ends in a White win (mate or adjudication).
	pos, _ := board.ParseFEN("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
	a := engine.New(engine.Options{HashMB: 1})
	b := engine.New(engine.Options{HashMB: 1, Eval: eval.HandSet()})
	rec := PlayGame(context.Background(), a, b, board.NewGame(pos), engine.Limits{Nodes: 3000})
	if rec.Result != 1 {
		t.Errorf("KR vs K ended %v (%s) after %d plies", rec.Result, rec.Reason, rec.Plies)
	}
}

func TestEloEstimate(t *testing.T) {
	if e, _ := EloEstimate(10, 0, 10); math.Abs(e) > 1e-9 {
		t.Errorf("even score gives %v Elo", e)
	}
	e, m := EloEstimate(60, 20, 20)
	if e < 100 || e > 200 || m <= 0 || m > 150 {
		t.Errorf("60/20/20: %v ± %v", e, m)
	}
}

func TestLLR(t *testing.T) {
	if v := LLR(0, 0, 0, 0, 10); v != 0 {
		t.Errorf("empty LLR %v", v)
	}
	if LLR(60, 20, 20, 0, 10) <= 0 {
		t.Error("a winning record should favour H1")
	}
	if LLR(20, 20, 60, 0, 10) >= 0 {
		t.Error("a losing record should favour H0")
	}
}
