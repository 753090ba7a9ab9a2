package engine

import "github.com/ponderosa-chess/ponderosa/engine/board"

// History tables, owned by one search thread. All use the "gravity" update
// v += bonus - v*|bonus|/histMax, which keeps values within ±histMax.
const histMax = 16384

type contTable [16][64]int16 // indexed by [piece][to] of the current move

type history struct {
	butterfly [2][64][64]int16   // [side][from][to] for quiet moves
	capture   [16][64][8]int16   // [piece][to][captured type]
	counter   [16][64]board.Move // [piece][to] of the previous move → reply
	cont      [16][64]contTable  // [piece][to] of the move 1 or 2 plies ago
}

func (h *history) clear() { *h = history{} }

func gravity(v *int16, bonus int) {
	x := int(*v)
	abs := bonus
	if abs < 0 {
		abs = -abs
	}
	x += bonus - x*abs/histMax
	*v = int16(x)
}

// histBonus is the reward for a cutoff move at depth.
func histBonus(depth int) int {
	b := 170*depth - 100
	if b > 1800 {
		b = 1800
	}
	if b < 0 {
		b = 0
	}
	return b
}
