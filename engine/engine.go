// Package engine is Ponderosa's chess engine: an Engine facade over a
// Lazy SMP alpha-beta search with a shared lockless transposition table, a
// time manager and a hand-crafted tapered evaluation (package engine/eval).
//
// Search: iterative deepening with aspiration windows, principal variation
// search, quiescence with SEE pruning, null-move pruning with verification at
// high depth, late-move reductions, reverse futility, futility, late-move and
// SEE pruning, check extensions, internal iterative reduction, mate-distance
// pruning, repetition/fifty-move/insufficient-material draws inside the tree.
// Move ordering: TT move, good captures (MVV-LVA + capture history), killers,
// counter move, quiets by butterfly and continuation history, bad captures.
//
// An Engine never prints or logs and holds all of its mutable state (TT,
// histories, threads) itself: two Engines in one process share nothing.
package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

// Engine is a chess engine with its own transposition table, history tables
// and search threads. Its methods are safe for concurrent use: Stop and
// PonderHit may be called from any goroutine while Search runs; Search,
// SetOptions, NewGame, ClearHash and Bench are serialised.
type Engine struct {
	searchMu sync.Mutex // held by whatever uses the tables (Search, Bench, NewGame, ...)

	mu   sync.Mutex // guards opts and cur
	opts Options
	cur  *run // the running search, nil when idle

	tt      *transTable
	workers []*worker
	knobs   knobs
}

// knobs switch search features off for A/B experiments (set only by
// tests through export_test.go; the zero value is the engine as shipped).
type knobs struct {
	noSingular       bool
	noRazor          bool // no razoring at depth <= 3
	noSEEPruneChecks bool // never SEE-prune checking moves
}

// New returns an Engine configured by opts (zero fields take defaults).
func New(opts Options) *Engine {
	e := &Engine{opts: opts.normalized()}
	e.tt = newTransTable(e.opts.HashMB)
	e.resizeWorkers(e.opts.Threads, e.opts.Eval)
	return e
}

func (e *Engine) resizeWorkers(n int, p *eval.Params) {
	for len(e.workers) > n {
		e.workers = e.workers[:len(e.workers)-1]
	}
	for len(e.workers) < n {
		e.workers = append(e.workers, newWorker(len(e.workers), e.tt, p))
	}
}

// Options returns the current options (with defaults filled in).
func (e *Engine) Options() Options {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opts
}

// SetOptions changes the options, resizing the hash table and the thread
// pool as needed. Resizing the hash clears it. If a search is running,
// SetOptions waits for it to finish.
func (e *Engine) SetOptions(opts Options) {
	opts = opts.normalized()
	e.searchMu.Lock()
	defer e.searchMu.Unlock()
	e.mu.Lock()
	old := e.opts
	e.opts = opts
	e.mu.Unlock()
	if opts.HashMB != old.HashMB {
		e.tt.resize(opts.HashMB)
	}
	if opts.Eval != old.Eval {
		e.workers = nil
	}
	if opts.Threads != len(e.workers) {
		e.resizeWorkers(opts.Threads, opts.Eval)
	}
}

// NewGame forgets everything learnt in the previous game: the hash table and
// every history table. It waits for a running search to finish.
func (e *Engine) NewGame() {
	e.searchMu.Lock()
	defer e.searchMu.Unlock()
	e.tt.clear()
	for _, w := range e.workers {
		w.clearHistory()
	}
}

// ClearHash empties the transposition table (waits for a running search).
func (e *Engine) ClearHash() {
	e.searchMu.Lock()
	defer e.searchMu.Unlock()
	e.tt.clear()
}

// Stop asks the running search (if any) to return as soon as possible. A
// stop with no search running is ignored.
func (e *Engine) Stop() {
	e.mu.Lock()
	r := e.cur
	e.mu.Unlock()
	if r != nil {
		r.stop()
	}
}

