// Package testpos makes positions for tests: random legal games played from
// the start position, reproducible from the caller's random source.
package testpos

import (
	"math/rand/v2"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Walk plays random legal games from the start position, each at most
// maxPly plies long or until mate or stalemate, and calls visit with the
// ply number (0 for the first move's child) and the position after every
// move. It returns when visit returns false; a new game starts whenever one
// ends. maxPly must be positive.
func Walk(rng *rand.Rand, maxPly int, visit func(ply int, pos *board.Position) bool) {
	for {
		pos := board.StartPosition()
		for ply := 0; ply < maxPly; ply++ {
			var ml board.MoveList
			pos.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			var child board.Position
			pos.MakeMove(ml.Moves[rng.IntN(ml.N)], &child)
			pos = child
			if !visit(ply, &pos) {
				return
			}
		}
	}
}
