package bot

import "github.com/ponderosa-chess/ponderosa/config"

// mateCP is the centipawn value given to a mate score when judging draws
// and resignation.
const mateCP = 100000

// judge decides on draw offers and resignation from the scores of our own
// searches, each in centipawns from our point of view, oldest first.
type judge struct {
	cfg    config.Game
	scores []int
}

// Record adds the score of our latest search.
func (j *judge) Record(cp int) {
	j.scores = append(j.scores, cp)
}

// last returns the last n scores, or nil when there are fewer.
func (j *judge) last(n int) []int {
	if n <= 0 || len(j.scores) < n {
		return nil
	}
	return j.scores[len(j.scores)-n:]
}

// AcceptDraw reports whether to accept a draw offer at full move number
// moveNumber: draws are enabled, the game is far enough along, and our last
// DrawMoves scores were all within DrawScore of zero. A dead position
// (neither side can mate) is always a draw worth accepting.
func (j *judge) AcceptDraw(moveNumber int, dead bool) bool {
	if !j.cfg.AcceptDraws {
		return false
	}
	if dead {
		return true
	}
	if moveNumber < j.cfg.DrawMinMove {
		return false
	}
	recent := j.last(j.cfg.DrawMoves)
	if recent == nil {
		return false
	}
	for _, s := range recent {
		if s > j.cfg.DrawScore || s < -j.cfg.DrawScore {
			return false
		}
	}
	return true
}

// Resign reports whether to resign: resignation is enabled and our last
// ResignMoves scores were all at or below -ResignScore.
func (j *judge) Resign() bool {
	if !j.cfg.Resign {
		return false
	}
	recent := j.last(j.cfg.ResignMoves)
	if recent == nil {
		return false
	}
	for _, s := range recent {
		if s > -j.cfg.ResignScore {
			return false
		}
	}
	return true
}
