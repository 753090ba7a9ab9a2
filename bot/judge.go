package bot

import (
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// mateCP is the centipawn value given to a mate score when judging draws
// and resignation.
const mateCP = 100000

// judge decides on draw offers and resignation from the scores of our own
// searches, each in centipawns from our point of view, oldest first, and
// from the tablebase's verdict on our last move when the tablebase gave it.
type judge struct {
	cfg    config.Game
	scores []int
	// verdict is the tablebase's category, for us, of the position after
	// our last move when that move came from the tablebase; "" otherwise
	// (an engine, book or forced move since clears it).
	verdict lichess.TablebaseCategory
	// offeredAt is the count of our moves when we last offered a draw;
	// offered is false before the first offer.
	offeredAt int
	offered   bool
}

// Record adds the score of our latest search.
func (j *judge) Record(cp int) {
	j.scores = append(j.scores, cp)
}

// Verdict records the tablebase's verdict (for us) on our latest move, or
// clears it ("") when the move came from elsewhere.
func (j *judge) Verdict(v lichess.TablebaseCategory) { j.verdict = v }

// tbDraw reports whether the tablebase's verdict is a draw under the rules:
// a draw, or a win or loss the fifty-move rule turns into one (cursed win,
// blessed loss: the halfmove clock is counted in the category).
func (j *judge) tbDraw() bool {
	r := j.verdict.Rank()
	return r >= 1 && r <= 3
}

// tbLoss reports whether the tablebase says we lose whatever we play.
func (j *judge) tbLoss() bool { return j.verdict != "" && j.verdict.Rank() == 0 }

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
// (neither side can mate) is always a draw worth accepting, and so is a
// position the tablebase said we do not win (a draw, a cursed win, a
// blessed loss or a loss), at any move number.
func (j *judge) AcceptDraw(moveNumber int, dead bool) bool {
	if !j.cfg.AcceptDraws {
		return false
	}
	if dead || j.tbDraw() || j.tbLoss() {
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
// and our last offer was at least DrawOfferEvery of our moves ago. A
// tablebase draw (tbDraw) stands for the level rule, at any move number. A
// true answer counts as the offer made.
func (j *judge) OfferDraw(moveNumber, ours int) bool {
	if !j.cfg.OfferDraws || !(j.tbDraw() || j.level(moveNumber)) {
		return false
	}
	if j.offered && ours-j.offeredAt < j.cfg.DrawOfferEvery {
		return false
	}
	j.offered, j.offeredAt = true, ours
	return true
}

// Resign reports whether to resign: resignation is enabled and our last
// ResignMoves scores were all at or below -ResignScore, or the tablebase
// says we lose (a loss the fifty-move rule does not save: a blessed loss
// is a draw, and no reason to resign).
func (j *judge) Resign() bool {
	if !j.cfg.Resign {
		return false
	}
	if j.tbLoss() {
		return true
	}
	if j.tbDraw() {
		return false // the tablebase knows better than a score
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
