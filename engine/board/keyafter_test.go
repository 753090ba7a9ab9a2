package board

import "testing"

// TestKeyAfter checks KeyAfter against the key MakeMove computes, over a
// three-ply tree: equal whenever the move changes neither castling rights
// nor an en passant square (the changes KeyAfter leaves out).
func TestKeyAfter(t *testing.T) {
	fens := []string{StartFEN, kiwipete,
		"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"}
	checked := 0
	var walk func(p *Position, depth int)
	walk = func(p *Position, depth int) {
		var l MoveList
		p.GenerateLegal(&l)
		for _, m := range l.Slice() {
			var c Position
			p.MakeMove(m, &c)
			if c.castling == p.castling && c.ep == NoSquare {
				if got := p.KeyAfter(m); got != c.Key() {
					t.Fatalf("%s %s: KeyAfter %x, MakeMove %x", p.FEN(), m, got, c.Key())
				}
				checked++
			}
			if depth > 1 {
				walk(&c, depth-1)
			}
		}
	}
	for _, f := range fens {
		p, err := ParseFEN(f)
		if err != nil {
			t.Fatal(err)
		}
		walk(&p, 3)
	}
	if checked < 1000 {
		t.Errorf("only %d moves checked", checked)
	}
}