// PonderHit turns a running ponder search into a normal timed search whose
// clock starts now. It is ignored when no ponder search is running.
func (e *Engine) PonderHit() {
	e.mu.Lock()
	r := e.cur
	e.mu.Unlock()
	if r != nil {
		r.ponderHit()
	}
}

// Evaluate returns the static evaluation of pos from the side to move's
// point of view, in centipawns.
func (e *Engine) Evaluate(pos *board.Position) Score {
	if p := e.Options().Eval; p != nil {
		return Score(eval.NewEvaluatorWith(p).Evaluate(pos))
	}
	return Score(eval.Evaluate(pos))
}

// EvalTrace returns a human-readable breakdown of the static evaluation.
func (e *Engine) EvalTrace(pos *board.Position) string {
	return eval.Explain(pos)
}

// run is the shared state of one Search call.
type run struct {
	start  time.Time
	limits Limits
	budget timeBudget
	ponder bool // started as a ponder search

	abort    atomic.Bool   // every thread polls this; set on stop, limits, or end
	stopCh   chan struct{} // closed by an external Stop or ctx cancel
	stopOnce sync.Once
	hitCh    chan struct{} // closed by PonderHit
	hitOnce  sync.Once
	hitAt    atomic.Int64 // time since start of the ponder hit, +1; 0 = none

	nodeLimit uint64
	workers   []*worker
}

func newRun(l Limits, budget timeBudget) *run {
	return &run{
		start:  time.Now(),
		limits: l,
		budget: budget,
		ponder: l.Ponder,
		stopCh: make(chan struct{}),
		hitCh:  make(chan struct{}),
	}
}

func (r *run) stop() {
	r.stopOnce.Do(func() {
		r.abort.Store(true)
		close(r.stopCh)
	})
}

func (r *run) stopped() bool {
	select {
	case <-r.stopCh:
		return true
	default:
		return false
	}
}

func (r *run) ponderHit() {
	if !r.ponder {
		return
	}
	r.hitOnce.Do(func() {
		r.hitAt.Store(int64(time.Since(r.start)) + 1)
		close(r.hitCh)
	})
}

// stillPondering reports whether the run is a ponder search not yet hit.
func (r *run) stillPondering() bool { return r.ponder && r.hitAt.Load() == 0 }

// clock returns the time since the clock started (search start, or the
// ponder hit) and the budget that applies from then. ok is false while the
// clock is not running (pondering) or the search is untimed.
func (r *run) clock(now time.Time) (elapsed time.Duration, b timeBudget, ok bool) {
	if !r.budget.timed() {
		return 0, r.budget, false
	}
	since := now.Sub(r.start)
	if !r.ponder {
		return since, r.budget, true
	}
	hit := r.hitAt.Load()
	if hit == 0 {
		return 0, r.budget, false
	}
	pondered := time.Duration(hit - 1)
	return since - pondered, r.budget.afterPonderHit(pondered), true
}

func (r *run) totalNodes() uint64 {
	var n uint64
	for _, w := range r.workers {
		n += w.sharedNodes.Load()
	}
	return n
}

