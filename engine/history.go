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
	pawnCorr  [2][corrSize]int16 // [side][pawn key] → static evaluation error, in corrGrain units
}

// Correction history: how far the static evaluation of positions with a
// given pawn structure (and side to move) has been from what the search
// found, as a moving average. The search adds it to the static evaluation.
const (
	corrSize  = 16384
	corrGrain = 256            // entries hold centipawns × corrGrain
	corrMax   = 64 * corrGrain // at most ±64 cp of correction
	corrScale = 256            // weights of the moving average are out of corrScale
)

// correction is the correction history's adjustment for pos, in centipawns.
func (h *history) correction(pos *board.Position) Score {
	return Score(int(h.pawnCorr[pos.SideToMove()][pos.PawnKey()%corrSize]) / corrGrain)
}

// updateCorrection moves pos's entry toward diff, the search score minus the
// raw static evaluation, the faster the deeper the search was.
func (h *history) updateCorrection(pos *board.Position, diff Score, depth int) {
	e := &h.pawnCorr[pos.SideToMove()][pos.PawnKey()%corrSize]
	wt := min(depth+1, 16)
	v := (int(*e)*(corrScale-wt) + int(diff)*corrGrain*wt) / corrScale
	*e = int16(max(-corrMax, min(corrMax, v)))
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

// quietScore is the history score of the quiet move m of piece pc by us:
// its butterfly entry plus its entries in the continuation histories of the
// moves one and two plies before (nil when there is none).
func (h *history) quietScore(us board.Color, pc board.Piece, m board.Move, cont1, cont2 *contTable) int {
	s := int(h.butterfly[us][m.From()][m.To()])
	if cont1 != nil {
		s += int(cont1[pc][m.To()])
	}
	if cont2 != nil {
		s += int(cont2[pc][m.To()])
	}
	return s
}

// updateQuiet applies bonus to each entry that quietScore adds up.
func (h *history) updateQuiet(us board.Color, pc board.Piece, m board.Move, cont1, cont2 *contTable, bonus int) {
	gravity(&h.butterfly[us][m.From()][m.To()], bonus)
	if cont1 != nil {
		gravity(&cont1[pc][m.To()], bonus)
	}
	if cont2 != nil {
		gravity(&cont2[pc][m.To()], bonus)
	}
}
