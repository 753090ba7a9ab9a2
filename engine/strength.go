package engine

import (
	"math"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// strengthPlan is how a search plays weaker for UCI_LimitStrength: it
// searches a limited number of nodes (shallower tactics, like a weaker
// player's calculation) and, below 2000, looks at four lines and picks among
// the moves whose score is within margin of the best, preferring better
// ones. From 2000 up it plays its best line and only the node budget limits
// it. It never picks a move that walks into a found mate and never plays
// random blunders: a move is only chosen if the search scored it close to
// the best.
//
// Calibration (2026-11-23, engine/README.md has the table): Ponderosa at
// UCI_Elo X played Stockfish 15.1 at UCI_Elo X (Stockfish's own scale,
// anchored by its authors to CCRL 40/4 at 60+0.6). Up to 2000 the curve
// below plays about X at 10+0.1 (1400: 1383, 1800: 1800, 2000: 2000 over
// 40 games). Above 2000 it is still too weak: 2400 (630k nodes) measured
// 2185 at 30+0.3, and each doubling of nodes gained only about 50 Elo there
// (at 10+0.1 Stockfish's limited mode runs short of time and plays below its
// setting from about 2400 up, so only slower games measure the top). The
// node budget does not depend on the clock; where it exceeds what the clock
// allows the engine plays at its full strength for that time control.
type strengthPlan struct {
	nodes   uint64
	multiPV int
	margin  Score
	seed    uint64
}

func planStrength(elo int) strengthPlan {
	elo = clamp(elo, MinElo, MaxElo)
	var nodes float64
	margin := Score(0)
	switch {
	case elo <= 1800:
		// Few nodes and a wide margin: 800 nodes and 148 cp at 1320,
		// 12800 nodes and 100 cp at 1800.
		nodes = 12800 * math.Pow(2, float64(elo-1800)/120)
		margin = Score(100 + (1800-elo)/10)
	case elo < 2000:
		// The margin closes (100 cp to 0) while the budget grows
		// geometrically from 12800 to 45000 nodes.
		nodes = 12800 * math.Pow(45000.0/12800, float64(elo-1800)/200)
		margin = Score((2000 - elo) / 2)
	default:
		// Best move only; strength comes from the node budget alone:
		// 45000 nodes at 2000, doubling every 105 points (630k at 2400,
		// 8.8M at 2800, 33M at 3000: almost unlimited).
		nodes = 45000 * math.Pow(2, float64(elo-2000)/105)
	}
	mpv := 1
	if margin > 0 {
		mpv = 4
	}
	return strengthPlan{nodes: uint64(nodes), multiPV: mpv, margin: margin, seed: uint64(time.Now().UnixNano())}
}

// choose picks the move to play from the searched lines (best first).
func (sp strengthPlan) choose(lines []rootMove, key uint64) (best, ponder board.Move) {
	pick := 0
	if sp.margin > 0 && len(lines) > 1 && lines[0].score != -Infinity {
		top := lines[0].score
		weights := make([]int, 0, len(lines))
		total := 0
		for _, rm := range lines {
			loss := top - rm.score
			if rm.score == -Infinity || loss > sp.margin || (rm.score.IsMate() && rm.score < 0) {
				break
			}
			wgt := int(sp.margin-loss) + 1
			weights = append(weights, wgt)
			total += wgt
		}
		if total > 0 {
			x := int(splitmix(sp.seed^key) % uint64(total))
			for i, wgt := range weights {
				if x < wgt {
					pick = i
					break
				}
				x -= wgt
			}
		}
	}
	rm := lines[pick]
	if len(rm.pv) > 1 {
		ponder = rm.pv[1]
	}
	return rm.move, ponder
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
