package engine

import (
	"math"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// strengthPlan is how a search plays weaker for UCI_LimitStrength: it
// searches a limited number of nodes (shallower tactics, like a weaker
// player's calculation), looks at several lines, and picks among the moves
// whose score is within margin of the best, preferring better ones. It never
// picks a move that walks into a found mate and never plays random blunders:
// a move is only chosen if the search scored it close to the best.
//
// Calibration (not done yet): play gauntlets at several Elo settings against
// anchors of known rating (Stockfish UCI_Elo levels) and fit the nodes and
// margin curves so measured Elo matches the setting.
type strengthPlan struct {
	nodes   uint64
	multiPV int
	margin  Score
	seed    uint64
}

func planStrength(elo int) strengthPlan {
	elo = clamp(elo, MinElo, MaxElo)
	nodes := uint64(50 * math.Pow(2, float64(elo-1000)/100))
	margin := Score(0)
	if elo < 2600 {
		margin = Score((2600 - elo) / 8)
	}
	mpv := 1
	if margin > 0 {
		mpv = 4
	}
	return strengthPlan{nodes: nodes, multiPV: mpv, margin: margin, seed: uint64(time.Now().UnixNano())}
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
