package engine

import (
	"context"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// BenchmarkSearch searches the middlegame bench positions to depth 8 from a
// fresh table each iteration; reports nodes/s.
func BenchmarkSearch(b *testing.B) {
	e := New(Options{HashMB: 16})
	fens := BenchPositions()[:8]
	games := make([]*board.Game, len(fens))
	for i, f := range fens {
		games[i] = mustGame(b, f)
	}
	b.ReportAllocs()
	var nodes uint64
	for i := 0; b.Loop(); i++ {
		e.NewGame()
		res := e.Search(context.Background(), games[i%len(games)], Limits{Depth: 8}, nil)
		nodes += res.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkSEE(b *testing.B) {
	pos, _ := board.ParseFEN("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1")
	var ml board.MoveList
	pos.GenerateCaptures(&ml)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		see(&pos, ml.Moves[i%ml.N], 0)
	}
}

func TestSEE(t *testing.T) {
	tests := []struct {
		fen, move string
		threshold int
		want      bool
	}{
		{"4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100, true},  // free pawn
		{"4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 1, false}, // PxP, PxP: even
		{"4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 0, true},
		{"4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", 0, false},    // QxP defended by pawn
		{"3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 0, true},    // x-ray rook support
		{"3rk3/3r4/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 0, false}, // two defenders vs two
	}
	for _, tc := range tests {
		pos, err := board.ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		m, err := pos.ParseUCIMove(tc.move)
		if err != nil {
			t.Fatal(err)
		}
		if got := see(&pos, m, tc.threshold); got != tc.want {
			t.Errorf("see(%s, %s, %d) = %v, want %v", tc.fen, tc.move, tc.threshold, got, tc.want)
		}
	}
}

func TestTTRoundTrip(t *testing.T) {
	tt := newTransTable(1)
	tt.newSearch()
	key := uint64(0x123456789abcdef0)
	m := board.NewMove(board.Square(12), board.Square(28))
	tt.store(key, m, scoreToTT(mateIn(5), 3), 17, 9, BoundLower, true)
	h, ok := tt.probe(key)
	if !ok {
		t.Fatal("probe missed a stored entry")
	}
	if h.move != m || scoreFromTT(h.score, 3) != mateIn(5) || h.eval != 17 || h.depth != 9 || h.bound != BoundLower || !h.pv {
		t.Errorf("round trip got %+v", h)
	}
	if _, ok := tt.probe(key ^ 1); ok {
		t.Error("probe hit for a different key")
	}
	// A NoMove store keeps the previous move for the same key.
	tt.store(key, board.NoMove, -20, 3, 12, BoundUpper, false)
	if h, _ := tt.probe(key); h.move != m || h.score != -20 {
		t.Errorf("after NoMove store: %+v", h)
	}
	if hf := tt.hashfull(); hf < 0 || hf > 1000 {
		t.Errorf("hashfull %d", hf)
	}
	tt.clear()
	if _, ok := tt.probe(key); ok {
		t.Error("probe hit after clear")
	}
}
