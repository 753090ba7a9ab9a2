// Package engine is Ponderosa's chess engine: an Engine facade over a
// Lazy SMP alpha-beta search with a shared lockless transposition table, a
// time manager and a hand-crafted tapered evaluation (package engine/eval),
// or an NNUE (package engine/nnue) when Options.Net is set.
//
// Search: iterative deepening with aspiration windows, principal variation
// search, quiescence with SEE pruning (and quiet checks at its first ply),
// null-move pruning with verification at high depth, late-move reductions,
// reverse futility, futility, late-move and SEE pruning, check extensions,
// internal iterative reduction, mate-distance pruning,
// repetition/fifty-move/insufficient-material draws inside the tree.
// Move ordering: TT move, good captures (MVV-LVA + capture history), killers,
// counter move, quiets by butterfly and continuation history, bad captures.
//
// An Engine never prints or logs and holds all of its mutable state (TT,
// histories, threads) itself: two Engines in one process share nothing.
package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
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

	verifyNNUE bool // tests: check every network evaluation of a search against a refresh (slow)
}

// New returns an Engine configured by opts (zero fields take defaults). A
// hash table that does not fit in the memory left (see CheckMemory) is not
// allocated: New falls back to the default size, or to the smallest, and
// Options().HashMB tells which. Callers that take a size from a user check
// it with CheckMemory first, for a clear message.
func New(opts Options) *Engine {
	e := &Engine{opts: opts.normalized()}
	e.tt = &transTable{}
	for _, mb := range []int{e.opts.HashMB, DefaultHashMB, MinHashMB} {
		if mb <= e.opts.HashMB && e.tt.resize(mb) == nil {
			e.opts.HashMB = mb
			break
		}
	}
	if e.tt.buckets == nil {
		e.tt.allocate(MinHashMB) // unmeasured or nearly no memory: 1 MB regardless
		e.opts.HashMB = MinHashMB
	}
	e.resizeWorkers(e.opts.Threads, e.opts.Eval, e.opts.playingNet())
	return e
}

func (e *Engine) resizeWorkers(n int, p *eval.Params, net *nnue.Network) {
	if len(e.workers) > n {
		// A fresh slice: the dropped workers (and their history tables)
		// must not stay reachable through the old backing array.
		e.workers = slices.Clone(e.workers[:n])
	}
	for len(e.workers) < n {
		e.workers = append(e.workers, newWorker(len(e.workers), e.tt, p, net))
	}
}

// Options returns the current options (with defaults filled in).
func (e *Engine) Options() Options {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opts
}

// SetOptions changes the options, resizing the hash table and the thread
// pool as needed. Resizing the hash, or changing the evaluation (Eval,
// Net), clears it. If a search is running,
// SetOptions waits for it to finish. A hash table that does not fit in the
// memory left is not allocated: the old table stays (Options().HashMB says
// its size), every other option is applied, and the error (wrapping
// ErrNoMemory) says so.
func (e *Engine) SetOptions(opts Options) error {
	opts = opts.normalized()
	e.searchMu.Lock()
	defer e.searchMu.Unlock()
	e.mu.Lock()
	old := e.opts
	e.mu.Unlock()
	var err error
	if opts.HashMB != old.HashMB {
		if err = e.tt.resize(opts.HashMB); err != nil {
			err = fmt.Errorf("hash %d MB: %w; keeping %d MB", opts.HashMB, err, old.HashMB)
			opts.HashMB = old.HashMB
		}
	}
	e.mu.Lock()
	e.opts = opts
	e.mu.Unlock()
	if opts.Eval != old.Eval || opts.playingNet() != old.playingNet() {
		e.workers = nil
		// Stored static evaluations belong to the old evaluation.
		e.tt.clear()
	}
	if opts.Threads != len(e.workers) {
		e.resizeWorkers(opts.Threads, opts.Eval, opts.playingNet())
	}
	return err
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
	if r := e.running(); r != nil {
		r.stop()
	}
}

