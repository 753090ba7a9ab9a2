package engine

import (
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

// frame is the per-ply scratch space of one search thread (preallocated, so
// the search itself allocates nothing).
type frame struct {
	pos         board.Position
	move        board.Move  // move being searched from this ply
	piece       board.Piece // piece that move moves
	staticEval  Score
	killers     [2]board.Move
	sinceNull   int // plies since the last null move (bounds repetition scans)
	excluded    board.Move
	pick        picker
	quietsTried [64]board.Move
	capsTried   [32]board.Move
}

// rootMove is one root move with its scores and principal variation.
type rootMove struct {
	move      board.Move
	score     Score // score in the current iteration (-Infinity if not searched)
	prevScore Score
	bound     Bound
	selDepth  int
	pv        []board.Move // preallocated, reused
}

// worker is one search thread with everything it owns.
type worker struct {
	id  int
	tt  *transTable
	run *run
	ev  *eval.Evaluator

	nodes       uint64        // owned by the worker's goroutine
	sharedNodes atomic.Uint64 // published copy of nodes, read by others

	stack    [MaxPly + 4]frame
	pv       [MaxPly + 1][MaxPly + 1]board.Move
	pvLen    [MaxPly + 1]int
	hist     history
	keys     []uint64 // Zobrist keys from the game start to the current node
	selDepth int

	rootMoves  []rootMove
	multiPV    int
	pvIdx      int
	rootDepth  int
	completed  int // deepest completed iteration
	bestMove   board.Move
	ponderMove board.Move
	bestScore  Score
	nmpMinPly  int // null move is disabled below this ply (verification search)
	stopped    bool
	knobs      knobs // experiment switches (all off in play)
}

func newWorker(id int, tt *transTable, p *eval.Params) *worker {
	if p == nil {
		p = eval.Default
	}
	return &worker{id: id, tt: tt, ev: eval.NewEvaluatorWith(p), keys: make([]uint64, 0, 1024)}
}

func (w *worker) clearHistory() {
	w.hist.clear()
	for i := range w.stack {
		w.stack[i].killers = [2]board.Move{}
	}
	w.ev.Clear()
}

// prepare readies the worker for a new search of root.
func (w *worker) prepare(r *run, root *board.Position, keys []uint64, moves []board.Move, multiPV int) {
	w.run = r
	w.nodes = 0
	w.sharedNodes.Store(0)
	w.stack[0].pos = *root
	w.stack[0].sinceNull = root.HalfmoveClock()
	w.stack[0].move = board.NoMove
	w.stack[0].excluded = board.NoMove
	w.keys = append(w.keys[:0], keys...)
	if len(w.keys) == 0 || w.keys[len(w.keys)-1] != root.Key() {
		w.keys = append(w.keys, root.Key())
	}
	if cap(w.rootMoves) < len(moves) {
		w.rootMoves = make([]rootMove, len(moves))
	}
	w.rootMoves = w.rootMoves[:len(moves)]
	for i, m := range moves {
		rm := &w.rootMoves[i]
		rm.move = m
		rm.score, rm.prevScore = -Infinity, -Infinity
		rm.bound = BoundUpper
		if rm.pv == nil {
			rm.pv = make([]board.Move, 0, MaxPly+1)
		}
		rm.pv = append(rm.pv[:0], m)
	}
	w.multiPV = multiPV
	w.completed = 0
	w.bestMove = moves[0]
	w.ponderMove = board.NoMove
	w.bestScore = -Infinity
	w.nmpMinPly = 0
	w.stopped = false
	for i := range w.stack {
		w.stack[i].killers = [2]board.Move{}
	}
}

func (w *worker) isMain() bool { return w.id == 0 }

// result builds the Result from the main worker's state.
func (w *worker) result() Result {
	rm := &w.rootMoves[0]
	res := Result{Best: rm.move, Score: rm.score, Depth: w.completed}
	if res.Score == -Infinity {
		res.Score = rm.prevScore
	}
	if res.Score == -Infinity {
		res.Score = 0
	}
	if len(rm.pv) > 1 {
		res.Ponder = rm.pv[1]
	}
	if res.Ponder == board.NoMove {
		res.Ponder = w.ponderFromTT(rm.move)
	}
	return res
}

// ponderFromTT finds a reply to best in the hash table, if one is stored.
func (w *worker) ponderFromTT(best board.Move) board.Move {
	var child board.Position
	w.stack[0].pos.MakeMove(best, &child)
	if h, ok := w.tt.probe(child.Key()); ok && h.move != board.NoMove && child.IsLegal(h.move) {
		return h.move
	}
	return board.NoMove
}

// poll counts a node and checks limits: returns true when the search must
// unwind. Only the main thread checks the clock and the node limit.
func (w *worker) poll() bool {
	w.nodes++
	if w.nodes&1023 == 0 {
		w.sharedNodes.Store(w.nodes)
		if w.isMain() {
			r := w.run
			if r.nodeLimit > 0 && r.totalNodes() >= r.nodeLimit {
				r.abort.Store(true)
			}
			if elapsed, b, ok := r.clock(time.Now()); ok && elapsed >= b.hard {
				r.abort.Store(true)
			}
		}
	}
	if w.run.abort.Load() {
		w.stopped = true
		return true
	}
	return false
}

var lmrTable = func() (t [64][64]int8) {
	for d := 1; d < 64; d++ {
		for m := 1; m < 64; m++ {
			t[d][m] = int8(0.75 + math.Log(float64(d))*math.Log(float64(m))/2.25)
		}
	}
	return t
}()

// iterate runs iterative deepening. The main thread (report != nil or id 0)
// reports and decides when to stop; helpers search until aborted.
func (w *worker) iterate(report func(Info)) {
	r := w.run
	l := r.limits
	maxDepth := MaxDepth
	if l.Depth > 0 && l.Depth < maxDepth {
		maxDepth = l.Depth
	}
	stable := 0
	var scoreHist [MaxDepth + 1]Score
	for depth := 1; depth <= maxDepth; depth++ {
		// Helpers skip some depths so the threads spread over the tree.
		if !w.isMain() && depth > 1 && (depth+w.id)%3 == 0 && depth < maxDepth {
			continue
		}
		w.rootDepth = depth
		for i := range w.rootMoves {
			rm := &w.rootMoves[i]
			if rm.score != -Infinity {
				rm.prevScore = rm.score
			}
			rm.score = -Infinity
		}
		prevBest := w.rootMoves[0].move
		for w.pvIdx = 0; w.pvIdx < w.multiPV; w.pvIdx++ {
			w.aspiration(depth, report)
			if w.stopped {
				break
			}
		}
		if w.stopped {
			// Keep what the partial iteration proved: moves searched in
			// this iteration that raised alpha go to the front; if none
			// was, the previous order (best first) stays.
			slices.SortStableFunc(w.rootMoves[w.pvIdx:], func(a, b rootMove) int { return int(b.score - a.score) })
			break
		}
		w.completed = depth
		// Order the MultiPV lines by score for the next iteration.
		slices.SortStableFunc(w.rootMoves[:w.multiPV], func(a, b rootMove) int { return int(b.score - a.score) })
		if !w.isMain() {
			continue
		}
		best := w.rootMoves[0]
		scoreHist[depth] = best.score
		if report != nil {
			w.reportPVs(report, depth)
		}
		if best.move == prevBest {
			stable++
		} else {
			stable = 0
		}
		// Stopping rules (main thread only).
		if l.Mate > 0 && best.score.IsMate() && best.score > 0 && best.score.MateIn() <= l.Mate {
			break
		}
		if best.score.IsMate() && depth >= 2*int(MateScore-abs(best.score))+4 && l.Mate == 0 {
			break // the mate is as short as this search will find
		}
		if elapsed, b, ok := r.clock(time.Now()); ok && !b.exact {
			if len(w.rootMoves) == 1 && depth >= 4 {
				break
			}
			drop := Score(0)
			if depth >= 4 {
				drop = (scoreHist[depth-1]+scoreHist[depth-2])/2 - best.score
			}
			soft := time.Duration(float64(b.soft) * stabilityScale(stable, drop))
			if soft > b.hard {
				soft = b.hard
			}
			// Starting another iteration costs about as much as all before.
			if elapsed >= soft || elapsed*2 >= b.hard {
				break
			}
		}
	}
	w.sharedNodes.Store(w.nodes)
}

func abs(s Score) Score {
	if s < 0 {
		return -s
	}
	return s
}

// aspiration searches rootMoves[pvIdx:] at depth with aspiration windows.
func (w *worker) aspiration(depth int, report func(Info)) {
	rm := &w.rootMoves[w.pvIdx]
	alpha, beta := -Infinity, Infinity
	delta := Score(16)
	prev := rm.prevScore
	if depth >= 4 && prev != -Infinity && !prev.IsMate() {
		alpha = max(prev-delta, -Infinity)
		beta = min(prev+delta, Infinity)
	}
	for {
		score := w.rootSearch(alpha, beta, depth, report)
		if w.stopped {
			return
		}
		// Bring the best move of this window to pvIdx.
		slices.SortStableFunc(w.rootMoves[w.pvIdx:], func(a, b rootMove) int { return int(b.score - a.score) })
		switch {
		case score <= alpha:
			beta = (alpha + beta) / 2
			alpha = max(score-delta, -Infinity)
		case score >= beta:
			beta = min(score+delta, Infinity)
		default:
			return
		}
		delta += delta / 2
		if delta > 600 {
			alpha, beta = -Infinity, Infinity
		}
	}
}

// rootSearch searches every root move from pvIdx on with PVS and returns
// the best score. Root moves' scores and PVs are updated in place.
func (w *worker) rootSearch(alpha, beta Score, depth int, report func(Info)) Score {
	f := &w.stack[0]
	pos := &f.pos
	w.pvLen[0] = 0
	w.selDepth = 0
	best := -Infinity
	origAlpha := alpha
	var bestMove board.Move
	for i := w.pvIdx; i < len(w.rootMoves); i++ {
		rm := &w.rootMoves[i]
		m := rm.move
		if report != nil && time.Since(w.run.start) > 3*time.Second {
			report(Info{Depth: depth, CurrMove: m, CurrMoveNumber: i + 1})
		}
		child := &w.stack[1]
		f.move = m
		f.piece = pos.PieceAt(m.From())
		pos.MakeMove(m, &child.pos)
		child.sinceNull = f.sinceNull + 1
		w.keys = append(w.keys, child.pos.Key())
		newDepth := depth - 1
		if child.pos.InCheck() {
			newDepth++
		}
		var score Score
		if i == w.pvIdx {
			score = -w.search(-beta, -alpha, newDepth, 1, false)
		} else {
			score = -w.search(-alpha-1, -alpha, newDepth, 1, true)
			if score > alpha && !w.stopped {
				score = -w.search(-beta, -alpha, newDepth, 1, false)
			}
		}
		w.keys = w.keys[:len(w.keys)-1]
		if w.stopped {
			return best
		}
		if score > best {
			best = score
		}
		if i == w.pvIdx || score > alpha {
			rm.score = score
			rm.selDepth = w.selDepth
			rm.bound = BoundExact
			if score >= beta {
				rm.bound = BoundLower
			} else if score <= origAlpha {
				rm.bound = BoundUpper
			}
			rm.pv = append(rm.pv[:0], m)
			rm.pv = append(rm.pv, w.pv[1][:w.pvLen[1]]...)
		} else {
			rm.score = -Infinity
		}
		if score > alpha {
			bestMove = m
			alpha = score
			if score >= beta {
				break
			}
		}
	}
	// Mark not-yet-searched moves (after a cutoff) as worst.
	if bestMove != board.NoMove {
		bound := BoundExact
		if best >= beta {
			bound = BoundLower
		}
		w.tt.store(pos.Key(), bestMove, scoreToTT(best, 0), NoScore, depth, bound, true)
	}
	return best
}

// reportPVs sends one Info per MultiPV line.
func (w *worker) reportPVs(report func(Info), depth int) {
	r := w.run
	elapsed := time.Since(r.start)
	nodes := r.totalNodes()
	if nodes < w.nodes {
		nodes = w.nodes
	}
	nps := uint64(0)
	if elapsed > 0 {
		nps = uint64(float64(nodes) / elapsed.Seconds())
	}
	hf := w.tt.hashfull()
	for i := 0; i < w.multiPV; i++ {
		rm := &w.rootMoves[i]
		if rm.score == -Infinity {
			continue
		}
		pv := make([]board.Move, len(rm.pv))
		copy(pv, rm.pv)
		report(Info{
			Depth: depth, SelDepth: max(rm.selDepth, depth), MultiPV: i + 1,
			Score: rm.score, Bound: rm.bound,
			Nodes: nodes, NPS: nps, Time: elapsed, PV: pv, HashFull: hf,
		})
	}
}

// isRepetition reports whether the node at ply repeats an earlier position
// (in the game or the search path) since the last irreversible move.
func (w *worker) isRepetition(ply int) bool {
	f := &w.stack[ply]
	limit := min(f.pos.HalfmoveClock(), f.sinceNull)
	n := len(w.keys)
	key := w.keys[n-1]
	for i := n - 3; i >= 0 && i >= n-1-limit; i -= 2 {
		if w.keys[i] == key {
			return true
		}
	}
	return false
}

func (w *worker) evaluate(pos *board.Position) Score {
	return Score(w.ev.Evaluate(pos))
}

// search is the principal variation search at an interior node.
func (w *worker) search(alpha, beta Score, depth, ply int, cutNode bool) Score {
	pvNode := beta-alpha > 1
	w.pvLen[ply] = 0
	if depth <= 0 {
		return w.qsearch(alpha, beta, ply, !w.knobs.noQChecks)
	}
	if w.poll() {
		return 0
	}
	if ply > w.selDepth {
		w.selDepth = ply
	}
	f := &w.stack[ply]
	pos := &f.pos
	if w.isRepetition(ply) || pos.InsufficientMaterial() || (pos.HalfmoveClock() >= 100 && !pos.InCheck()) {
		return 0
	}
	if ply >= MaxPly {
		return w.evaluate(pos)
	}
	// Mate distance pruning.
	alpha = max(alpha, matedIn(ply))
	beta = min(beta, mateIn(ply+1))
	if alpha >= beta {
		return alpha
	}

	inCheck := pos.InCheck()
	key := pos.Key()
	excluded := f.excluded
	ttMove := board.NoMove
	var tte ttHit
	ttHitOK := false
	if excluded == board.NoMove {
		tte, ttHitOK = w.tt.probe(key)
	}
	ttScore := NoScore
	if ttHitOK {
		ttMove = tte.move
		if ttMove != board.NoMove && !pos.IsLegal(ttMove) {
			ttMove = board.NoMove
		}
		ttScore = scoreFromTT(tte.score, ply)
		if !pvNode && tte.depth >= depth && ttScore != NoScore {
			if (tte.bound == BoundExact) ||
				(tte.bound == BoundLower && ttScore >= beta) ||
				(tte.bound == BoundUpper && ttScore <= alpha) {
				return ttScore
			}
		}
	}

	// Static evaluation.
	var staticEval, evalScore Score
	if inCheck {
		staticEval, evalScore = NoScore, NoScore
	} else {
		if ttHitOK && tte.eval != NoScore && tte.eval > -mateBound && tte.eval < mateBound {
			staticEval = tte.eval
		} else {
			staticEval = w.evaluate(pos)
		}
		evalScore = staticEval
		// The TT score is a better estimate when its bound allows.
		if ttScore != NoScore && !ttScore.IsMate() &&
			((tte.bound == BoundLower && ttScore > evalScore) || (tte.bound == BoundUpper && ttScore < evalScore) || tte.bound == BoundExact) {
			evalScore = ttScore
		}
	}
	f.staticEval = staticEval
	improving := false
	if !inCheck && ply >= 2 && w.stack[ply-2].staticEval != NoScore {
		improving = staticEval > w.stack[ply-2].staticEval
	}
	w.stack[ply+1].killers = [2]board.Move{}
	w.stack[ply+1].excluded = board.NoMove

	if !pvNode && !inCheck && excluded == board.NoMove {
		// Reverse futility pruning.
		imp := 0
		if improving {
			imp = 1
		}
		if depth <= 8 && evalScore-Score(80*(depth-imp)) >= beta && evalScore < mateBound {
			return evalScore
		}
		// Razoring.
		if !w.knobs.noRazor && depth <= 3 && evalScore+Score(250*depth) < alpha {
			q := w.qsearch(alpha-1, alpha, ply, !w.knobs.noQChecks)
			if w.stopped {
				return 0
			}
			if q < alpha {
				return q
			}
		}
		// Null move pruning, verified at high depth (zugzwang safety).
		if depth >= 3 && ply >= w.nmpMinPly && evalScore >= beta && staticEval >= beta-Score(20*depth) &&
			ply > 0 && w.stack[ply-1].move != board.NullMove &&
			pos.HasNonPawnMaterial(pos.SideToMove()) && beta > -mateBound {
			rd := 3 + depth/3 + min(int(evalScore-beta)/200, 3)
			f.move = board.NullMove
			f.piece = board.NoPiece
			child := &w.stack[ply+1]
			pos.MakeNullMove(&child.pos)
			child.sinceNull = 0
			w.keys = append(w.keys, child.pos.Key())
			score := -w.search(-beta, -beta+1, depth-rd, ply+1, !cutNode)
			w.keys = w.keys[:len(w.keys)-1]
			if w.stopped {
				return 0
			}
			if score >= beta {
				if score >= mateBound {
					score = beta
				}
				if w.nmpMinPly > 0 || depth < 10 {
					return score
				}
				// Verification search with null moves disabled for a while.
				w.nmpMinPly = ply + 3*(depth-rd)/4
				v := w.search(beta-1, beta, depth-rd, ply, false)
				w.nmpMinPly = 0
				if w.stopped {
					return 0
				}
				if v >= beta {
					return score
				}
			}
		}
	}

	// Internal iterative reduction: no hash move, shallower search first.
	if depth >= 4 && ttMove == board.NoMove && (pvNode || cutNode) {
		depth--
	}

	// Singular extension: if every move but the hash move fails low
	// against a margin below the hash score, the hash move is extended; if
	// even without it the node fails high, cut (multi-cut).
	singularExt := 0
	if !w.knobs.noSingular && ply > 0 && depth >= 8 && ttMove != board.NoMove && excluded == board.NoMove &&
		ttHitOK && tte.bound != BoundUpper && tte.depth >= depth-3 && ttScore != NoScore &&
		!ttScore.IsMate() && ply < 2*w.rootDepth {
		singularBeta := ttScore - Score(2*depth)
		f.excluded = ttMove
		v := w.search(singularBeta-1, singularBeta, (depth-1)/2, ply, cutNode)
		f.excluded = board.NoMove
		if w.stopped {
			return 0
		}
		if v < singularBeta {
			singularExt = 1
		} else if singularBeta >= beta {
			return singularBeta
		}
		w.stack[ply+1].killers = [2]board.Move{}
	}

	var prevMove board.Move
	var prevPiece board.Piece
	if ply > 0 {
		prevMove, prevPiece = w.stack[ply-1].move, w.stack[ply-1].piece
	}
	var counter board.Move
	if prevMove != board.NoMove && prevMove != board.NullMove {
		counter = w.hist.counter[prevPiece][prevMove.To()]
	}
	var cont1, cont2 *contTable
	if ply >= 1 && prevMove != board.NoMove && prevMove != board.NullMove {
		cont1 = &w.hist.cont[prevPiece][prevMove.To()]
	}
	if ply >= 2 {
		if pm := w.stack[ply-2].move; pm != board.NoMove && pm != board.NullMove {
			cont2 = &w.hist.cont[w.stack[ply-2].piece][pm.To()]
		}
	}

	p := &f.pick
	p.init(pos, ttMove, f.killers, counter, false, &w.hist, cont1, cont2)
	us := pos.SideToMove()
	best := -Infinity
	bestMove := board.NoMove
	origAlpha := alpha
	moveCount, nQuiets, nCaps := 0, 0, 0
	lmpLimit := 3 + depth*depth
	if !improving {
		lmpLimit = lmpLimit * 2 / 3
	}
	child := &w.stack[ply+1]
	canPrune := ply > 0 && pos.HasNonPawnMaterial(us)
	for {
		// When late-move or futility pruning will cut every quiet move
		// still to come that does not give check, count them without
		// picking them one by one (see dropQuiets). Both conditions only
		// grow stricter as moveCount grows and alpha stays.
		if canPrune && best > -mateBound && p.atQuiets() {
			mc := moveCount + 1
			lmrDepth := depth - 1 - int(lmrTable[min(depth, 63)][min(mc, 63)])
			if (depth <= 8 && mc >= lmpLimit) ||
				(!inCheck && lmrDepth <= 8 && staticEval+Score(90+100*lmrDepth) <= alpha) {
				moveCount += p.dropQuiets(excluded)
			}
		}
		m := p.next(w)
		if m == board.NoMove {
			break
		}
		if m == excluded {
			continue
		}
		moveCount++
		isCap := pos.IsCapture(m)
		isQuiet := !isCap && !m.IsPromotion()
		givesCheck := p.givesCheck(m)
		piece := pos.PieceAt(m.From())
		hist := 0
		if isQuiet {
			hist = int(w.hist.butterfly[us][m.From()][m.To()])
			if cont1 != nil {
				hist += int(cont1[piece][m.To()])
			}
			if cont2 != nil {
				hist += int(cont2[piece][m.To()])
			}
		}

		// Shallow-depth pruning, never when all moves so far lose to mate.
		if ply > 0 && best > -mateBound && pos.HasNonPawnMaterial(us) {
			lmrDepth := depth - 1 - int(lmrTable[min(depth, 63)][min(moveCount, 63)])
			if isQuiet && !givesCheck {
				if depth <= 8 && moveCount >= lmpLimit {
					continue
				}
				if !inCheck && lmrDepth <= 8 && staticEval+Score(90+100*lmrDepth) <= alpha {
					continue
				}
				if lmrDepth <= 3 && hist < -3000*depth {
					continue
				}
				if lmrDepth <= 7 && !see(pos, m, -25*lmrDepth*lmrDepth) {
					continue
				}
			} else if depth <= 6 && (!givesCheck || !w.knobs.noSEEPruneChecks) && !see(pos, m, -100*depth) {
				continue
			}
		}

		w.tt.prefetch(pos.KeyAfter(m))
		f.move, f.piece = m, piece
		pos.MakeMove(m, &child.pos)
		child.sinceNull = f.sinceNull + 1
		w.keys = append(w.keys, child.pos.Key())
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

		var score Score
		if depth >= 3 && moveCount > 1+b2i(pvNode) && (isQuiet || !see(pos, m, 0)) {
			rd := int(lmrTable[min(depth, 63)][min(moveCount, 63)])
			if !pvNode {
				rd++
			}
			if cutNode {
				rd++
			}
			if improving {
				rd--
			}
			if m == f.killers[0] || m == f.killers[1] || m == counter {
				rd--
			}
			if inCheck || givesCheck {
				rd--
			}
			rd -= hist / 8000
			rd = max(0, min(rd, newDepth-1))
			score = -w.search(-alpha-1, -alpha, newDepth-rd, ply+1, true)
			if score > alpha && rd > 0 && !w.stopped {
				score = -w.search(-alpha-1, -alpha, newDepth, ply+1, !cutNode)
			}
		} else if !pvNode || moveCount > 1 {
			score = -w.search(-alpha-1, -alpha, newDepth, ply+1, !cutNode)
		}
		if pvNode && (moveCount == 1 || (score > alpha && score < beta)) && !w.stopped {
			score = -w.search(-beta, -alpha, newDepth, ply+1, false)
		}
		w.keys = w.keys[:len(w.keys)-1]
		if w.stopped {
			return 0
		}
		if score > best {
			best = score
			if score > alpha {
				bestMove = m
				if pvNode {
					w.updatePV(ply, m)
				}
				if score >= beta {
					w.updateHistories(ply, m, isQuiet, depth, nQuiets, nCaps, prevMove, prevPiece, cont1, cont2)
					break
				}
				alpha = score
			}
		}
	}
	if moveCount == 0 {
		if excluded != board.NoMove {
			return alpha
		}
		if inCheck {
			return matedIn(ply)
		}
		return 0
	}
	if excluded == board.NoMove {
		bound := BoundUpper
		if best >= beta {
			bound = BoundLower
		} else if pvNode && best > origAlpha {
			bound = BoundExact
		}
		w.tt.store(key, bestMove, scoreToTT(best, ply), staticEval, depth, bound, pvNode)
	}
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

// updateHistories rewards the cutoff move and penalises the moves tried
// before it.
func (w *worker) updateHistories(ply int, m board.Move, isQuiet bool, depth, nQuiets, nCaps int,
	prevMove board.Move, prevPiece board.Piece, cont1, cont2 *contTable) {
	f := &w.stack[ply]
	pos := &f.pos
	us := pos.SideToMove()
	bonus := histBonus(depth)
	if isQuiet {
		if f.killers[0] != m {
			f.killers[1] = f.killers[0]
			f.killers[0] = m
		}
		if prevMove != board.NoMove && prevMove != board.NullMove {
			w.hist.counter[prevPiece][prevMove.To()] = m
		}
		for i := 0; i < nQuiets; i++ {
			q := f.quietsTried[i]
			b := -bonus
			if q == m {
				b = bonus
			}
			gravity(&w.hist.butterfly[us][q.From()][q.To()], b)
			pc := pos.PieceAt(q.From())
			if cont1 != nil {
				gravity(&cont1[pc][q.To()], b)
			}
			if cont2 != nil {
				gravity(&cont2[pc][q.To()], b)
			}
		}
	}
	for i := 0; i < nCaps; i++ {
		c := f.capsTried[i]
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

func capturedType(pos *board.Position, m board.Move) board.PieceType {
	if m.IsEnPassant() {
		return board.Pawn
	}
	if m.IsCastling() {
		return board.NoPieceType
	}
	return pos.PieceAt(m.To()).Type()
}

// qsearch searches captures (and all evasions when in check) until quiet;
// with checks, also the quiet moves that give check and do not lose
// material (at the first quiescence ply only).
func (w *worker) qsearch(alpha, beta Score, ply int, checks bool) Score {
	if w.poll() {
		return 0
	}
	if ply > w.selDepth {
		w.selDepth = ply
	}
	pvNode := beta-alpha > 1
	f := &w.stack[ply]
	pos := &f.pos
	w.pvLen[ply] = 0
	if w.isRepetition(ply) || pos.InsufficientMaterial() || (pos.HalfmoveClock() >= 100 && !pos.InCheck()) {
		return 0
	}
	inCheck := pos.InCheck()
	if ply >= MaxPly {
		if inCheck {
			return 0
		}
		return w.evaluate(pos)
	}
	key := pos.Key()
	tte, ok := w.tt.probe(key)
	ttMove := board.NoMove
	if ok {
		s := scoreFromTT(tte.score, ply)
		if !pvNode && s != NoScore && ((tte.bound == BoundExact) ||
			(tte.bound == BoundLower && s >= beta) || (tte.bound == BoundUpper && s <= alpha)) {
			return s
		}
		ttMove = tte.move
		if ttMove != board.NoMove && !pos.IsLegal(ttMove) {
			ttMove = board.NoMove
		}
	}
	best := -Infinity
	standPat := NoScore
	if !inCheck {
		if ok && tte.eval != NoScore && tte.eval > -mateBound && tte.eval < mateBound {
			standPat = tte.eval
		} else {
			standPat = w.evaluate(pos)
		}
		if standPat >= beta {
			return standPat
		}
		best = standPat
		alpha = max(alpha, standPat)
	}
	f.staticEval = standPat
	p := &f.pick
	p.init(pos, ttMove, [2]board.Move{}, board.NoMove, !inCheck, &w.hist, nil, nil)
	p.qsChecks = checks && !inCheck
	child := &w.stack[ply+1]
	bestMove := board.NoMove
	moveCount := 0
	for {
		m := p.next(w)
		if m == board.NoMove {
			break
		}
		moveCount++
		if !inCheck {
			// Delta pruning of captures; SEE pruning of losing captures
			// and of quiet checks that lose the checking piece.
			if !m.IsPromotion() && pos.IsCapture(m) && standPat+Score(seeValue[capturedType(pos, m)])+200 <= alpha {
				continue
			}
			if !see(pos, m, 0) {
				continue
			}
		}
		w.tt.prefetch(pos.KeyAfter(m))
		f.move, f.piece = m, pos.PieceAt(m.From())
		pos.MakeMove(m, &child.pos)
		child.sinceNull = f.sinceNull + 1
		w.keys = append(w.keys, child.pos.Key())
		score := -w.qsearch(-beta, -alpha, ply+1, false)
		w.keys = w.keys[:len(w.keys)-1]
		if w.stopped {
			return 0
		}
		if score > best {
			best = score
			if score > alpha {
				bestMove = m
				if pvNode {
					w.updatePV(ply, m)
				}
				if score >= beta {
					break
				}
				alpha = score
			}
		}
	}
	if inCheck && moveCount == 0 {
		return matedIn(ply)
	}
	bound := BoundUpper
	if best >= beta {
		bound = BoundLower
	}
	w.tt.store(key, bestMove, scoreToTT(best, ply), standPat, 0, bound, false)
	return best
}
