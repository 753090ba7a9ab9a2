package board

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGivesCheckWith compares GivesCheckWith with GivesCheck on every legal
// move of the positions along random games from several starts, and over a
// three-ply tree of positions rich in discovered checks and promotions; and
// GenerateQuietChecks with the quiet moves that GivesCheck accepts, in order.
func TestGivesCheckWith(t *testing.T) {
	fens := []string{StartFEN, kiwipete,
		"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"4k3/8/2N5/4N3/B7/8/4R3/4K3 w - - 0 1",   // discovered checks
		"1r2k3/2P5/8/8/8/8/6p1/R3K2R b KQ - 0 1", // promotions with checks
		"3k4/8/3N4/8/3R4/8/3Q4/3K4 w - - 0 1",
	}
	checked, checks, quietChecks := 0, 0, 0
	compare := func(p *Position) {
		var l MoveList
		p.GenerateLegal(&l)
		var ci CheckInfo
		p.SetCheckInfo(&ci)
		for _, m := range l.Slice() {
			want := p.GivesCheck(m)
			if got := p.GivesCheckWith(m, &ci); got != want {
				t.Fatalf("%s %s: GivesCheckWith %v, GivesCheck %v", p.FEN(), m, got, want)
			}
			checked++
			if want {
				checks++
			}
		}
		var quiets, qc MoveList
		p.GenerateQuiets(&quiets)
		qc.N = 1 // appends after what the list holds
		p.GenerateQuietChecks(&qc, &ci)
		var want []Move
		for _, m := range quiets.Slice() {
			if p.GivesCheck(m) {
				want = append(want, m)
			}
		}
		if got := qc.Slice()[1:]; !slices.Equal(got, want) {
			t.Fatalf("%s: GenerateQuietChecks %v, want %v", p.FEN(), got, want)
		}
		quietChecks += len(want)
	}
	var walk func(p *Position, depth int)
	walk = func(p *Position, depth int) {
		compare(p)
		if depth == 0 {
			return
		}
		var l MoveList
		p.GenerateLegal(&l)
		for _, m := range l.Slice() {
			var c Position
			p.MakeMove(m, &c)
			walk(&c, depth-1)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, f := range fens {
		start, err := ParseFEN(f)
		if err != nil {
			t.Fatal(f, err)
		}
		walk(&start, 2)
		for game := 0; game < 30; game++ {
			p := start
			for ply := 0; ply < 150; ply++ {
				compare(&p)
				var l MoveList
				p.GenerateLegal(&l)
				if l.N == 0 {
					break
				}
				var c Position
				p.MakeMove(l.Moves[rng.IntN(l.N)], &c)
				p = c
			}
		}
	}
	if checks < 1000 {
		t.Errorf("only %d checking moves among %d", checks, checked)
	}
	if quietChecks < 500 {
		t.Errorf("only %d quiet checking moves", quietChecks)
	}
}