// Search searches the position reached in g under limits l and returns the
// best move found. report, if not nil, is called from the searching
// goroutine with progress (it must return quickly). In Ponder or Infinite
// mode Search does not return before PonderHit (ponder only), Stop or ctx
// cancellation, even when the search itself is finished; it then waits on a
// channel without using the CPU. Result.Best is a legal move whenever one
// exists; after Stop or cancellation it returns within a few milliseconds.
func (e *Engine) Search(ctx context.Context, g *board.Game, l Limits, report func(Info)) Result {
	e.searchMu.Lock()
	defer e.searchMu.Unlock()
	opts := e.Options()

	root := g.Position()
	keys := g.Keys()
	rootMoves := legalRootMoves(&root, l.SearchMoves)
	if len(rootMoves) == 0 && len(l.SearchMoves) > 0 {
		// No legal move among searchmoves: search every move rather than
		// return no move in a position that has one.
		rootMoves = legalRootMoves(&root, nil)
	}

	ply := len(keys) - 1
	budget := computeBudget(l, root.SideToMove(), opts.MoveOverhead, ply)
	if l.Infinite {
		budget = timeBudget{}
	}
	r := newRun(l, budget)
	r.nodeLimit = l.Nodes
	multiPV := opts.MultiPV
	var sp strengthPlan
	if opts.LimitStrength {
		sp = planStrength(opts.Elo)
		if r.nodeLimit == 0 || sp.nodes < r.nodeLimit {
			r.nodeLimit = sp.nodes
		}
		if multiPV < sp.multiPV {
			multiPV = sp.multiPV
		}
	}
	if multiPV > len(rootMoves) {
		multiPV = len(rootMoves)
	}
	workers := e.workers
	r.workers = workers

	e.mu.Lock()
	e.cur = r
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.cur = nil
		e.mu.Unlock()
	}()
	stopWatch := context.AfterFunc(ctx, r.stop)
	defer stopWatch()

	if len(rootMoves) == 0 {
		var s Score
		if root.InCheck() {
			s = matedIn(0)
		}
		r.waitForRelease(l)
		return Result{Score: s, Time: time.Since(r.start)}
	}

	orderRootMoves(&root, rootMoves, e.tt)
	e.tt.newSearch()
	for _, w := range workers {
		w.prepare(r, &root, keys, rootMoves, multiPV)
		w.knobs = e.knobs
	}
	var wg sync.WaitGroup
	var helperPanic atomic.Value
	for _, w := range workers[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					helperPanic.Store(fmt.Sprint(p))
					r.abort.Store(true)
				}
			}()
			w.iterate(nil)
		}()
	}
	main := workers[0]
	main.iterate(report)
	r.abort.Store(true)
	wg.Wait()
	if p := helperPanic.Load(); p != nil {
		panic(fmt.Sprintf("engine: search thread panicked: %v", p))
	}
	r.waitForRelease(l)

	res := main.result()
	if opts.LimitStrength {
		res.Best, res.Ponder = sp.choose(main.rootMoves[:multiPV], root.Key())
	}
	res.Nodes = r.totalNodes()
	res.Time = time.Since(r.start)
	return res
}

// waitForRelease blocks, without spinning, while the search must not return
// yet: an infinite search until Stop, a ponder search until PonderHit or Stop.
func (r *run) waitForRelease(l Limits) {
	switch {
	case l.Infinite:
		<-r.stopCh
	case l.Ponder:
		select {
		case <-r.stopCh:
		case <-r.hitCh:
		}
	}
}

// legalRootMoves returns the legal moves of pos, restricted to searchMoves
// when that is not empty.
func legalRootMoves(pos *board.Position, searchMoves []board.Move) []board.Move {
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	moves := make([]board.Move, 0, ml.N)
	for _, m := range ml.Slice() {
		if len(searchMoves) > 0 {
			found := false
			for _, s := range searchMoves {
				if s == m {
					found = true
					break
				}
			}
			if !found {
				continue
			}
		}
		moves = append(moves, m)
	}
	return moves
}

// orderRootMoves puts the hash move first, then captures and promotions by
// victim value (good exchanges first), then quiet moves.
func orderRootMoves(pos *board.Position, moves []board.Move, tt *transTable) {
	var ttMove board.Move
	if h, ok := tt.probe(pos.Key()); ok {
		ttMove = h.move
	}
	key := func(m board.Move) int {
		switch {
		case m == ttMove:
			return 1 << 20
		case pos.IsCapture(m) || m.IsPromotion():
			v := seeValue[capturedType(pos, m)]*8 + seeValue[m.Promotion()]
			if see(pos, m, 0) {
				v += 1 << 16
			}
			return v
		}
		return 0
	}
	slices.SortStableFunc(moves, func(a, b board.Move) int { return key(b) - key(a) })
}
