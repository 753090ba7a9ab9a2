package engine

import (
	"context"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// FuzzSearch searches arbitrary parsable positions at a low depth: the
// search and evaluation must not panic and must return a legal move
// whenever one exists.
func FuzzSearch(f *testing.F) {
	for _, fen := range benchFENs {
		f.Add(fen)
	}
	e := New(Options{HashMB: 1})
	f.Fuzz(func(t *testing.T, fen string) {
		pos, err := board.ParseFEN(fen)
		if err != nil {
			return
		}
		var ml board.MoveList
		pos.GenerateLegal(&ml)
		res := e.Search(context.Background(), board.NewGame(pos), Limits{Depth: 3}, nil)
		if ml.N == 0 {
			if res.Best != board.NoMove {
				t.Fatalf("%s: best %v with no legal move", fen, res.Best)
			}
			return
		}
		if !pos.IsLegal(res.Best) {
			t.Fatalf("%s: best %v is illegal", fen, res.Best)
		}
		e.Evaluate(&pos)
	})
}
