package bot

// Etiquette in a game: draw offers with our moves and the claim when the
// opponent has left.

import (
	"context"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// offerDraw reports whether to offer a draw with the move of res, found in
// pos: only after a search (a book or forced move says nothing new about
// the score), never while the opponent's own offer stands (answerOffers
// has answered it, and a move offering a draw would accept it), and by the
// judge's rule (judge.OfferDraw).
func (r *gameRunner) offerDraw(pos *board.Position, res Answer) bool {
	if res.Depth == 0 && res.Nodes == 0 && !r.search.judge.tbDraw() {
		return false
	}
	if r.board.state.DrawOffered(wireColor(r.us.Other())) {
		return false
	}
	return r.search.judge.OfferDraw(pos.FullmoveNumber(), r.board.movesBy(r.us)+1)
}

// canMate reports whether c has the material to mate at all: a pawn, a
// rook or a queen, or two minor pieces. Without it, a win claimed against
// an opponent who left is a draw, and we claim the draw.
func canMate(p *board.Position, c board.Color) bool {
	if p.Pieces(c, board.Pawn)|p.Pieces(c, board.Rook)|p.Pieces(c, board.Queen) != 0 {
		return true
	}
	return (p.Pieces(c, board.Knight) | p.Pieces(c, board.Bishop)).Count() >= 2
}

// claim claims the game the opponent left: the win, or a draw when we
// cannot mate.
func (r *gameRunner) claim(ctx context.Context) {
	pos := r.board.game.Position()
	if canMate(&pos, r.us) {
		r.log.Info("claiming victory: the opponent left")
		r.later("claim victory", func(c context.Context) error { return r.svc.api.ClaimVictory(c, r.id) })
		return
	}
	r.log.Info("claiming a draw: the opponent left and we cannot mate")
	r.later("claim draw", func(c context.Context) error { return r.svc.api.ClaimDraw(c, r.id) })
}
