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
	// offeredAt is the count of our moves when we last offered a draw;
	// offered is false before the first offer.
	offeredAt int
	offered   bool
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
	return j.level(moveNumber)
}

// level reports whether the game is a level one late enough for a draw: at
// full move moveNumber, at least DrawMinMove, our last DrawMoves scores
// were all within DrawScore of zero.
func (j *judge) level(moveNumber int) bool {
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

// OfferDraw reports whether to offer a draw with our move at full move
// moveNumber, ours being the count of our moves with this one: offers are
// enabled, the game is level under the rule that accepts a draw (level),
// and our last offer was at least DrawOfferEvery of our moves ago. A true
// answer counts as the offer made.
func (j *judge) OfferDraw(moveNumber, ours int) bool {
	if !j.cfg.OfferDraws || !j.level(moveNumber) {
		return false
	}
	if j.offered && ours-j.offeredAt < j.cfg.DrawOfferEvery {
		return false
	}
	j.offered, j.offeredAt = true, ours
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
