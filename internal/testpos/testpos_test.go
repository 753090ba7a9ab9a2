package testpos

import (
	"math/rand/v2"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func TestWalk(t *testing.T) {
	var fens []string
	plies := map[int]int{}
	Walk(rand.New(rand.NewPCG(1, 2)), 5, func(ply int, pos *board.Position) bool {
		fens = append(fens, pos.FEN())
		plies[ply]++
		return len(fens) < 20
	})
	if len(fens) != 20 {
		t.Fatalf("visited %d positions, want 20", len(fens))
	}
	// Four whole games of five plies each: every ply number seen four times.
	for ply := 0; ply < 5; ply++ {
		if plies[ply] != 4 {
			t.Errorf("ply %d seen %d times, want 4 (%v)", ply, plies[ply], plies)
		}
	}
	if fens[0] == fens[5] && fens[1] == fens[6] && fens[2] == fens[7] {
		t.Errorf("two games played the same first moves: %q", fens[:8])
	}
	// The same seed gives the same positions.
	i := 0
	Walk(rand.New(rand.NewPCG(1, 2)), 5, func(_ int, pos *board.Position) bool {
		if got := pos.FEN(); got != fens[i] {
			t.Fatalf("position %d with the same seed: %s, want %s", i, got, fens[i])
		}
		i++
		return i < len(fens)
	})
}