// PonderHit turns a running ponder search into a normal timed search whose
// clock starts now. It is ignored when no ponder search is running.
func (e *Engine) PonderHit() {
	if r := e.running(); r != nil {
		r.ponderHit()
	}
}

// running returns the running search, nil when idle.
func (e *Engine) running() *run {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cur
}

// Evaluate returns the static evaluation of pos from the side to move's
// point of view, in centipawns.
func (e *Engine) Evaluate(pos *board.Position) Score {
	opts := e.Options()
	if net := opts.playingNet(); net != nil {
		return clampEval(net.EvaluatePosition(pos))
	}
	if p := opts.Eval; p != nil {
		return Score(eval.NewEvaluatorWith(p).Evaluate(pos))
	}
	return Score(eval.Evaluate(pos))
}

// EvalTrace returns a human-readable breakdown of the static evaluation.
func (e *Engine) EvalTrace(pos *board.Position) string {
	s := eval.Explain(pos)
	if net := e.Options().playingNet(); net != nil {
		v := int(clampEval(net.EvaluatePosition(pos)))
		white := v
		if pos.SideToMove() == board.Black {
			white = -v
		}
		s += fmt.Sprintf("NNUE evaluation (%s, %s), the one the search uses: %+.2f (White), %+.2f (side to move)\n",
			net.ID(), net.Shape(), float64(white)/100, float64(v)/100)
	}
	return s
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

func (r *run) ponderHit() {
	if !r.ponder {
		return
	}
	r.hitOnce.Do(func() {
		r.hitAt.Store(int64(time.Since(r.start)) + 1)
		close(r.hitCh)
	})
}

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
//
// Engine.Stop and Engine.PonderHit reach the search only once it has
// started; a caller that runs Search on another goroutine and may call them
// at once should use Start, which returns after the search is registered.
func (e *Engine) Search(ctx context.Context, g *board.Game, l Limits, report func(Info)) Result {
	e.searchMu.Lock()
	return e.begin(ctx, g, l, report).run()
}

// Handle is a search started by Start. Its Stop and PonderHit always reach
// this search, whenever they are called: before it has produced anything,
// or after it has finished (then they do nothing).
type Handle struct {
	r    *run
	done chan struct{}
	res  Result
	pnc  *Panic // a panic of the search, re-raised by Wait
}

// Panic is a panic inside a search (a search thread or the report func),
// raised again by Wait with the stack of the goroutine where it happened:
// the stack at Wait's panic shows only the waiter.
type Panic struct {
	Value any
	Stack []byte // debug.Stack at the first recover
}

func (p *Panic) Error() string { return fmt.Sprintf("engine: search panicked: %v", p.Value) }

// recovered wraps a recovered value with the current stack, unless it is a
// Panic already (re-raised from a search thread).
func recovered(p any) *Panic {
	if sp, ok := p.(*Panic); ok {
		return sp
	}
	return &Panic{Value: p, Stack: debug.Stack()}
}

// Start begins a search like Search, on a new goroutine, and returns once
// the search is registered: Stop and PonderHit, on the handle or on the
// Engine, cannot be lost to the race with the search's start. If another
// search is running, Start waits for it to end first. Wait returns the
// result.
func (e *Engine) Start(ctx context.Context, g *board.Game, l Limits, report func(Info)) *Handle {
	e.searchMu.Lock()
	s := e.begin(ctx, g, l, report)
	h := &Handle{r: s.r, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		defer func() {
			if p := recover(); p != nil {
				h.pnc = recovered(p)
			}
		}()
		h.res = s.run()
	}()
	return h
}

// Stop asks the search to return as soon as possible.
func (h *Handle) Stop() { h.r.stop() }

// PonderHit turns a ponder search into a timed search whose clock starts
// now (ignored for other searches).
func (h *Handle) PonderHit() { h.r.ponderHit() }

// Done is closed when the search has returned.
func (h *Handle) Done() <-chan struct{} { return h.done }

// Wait waits for the search and returns its result. A panic inside the
// search is raised again here, on the caller's goroutine.
func (h *Handle) Wait() Result {
	<-h.done
	if h.pnc != nil {
		panic(h.pnc)
	}
	return h.res
}

// started is a search between begin and the end of run.
type started struct {
	e         *Engine
	r         *run
	l         Limits
	opts      Options
	root      board.Position
	keys      []uint64
	rootMoves []board.Move
	multiPV   int
	sp        strengthPlan
	report    func(Info)
	stopWatch func() bool
}

// begin prepares a search and registers it as the engine's current run.
// The caller holds searchMu; run releases it.
func (e *Engine) begin(ctx context.Context, g *board.Game, l Limits, report func(Info)) *started {
	opts := e.Options()
	s := &started{e: e, l: l, opts: opts, report: report}
	s.root = g.Position()
	s.keys = g.Keys()
	s.rootMoves = legalRootMoves(&s.root, l.SearchMoves)
	if len(s.rootMoves) == 0 && len(l.SearchMoves) > 0 {
		// No legal move among searchmoves: search every move rather than
		// return no move in a position that has one.
		s.rootMoves = legalRootMoves(&s.root, nil)
	}

	ply := len(s.keys) - 1
	budget := computeBudget(l, s.root.SideToMove(), opts.MoveOverhead, ply)
	if l.Infinite {
		budget = timeBudget{}
	}
	r := newRun(l, budget)
	r.nodeLimit = l.Nodes
	s.multiPV = opts.MultiPV
	if opts.LimitStrength {
		s.sp = planStrength(opts.Elo)
		if r.nodeLimit == 0 || s.sp.nodes < r.nodeLimit {
			r.nodeLimit = s.sp.nodes
		}
		if s.multiPV < s.sp.multiPV {
			s.multiPV = s.sp.multiPV
		}
	}
	if s.multiPV > len(s.rootMoves) {
		s.multiPV = len(s.rootMoves)
	}
	r.workers = e.workers
	s.r = r

	e.mu.Lock()
	e.cur = r
	e.mu.Unlock()
	s.stopWatch = context.AfterFunc(ctx, r.stop)
	return s
}

// run searches, unregisters the run and releases searchMu.
func (s *started) run() Result {
	e, r, l := s.e, s.r, s.l
	defer e.searchMu.Unlock()
	defer func() {
		e.mu.Lock()
		e.cur = nil
		e.mu.Unlock()
	}()
	defer s.stopWatch()

	root := s.root
	rootMoves := s.rootMoves
	if len(rootMoves) == 0 {
		var sc Score
		if root.InCheck() {
			sc = matedIn(0)
		}
		r.waitForRelease(l)
		return Result{Score: sc, Time: time.Since(r.start)}
	}

	workers := r.workers
	orderRootMoves(&root, rootMoves, e.tt)
	e.tt.newSearch()
	for _, w := range workers {
		w.prepare(r, &root, s.keys, rootMoves, s.multiPV)
		w.verifyNNUE = e.verifyNNUE
		w.corrHist = s.opts.CorrectionHistory
		w.ttPV = s.opts.TTPV
	}
	var wg sync.WaitGroup
	var helperPanic atomic.Value
	for _, w := range workers[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					helperPanic.Store(recovered(p))
					r.abort.Store(true)
				}
			}()
			w.iterate(nil)
		}()
	}
	main := workers[0]
	func() {
		// A panic of the main thread must not leave helpers running on the
		// tables after searchMu is released.
		defer func() {
			r.abort.Store(true)
			wg.Wait()
		}()
		main.iterate(s.report)
	}()
	if p := helperPanic.Load(); p != nil {
		panic(p) // a *Panic with the helper thread's stack
	}
	r.waitForRelease(l)

	res := main.result()
	if s.opts.LimitStrength {
		res.Best, res.Ponder = s.sp.choose(main.rootMoves[:s.multiPV], root.Key())
	}
	res.Nodes = r.totalNodes()
	res.Time = time.Since(r.start)
	r.workers = nil // a Handle kept by the caller must not keep them alive
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
