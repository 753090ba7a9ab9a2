package engine

// This file holds a search thread (worker): its state, its set-up for a
// search, and the few operations every node uses: counting and polling,
// descending into a child (makeMove, the one place where a position is
// played on the search stack), and draw detection.

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
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
	nodes     uint64       // nodes spent below this move in the current iteration
	pv        []board.Move // preallocated, reused
}

// worker is one search thread with everything it owns.
type worker struct {
	id  int
	tt  *transTable
	run *run
	ev  *eval.Evaluator

	// With a network, acc[ply] is the accumulator of stack[ply].pos when
	// accOK[ply]; makeMove only marks the child stale and evaluate brings
	// it up to date from the nearest ready ancestor (lazy updates: most
	// children cut off before they are evaluated).
	net        *nnue.Network
	acc        []nnue.Accumulator
	accOK      [MaxPly + 4]bool
	verifyNNUE bool // tests: check every evaluation against a refresh
	corrHist   bool // Options.CorrectionHistory
	ttPV       bool // Options.TTPV

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
}

// newWorker returns search thread id on tt, evaluating with the weights p
// (nil: the weights the engine plays with).
func newWorker(id int, tt *transTable, p *eval.Params, net *nnue.Network) *worker {
	var ev *eval.Evaluator
	if p != nil {
		ev = eval.NewEvaluatorWith(p)
	} else {
		ev = eval.NewEvaluator()
	}
	w := &worker{id: id, tt: tt, ev: ev, keys: make([]uint64, 0, 1024)}
	if net != nil {
		w.net = net
		w.acc = make([]nnue.Accumulator, MaxPly+4)
		for i := range w.acc {
			w.acc[i] = net.NewAccumulator()
		}
	}
	return w
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
	if w.net != nil {
		w.net.Refresh(&w.acc[0], root)
		w.accOK[0] = true
	}
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

// makeMove plays m, a move of piece pc, from the node at ply into the frame
// at ply+1 and pushes the child's key for repetition detection. It is the
// one place where the search descends; unmakeMove(ply) undoes it. State that
// the child derives incrementally from its parent belongs here.
func (w *worker) makeMove(ply int, m board.Move, pc board.Piece) {
	f := &w.stack[ply]
	child := &w.stack[ply+1]
	w.tt.prefetch(f.pos.KeyAfter(m))
	f.move, f.piece = m, pc
	f.pos.MakeMove(m, &child.pos)
	w.accOK[ply+1] = false
	child.sinceNull = f.sinceNull + 1
	w.keys = append(w.keys, child.pos.Key())
}

// makeNullMove passes the move at ply (null-move pruning); unmakeMove(ply)
// undoes it. The child starts a new repetition window: positions before a
// null move cannot repeat after it.
func (w *worker) makeNullMove(ply int) {
	f := &w.stack[ply]
	child := &w.stack[ply+1]
	f.move, f.piece = board.NullMove, board.NoPiece
	f.pos.MakeNullMove(&child.pos)
	w.accOK[ply+1] = false
	child.sinceNull = 0
	w.keys = append(w.keys, child.pos.Key())
}

// unmakeMove returns from the child of the node at ply to that node. With
// copy-make the parent's position is intact; only the key stack shrinks.
func (w *worker) unmakeMove(ply int) {
	w.keys = w.keys[:len(w.keys)-1]
}

// isDraw reports whether the node at ply is drawn by rule: a repetition, too
// little material to mate, or fifty moves without a capture or pawn move
// (unless the side to move is mated, which the move loop finds).
func (w *worker) isDraw(ply int) bool {
	pos := &w.stack[ply].pos
	return w.isRepetition(ply) || pos.InsufficientMaterial() || (pos.HalfmoveClock() >= 100 && !pos.InCheck())
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

// evaluate returns the static evaluation of the node at ply: the
// network's when the worker has one, else the hand-crafted evaluation.
func (w *worker) evaluate(ply int) Score {
	pos := &w.stack[ply].pos
	if w.net == nil {
		return Score(w.ev.Evaluate(pos))
	}
	w.refreshAcc(ply)
	v := w.net.Evaluate(&w.acc[ply], pos)
	if w.verifyNNUE {
		if fresh := w.net.EvaluatePosition(pos); fresh != v {
			panic(fmt.Sprintf("engine: incremental network evaluation %d, refreshed %d, at ply %d: %s", v, fresh, ply, pos.FEN()))
		}
	}
	return clampEval(v)
}

// refreshAcc brings acc[ply] up to date from the nearest ancestor whose
// accumulator is ready (the root's always is), replaying the moves of the
// search path.
func (w *worker) refreshAcc(ply int) {
	i := ply
	for !w.accOK[i] {
		i--
	}
	for ; i < ply; i++ {
		f := &w.stack[i]
		if f.move == board.NullMove {
			w.acc[i+1].CopyFrom(&w.acc[i])
		} else {
			w.net.Update(&w.acc[i+1], &w.acc[i], &f.pos, f.move)
		}
		w.accOK[i+1] = true
	}
}

// clampEval keeps a network's evaluation clear of the mate scores.
func clampEval(v int) Score {
	return Score(max(-int(mateBound)+1, min(int(mateBound)-1, v)))
}
