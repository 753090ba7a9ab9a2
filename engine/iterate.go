package engine

// This file holds the root of the search: iterative deepening, aspiration
// windows, the root move loop and the progress reports.

import (
	"slices"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

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
			rm.nodes = 0
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
			scale := min(stabilityScale(stable, drop)*effortScale(w.bestMoveShare()), maxScale)
			soft := time.Duration(float64(b.soft) * scale)
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

// bestMoveShare returns the fraction of the last iteration's root nodes that
// went to the best move (1 when nothing was counted).
func (w *worker) bestMoveShare() float64 {
	var total uint64
	for i := range w.rootMoves {
		total += w.rootMoves[i].nodes
	}
	if total == 0 {
		return 1
	}
	return float64(w.rootMoves[0].nodes) / float64(total)
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
//
// The root is not a case of search: it walks the root moves in the order
// the previous iteration left (not a move picker), records a score, bound
// and PV for each move (MultiPV, reports, the partial results of an
// interrupted iteration), prunes and reduces nothing, and re-searches with
// the full window every null-window score above alpha, fail highs included.
// Written into search, each of those would be a test at every node.
func (w *worker) rootSearch(alpha, beta Score, depth int, report func(Info)) Score {
	pos := &w.stack[0].pos
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
		before := w.nodes
		w.makeMove(0, m, pos.PieceAt(m.From()))
		newDepth := depth - 1
		if w.stack[1].pos.InCheck() {
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
		w.unmakeMove(0)
		rm.nodes += w.nodes - before
		if w.stopped {
			return best
		}
		best = max(best, score)
		if i == w.pvIdx || score > alpha {
			rm.score = score
			rm.selDepth = w.selDepth
			rm.bound = boundOf(score, origAlpha, beta, true)
			rm.pv = append(rm.pv[:0], m)
			rm.pv = append(rm.pv, w.pv[1][:w.pvLen[1]]...)
		} else {
			rm.score = -Infinity // sorts after the moves searched with a score
		}
		if score > alpha {
			bestMove = m
			alpha = score
			if score >= beta {
				break
			}
		}
	}
	if bestMove != board.NoMove {
		w.tt.store(pos.Key(), bestMove, scoreToTT(best, 0), NoScore, depth, boundOf(best, origAlpha, beta, true), true)
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
