package engine

// This file holds the alpha-beta search below the root (search, for PV and
// non-PV nodes alike) and the quiescence search (qsearch). Their steps are
// numbered the way Stockfish numbers its own; the root is in iterate.go.

import (
	"math"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// lmrTable[depth][moveCount] is the late-move reduction in plies.
var lmrTable = func() (t [64][64]int8) {
	for d := 1; d < 64; d++ {
		for m := 1; m < 64; m++ {
			t[d][m] = int8(0.75 + math.Log(float64(d))*math.Log(float64(m))/2.25)
		}
	}
	return t
}()

// reduction is the base late-move reduction of the moveCount-th move at depth.
func reduction(depth, moveCount int) int {
	return int(lmrTable[min(depth, 63)][min(moveCount, 63)])
}

// search is the principal variation search at an interior node (ply >= 1).
// A node is a PV node when its window is open (beta-alpha > 1); cutNode
// says a fail high is expected (the parent searched it with a null window
// as a reduced or later move).
func (w *worker) search(alpha, beta Score, depth, ply int, cutNode bool) Score {
	// Step 1. Initialize the node; at depth 0 the quiescence search takes over.
	pvNode := beta-alpha > 1
	w.pvLen[ply] = 0
	if depth <= 0 {
		return w.qsearch(alpha, beta, ply, true)
	}

	// Step 2. Check for an aborted search, an immediate draw and the maximum ply.
	if w.poll() {
		return 0
	}
	w.selDepth = max(w.selDepth, ply)
	f := &w.stack[ply]
	pos := &f.pos
	if w.isDraw(ply) {
		return 0
	}
	if ply >= MaxPly {
		return w.evaluate(ply)
	}

	// Step 3. Mate distance pruning: no line from here beats a mate already found nearer the root.
	alpha = max(alpha, matedIn(ply))
	beta = min(beta, mateIn(ply+1))
	if alpha >= beta {
		return alpha
	}

	// Step 4. Transposition table lookup (not in the singular search, which excludes a move).
	inCheck := pos.InCheck()
	key := pos.Key()
	excluded := f.excluded
	var tte ttHit
	ttHitOK := false
	if excluded == board.NoMove {
		tte, ttHitOK = w.tt.probe(key)
	}
	ttMove, ttScore := board.NoMove, NoScore
	if ttHitOK {
		ttMove = legalTTMove(pos, tte)
		ttScore = scoreFromTT(tte.score, ply)
		if !pvNode && tte.cuts(ttScore, depth, alpha, beta) {
			return ttScore
		}
	}

	// Step 5. Static evaluation, and the TT score where its bound says it is a better estimate.
	rawEval, staticEval, evalScore := NoScore, NoScore, NoScore
	if !inCheck {
		rawEval, staticEval = w.staticEval(ply, tte, ttHitOK)
		evalScore = staticEval
		if ttScore != NoScore && !ttScore.IsMate() &&
			((tte.bound == BoundLower && ttScore > evalScore) || (tte.bound == BoundUpper && ttScore < evalScore) || tte.bound == BoundExact) {
			evalScore = ttScore
		}
	}
	f.staticEval = staticEval
	ttPV := w.nodeTTPV(pvNode, tte, ttHitOK)
	improving := !inCheck && ply >= 2 && w.stack[ply-2].staticEval != NoScore && staticEval > w.stack[ply-2].staticEval
	w.stack[ply+1].killers = [2]board.Move{}
	w.stack[ply+1].excluded = board.NoMove

	if !pvNode && !inCheck && excluded == board.NoMove {
		// Step 6. Reverse futility pruning: the static score beats beta by a depth margin.
		if depth <= 8 && evalScore-Score(80*(depth-b2i(improving))) >= beta && evalScore < mateBound {
			return evalScore
		}

		// Step 7. Razoring: far below alpha at low depth, trust the quiescence search.
		if depth <= 3 && evalScore+Score(250*depth) < alpha {
			q := w.qsearch(alpha-1, alpha, ply, true)
			if w.stopped {
				return 0
			}
			if q < alpha {
				return q
			}
		}

		// Step 8. Null move search, verified at high depth (zugzwang safety).
		if depth >= 3 && ply >= w.nmpMinPly && evalScore >= beta && staticEval >= beta-Score(20*depth) &&
			w.stack[ply-1].move != board.NullMove && pos.HasNonPawnMaterial(pos.SideToMove()) && beta > -mateBound {
			if score, cut := w.nullMoveSearch(ply, depth, beta, evalScore, cutNode); cut {
				return score
			}
		}
	}

	// Step 9. Internal iterative reduction: without a hash move, search shallower first.
	if depth >= 4 && ttMove == board.NoMove && (pvNode || cutNode) {
		depth--
	}

	// Step 10. Singular extension search: if every move but the hash move
	// fails low against a margin below the hash score, the hash move is
	// extended; if even without it the node fails high, cut (multi-cut).
	singularExt := 0
	if depth >= 8 && ttMove != board.NoMove && excluded == board.NoMove &&
		tte.bound != BoundUpper && tte.depth >= depth-3 && ttScore != NoScore &&
		!ttScore.IsMate() && ply < 2*w.rootDepth {
		ext, score, cut := w.singularSearch(ply, depth, ttMove, ttScore, beta, cutNode)
		if cut {
			return score
		}
		singularExt = ext
	}

	// Step 11. Set up the move loop: ordering from the hash move, killers,
	// counter move and histories; the late-move pruning limit.
	counterSlot := w.counterSlot(ply)
	counter := board.NoMove
	if counterSlot != nil {
		counter = *counterSlot
	}
	cont1, cont2 := w.contOf(ply-1), w.contOf(ply-2)
	p := &f.pick
	p.init(pos, ttMove, f.killers, counter, false, &w.hist, cont1, cont2)
	us := pos.SideToMove()
	best, bestMove := -Infinity, board.NoMove
	origAlpha := alpha
	moveCount, nQuiets, nCaps := 0, 0, 0
	lmpLimit := 3 + depth*depth
	if !improving {
		lmpLimit = lmpLimit * 2 / 3
	}
	// Shallow-depth pruning needs a move that does not lose to mate yet,
	// and pieces (pawn endings are zugzwang country).
	canPrune := pos.HasNonPawnMaterial(us)

	// Step 12. Loop through the moves until none is left or one fails high.
	for {
		// When late-move or futility pruning will cut every quiet move still
		// to come that does not give check, count them without picking them
		// one by one (see dropQuiets). Both conditions only grow stricter
		// as moveCount grows and alpha stays.
		if canPrune && best > -mateBound && p.atQuiets() &&
			quietPruned(depth, moveCount+1, lmpLimit, inCheck, staticEval, alpha) {
			moveCount += p.dropQuiets(excluded)
		}
		m := p.next()
		if m == board.NoMove {
			break
		}
		if m == excluded {
			continue
		}
		moveCount++
		isQuiet := !pos.IsCapture(m) && !m.IsPromotion()
		givesCheck := p.givesCheck(m)
		piece := pos.PieceAt(m.From())
		hist := 0
		if isQuiet {
			hist = w.hist.quietScore(us, piece, m, cont1, cont2)
		}

		// Step 13. Shallow-depth pruning: late moves, futility, bad history, losing exchanges.
		if canPrune && best > -mateBound {
			lmrDepth := depth - 1 - reduction(depth, moveCount)
			if isQuiet && !givesCheck {
				if quietPruned(depth, moveCount, lmpLimit, inCheck, staticEval, alpha) ||
					(lmrDepth <= 3 && hist < -3000*depth) ||
					(lmrDepth <= 7 && !see(pos, m, -25*lmrDepth*lmrDepth)) {
					continue
				}
			} else if depth <= 6 && !see(pos, m, -100*depth) {
				continue
			}
		}

		// Step 14. Make the move; extend singular hash moves and checks.
		w.makeMove(ply, m, piece)
		if isQuiet && nQuiets < len(f.quietsTried) {
			f.quietsTried[nQuiets] = m
			nQuiets++
		} else if !isQuiet && nCaps < len(f.capsTried) {
			f.capsTried[nCaps] = m
			nCaps++
		}
		newDepth := depth - 1
		if m == ttMove && singularExt > 0 {
			newDepth += singularExt
		} else if givesCheck && ply < 2*w.rootDepth {
			newDepth++
		}

		// Step 15. Late-move reduction: later quiet moves and losing
		// captures first at a reduced depth, again at full depth if they
		// beat alpha.
		var score Score
		if depth >= 3 && moveCount > 1+b2i(pvNode) && (isQuiet || !see(pos, m, 0)) {
			rd := reduction(depth, moveCount) + b2i(!ttPV) + b2i(cutNode) - b2i(improving) -
				b2i(m == f.killers[0] || m == f.killers[1] || m == counter) - b2i(inCheck || givesCheck) - hist/8000
			rd = max(0, min(rd, newDepth-1))
			score = -w.search(-alpha-1, -alpha, newDepth-rd, ply+1, true)
			if score > alpha && rd > 0 && !w.stopped {
				score = -w.search(-alpha-1, -alpha, newDepth, ply+1, !cutNode)
			}
		} else if !pvNode || moveCount > 1 {
			// Step 16. Full-depth null-window search when LMR is skipped.
			score = -w.search(-alpha-1, -alpha, newDepth, ply+1, !cutNode)
		}
		// At PV nodes, the first move and every move that lands inside the window get the full window.
		if pvNode && (moveCount == 1 || (score > alpha && score < beta)) && !w.stopped {
			score = -w.search(-beta, -alpha, newDepth, ply+1, false)
		}

		// Step 17. Undo the move and check for a new best move.
		w.unmakeMove(ply)
		if w.stopped {
			return 0
		}
		if w.newBest(ply, pvNode, m, score, beta, &best, &alpha, &bestMove) {
			w.updateHistories(ply, m, isQuiet, depth, nQuiets, nCaps, counterSlot, cont1, cont2)
			break
		}
	}

	// Step 18. Checkmate and stalemate (or, in a singular search, every move but the excluded one pruned).
	if moveCount == 0 {
		switch {
		case excluded != board.NoMove:
			return alpha
		case inCheck:
			return matedIn(ply)
		}
		return 0
	}

	// Step 19. Store the result in the transposition table, and teach the
	// correction history how far the static evaluation was off: when the
	// best move is quiet (a capture's gain is not the evaluation's error)
	// and the bound says on which side the true score lies.
	if excluded == board.NoMove {
		bound := boundOf(best, origAlpha, beta, pvNode)
		w.tt.store(key, bestMove, scoreToTT(best, ply), rawEval, depth, bound, ttPV)
		if w.corrHist && !inCheck && (bestMove == board.NoMove || (!pos.IsCapture(bestMove) && !bestMove.IsPromotion())) &&
			!best.IsMate() && !(bound == BoundLower && best <= staticEval) && !(bound == BoundUpper && best >= staticEval) {
			w.hist.updateCorrection(pos, best-rawEval, depth)
		}
	}
	return best
}

// nullMoveSearch is step 8 of search: pass, and if a reduced search still
// fails high, the node is cut. At depth 10 and more (unless already
// verifying) a fail high is verified by a search of the node itself with
// null moves disabled for a while. cut reports that search returns score.
func (w *worker) nullMoveSearch(ply, depth int, beta, evalScore Score, cutNode bool) (score Score, cut bool) {
	rd := 3 + depth/3 + min(int(evalScore-beta)/200, 3)
	w.makeNullMove(ply)
	score = -w.search(-beta, -beta+1, depth-rd, ply+1, !cutNode)
	w.unmakeMove(ply)
	if w.stopped {
		return 0, true
	}
	if score < beta {
		return 0, false
	}
	if score >= mateBound {
		score = beta // an unproven mate: the null move is not a move
	}
	if w.nmpMinPly > 0 || depth < 10 {
		return score, true
	}
	w.nmpMinPly = ply + 3*(depth-rd)/4
	v := w.search(beta-1, beta, depth-rd, ply, false)
	w.nmpMinPly = 0
	if w.stopped {
		return 0, true
	}
	return score, v >= beta
}

// singularSearch is step 10 of search: it searches the node without the
// hash move ttMove, with a null window below the hash score ttScore. It
// returns the extension of the hash move (1 when every other move fails
// low), or cut with the score search returns (when even without the hash
// move the node fails high over beta, or the search was stopped).
func (w *worker) singularSearch(ply, depth int, ttMove board.Move, ttScore, beta Score, cutNode bool) (ext int, score Score, cut bool) {
	singularBeta := ttScore - Score(2*depth)
	f := &w.stack[ply]
	f.excluded = ttMove
	v := w.search(singularBeta-1, singularBeta, (depth-1)/2, ply, cutNode)
	f.excluded = board.NoMove
	if w.stopped {
		return 0, 0, true
	}
	if v < singularBeta {
		ext = 1
	} else if singularBeta >= beta {
		return 0, singularBeta, true
	}
	w.stack[ply+1].killers = [2]board.Move{}
	return ext, 0, false
}

// quietPruned reports whether late-move or futility pruning cuts the
// moveCount-th move at depth when it is quiet and gives no check.
func quietPruned(depth, moveCount, lmpLimit int, inCheck bool, staticEval, alpha Score) bool {
	lmrDepth := depth - 1 - reduction(depth, moveCount)
	return (depth <= 8 && moveCount >= lmpLimit) ||
		(!inCheck && lmrDepth <= 8 && staticEval+Score(90+100*lmrDepth) <= alpha)
}

// legalTTMove returns the hash move of h if it is legal in pos, else NoMove
// (a key collision, or a torn entry).
func legalTTMove(pos *board.Position, h ttHit) board.Move {
	if h.move != board.NoMove && !pos.IsLegal(h.move) {
		return board.NoMove
	}
	return h.move
}

// staticEval returns the evaluation of the node at ply, taken from the
// hash entry h (found when ok) if it holds one: raw as the evaluator gives
// it (what the hash table keeps), and corrected by the correction history
// (what the search prunes with).
func (w *worker) staticEval(ply int, h ttHit, ok bool) (raw, corrected Score) {
	raw = h.eval
	if !ok || h.eval <= -mateBound || h.eval >= mateBound { // NoScore lies above mateBound
		raw = w.evaluate(ply)
	}
	if !w.corrHist {
		return raw, raw
	}
	corrected = raw + w.hist.correction(&w.stack[ply].pos)
	return raw, max(-mateBound+1, min(mateBound-1, corrected))
}

// nodeTTPV reports whether a node counts as on a principal variation for
// late-move reductions and for the flag its hash entry keeps: a PV node
// always; with Options.TTPV also a node whose hash entry says it was one.
func (w *worker) nodeTTPV(pvNode bool, h ttHit, ok bool) bool {
	return pvNode || (w.ttPV && ok && h.pv)
}

// newBest takes the score of move m into the node at ply: it raises best,
// and when the score beats alpha it records the best move, the PV (at PV
// nodes) and raises alpha. It reports a fail high (score >= beta), and then
// leaves alpha as it was.
func (w *worker) newBest(ply int, pvNode bool, m board.Move, score, beta Score, best, alpha *Score, bestMove *board.Move) bool {
	if score <= *best {
		return false
	}
	*best = score
	if score <= *alpha {
		return false
	}
	*bestMove = m
	if pvNode {
		w.updatePV(ply, m)
	}
	if score >= beta {
		return true
	}
	*alpha = score
	return false
}

// boundOf is the bound of a node's result best searched with the window
// (alpha, beta): a fail high is a lower bound, a score inside the window is
// exact where exact scores are kept (PV nodes), anything else an upper bound.
func boundOf(best, alpha, beta Score, exact bool) Bound {
	switch {
	case best >= beta:
		return BoundLower
	case exact && best > alpha:
		return BoundExact
	}
	return BoundUpper
}

// isPlayed reports whether m is a move played on the board (not the absent
// move before the root, nor a null move).
func isPlayed(m board.Move) bool { return m != board.NoMove && m != board.NullMove }

// contOf returns the continuation history indexed by the move played at
// ply, or nil when there is none.
func (w *worker) contOf(ply int) *contTable {
	if ply < 0 {
		return nil
	}
	f := &w.stack[ply]
	if !isPlayed(f.move) {
		return nil
	}
	return &w.hist.cont[f.piece][f.move.To()]
}

// counterSlot returns the counter-move entry of the move that led to the
// node at ply, or nil when there is none.
func (w *worker) counterSlot(ply int) *board.Move {
	if ply < 1 {
		return nil
	}
	f := &w.stack[ply-1]
	if !isPlayed(f.move) {
		return nil
	}
	return &w.hist.counter[f.piece][f.move.To()]
}

// qsearch searches captures (and all evasions when in check) until quiet;
// with checks, also the quiet moves that give check and do not lose
// material (at the first quiescence ply only).
func (w *worker) qsearch(alpha, beta Score, ply int, checks bool) Score {
	// Step 1. Check for an aborted search, an immediate draw and the maximum ply.
	if w.poll() {
		return 0
	}
	w.selDepth = max(w.selDepth, ply)
	pvNode := beta-alpha > 1
	f := &w.stack[ply]
	pos := &f.pos
	w.pvLen[ply] = 0
	if w.isDraw(ply) {
		return 0
	}
	inCheck := pos.InCheck()
	if ply >= MaxPly {
		if inCheck {
			return 0
		}
		return w.evaluate(ply)
	}

	// Step 2. Transposition table lookup.
	key := pos.Key()
	tte, ok := w.tt.probe(key)
	ttMove := board.NoMove
	if ok {
		if s := scoreFromTT(tte.score, ply); !pvNode && tte.cuts(s, 0, alpha, beta) {
			return s
		}
		ttMove = legalTTMove(pos, tte)
	}

	// Step 3. Stand pat: out of check, the side to move may decline every capture.
	best := -Infinity
	rawEval, standPat := NoScore, NoScore
	if !inCheck {
		rawEval, standPat = w.staticEval(ply, tte, ok)
		if standPat >= beta {
			return standPat
		}
		best = standPat
		alpha = max(alpha, standPat)
	}
	f.staticEval = standPat

	// Step 4. Loop through captures (evasions in check, quiet checks when asked).
	p := &f.pick
	p.init(pos, ttMove, [2]board.Move{}, board.NoMove, !inCheck, &w.hist, nil, nil)
	p.qsChecks = checks && !inCheck
	bestMove := board.NoMove
	moveCount := 0
	for {
		m := p.next()
		if m == board.NoMove {
			break
		}
		moveCount++

		// Step 5. Pruning: delta pruning of captures that cannot raise
		// alpha; SEE pruning of losing captures and of quiet checks that
		// lose the checking piece.
		if !inCheck {
			if !m.IsPromotion() && pos.IsCapture(m) && standPat+Score(seeValue[capturedType(pos, m)])+200 <= alpha {
				continue
			}
			if !see(pos, m, 0) {
				continue
			}
		}

		// Step 6. Make, search and undo the move; check for a new best move.
		w.makeMove(ply, m, pos.PieceAt(m.From()))
		score := -w.qsearch(-beta, -alpha, ply+1, false)
		w.unmakeMove(ply)
		if w.stopped {
			return 0
		}
		if w.newBest(ply, pvNode, m, score, beta, &best, &alpha, &bestMove) {
			break
		}
	}

	// Step 7. Checkmate, and the transposition table store.
	if inCheck && moveCount == 0 {
		return matedIn(ply)
	}
	w.tt.store(key, bestMove, scoreToTT(best, ply), rawEval, 0, boundOf(best, alpha, beta, false), false)
	return best
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (w *worker) updatePV(ply int, m board.Move) {
	w.pv[ply][0] = m
	n := w.pvLen[ply+1]
	copy(w.pv[ply][1:1+n], w.pv[ply+1][:n])
	w.pvLen[ply] = n + 1
}

// updateHistories rewards the cut-off move m at ply and penalises the moves
// tried before it: for a quiet m, the quiets (and m becomes a killer and the
// counter move in counterSlot); for any m, the captures.
func (w *worker) updateHistories(ply int, m board.Move, isQuiet bool, depth, nQuiets, nCaps int,
	counterSlot *board.Move, cont1, cont2 *contTable) {
	f := &w.stack[ply]
	pos := &f.pos
	us := pos.SideToMove()
	bonus := histBonus(depth)
	if isQuiet {
		if f.killers[0] != m {
			f.killers[1] = f.killers[0]
			f.killers[0] = m
		}
		if counterSlot != nil {
			*counterSlot = m
		}
		for _, q := range f.quietsTried[:nQuiets] {
			b := -bonus
			if q == m {
				b = bonus
			}
			w.hist.updateQuiet(us, pos.PieceAt(q.From()), q, cont1, cont2, b)
		}
	}
	for _, c := range f.capsTried[:nCaps] {
		b := -bonus
		if c == m {
			b = bonus
		} else if isQuiet {
			continue
		}
		pc := pos.PieceAt(c.From())
		gravity(&w.hist.capture[pc][c.To()][capturedType(pos, c)], b)
	}
}

// capturedType is the type of the piece m captures (a pawn for en passant,
// NoPieceType for castling and quiet moves).
func capturedType(pos *board.Position, m board.Move) board.PieceType {
	if m.IsEnPassant() {
		return board.Pawn
	}
	if m.IsCastling() {
		return board.NoPieceType
	}
	return pos.PieceAt(m.To()).Type()
}
