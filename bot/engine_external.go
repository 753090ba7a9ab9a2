package bot

// External engines: one UCI or xboard process per game (uci/client),
// restarted after a fault, with spare processes ready and the embedded
// engine standing in for any move a process cannot deliver.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/uci/client"
)

// Fault handling of external engines.
const (
	// extStopGrace is how long an external engine may take to answer stop
	// (the hard deadline or a dropped search) before it is killed.
	extStopGrace = 250 * time.Millisecond
	// fallbackQuick is the embedded engine's think time for a move whose
	// deadline has passed when the external engine failed.
	fallbackQuick = 30 * time.Millisecond
	// maxRestarts bounds the restarts of an external engine in one game;
	// then the embedded engine plays the rest of it.
	maxRestarts = 5
)

// externalEngine is one external engine process per game, restarted after
// a fault, with the embedded engine standing in for any move the process
// cannot deliver.
type externalEngine struct {
	svc      *Service
	pool     *enginePool // of the fallback engine
	spec     client.Spec
	log      *slog.Logger
	fallback *engine.Engine
	// fallbackFull: a full-size engine, counted against the memory budget.
	fallbackFull bool
	ctx          context.Context // ends with the game: restarts stop
	cancel       context.CancelFunc

	gameSet chan struct{} // closed by NewGame

	mu        sync.Mutex
	cur       *client.Engine // nil while starting or given up
	starting  bool           // a start or restart is in flight
	ready     chan struct{}  // closed when that start ends
	game      GameInfo
	gameKnown bool
	chess960  bool // moves are written king-takes-rook (UCI_Chess960 set)
	restarts  int
	wg        sync.WaitGroup // starts and closes in flight
}

// engineSpec is the client spec of the configured external engine.
func (s *Service) engineSpec() client.Spec {
	e := &s.cfg.Engine
	return client.Spec{Argv: e.Command, Dir: e.Dir, Protocol: client.Protocol(e.Protocol), Options: e.Options,
		Ponder: e.Ponder, StopGrace: extStopGrace, OwnOverhead: true}
}

func newExternalEngine(svc *Service, pool *enginePool, log *slog.Logger) *externalEngine {
	ctx, cancel := context.WithCancel(context.Background())
	fb, full := pool.get()
	x := &externalEngine{svc: svc, pool: pool, spec: svc.engineSpec(), log: log, fallback: fb, fallbackFull: full, ctx: ctx, cancel: cancel,
		gameSet: make(chan struct{})}
	// The process starts now, while the game stream opens; it is told the
	// game once NewGame has it. Until it is ready the embedded engine
	// plays.
	x.starting, x.ready = true, make(chan struct{})
	x.wg.Go(func() { x.start(0) })
	return x
}

// NewGame records the game; the process is told it as soon as it is up.
func (x *externalEngine) NewGame(_ context.Context, g GameInfo) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.gameKnown {
		return nil
	}
	x.game, x.gameKnown = g, true
	close(x.gameSet)
	return nil
}

// launch starts a process (the first takes the spare if there is one)
// and, once the game is known, tells it the game.
func (x *externalEngine) launch(first bool) (*client.Engine, error) {
	var e *client.Engine
	if first {
		e = x.svc.spares.take(x.ctx)
	}
	if e == nil {
		var err error
		if e, err = client.Start(x.ctx, x.spec); err != nil {
			return nil, err
		}
	}
	select {
	case <-x.gameSet:
	case <-x.ctx.Done():
		e.Close()
		return nil, x.ctx.Err()
	}
	x.mu.Lock()
	g := x.game
	x.mu.Unlock()
	ng := client.NewGame{Base: g.Base, Inc: g.Inc, OurRating: g.OurRating}
	opp := g.Opponent
	ng.Opponent = &opp
	if g.OurRating > 0 && opp.Rating > 0 {
		ng.RatingAdv, ng.HasRatingAdv = g.OurRating-opp.Rating, true
	}
	if g.StartFEN != "" {
		ng.FEN = g.Start.FEN()
	}
	// Castling is written king-takes-rook in Chess960 and in games from a
	// position (which may castle with rooks anywhere) when the engine can
	// read it; otherwise the standard way.
	ng.Chess960 = g.Start.Chess960 && e.HasOption("UCI_Chess960")
	if g.Variant == "chess960" && !ng.Chess960 {
		e.Close()
		return nil, fmt.Errorf("chess960: %w (no UCI_Chess960 option)", client.ErrUnsupported)
	}
	if err := e.NewGame(x.ctx, ng); err != nil {
		e.Close()
		return nil, err
	}
	x.mu.Lock()
	x.chess960 = ng.Chess960
	x.mu.Unlock()
	return e, nil
}

// start runs launch on its goroutine: the first start (n = 0) or restart
// n. A failure is a fault; it is retried until the restarts are used up,
// and a game the engine cannot play is left to the embedded engine.
func (x *externalEngine) start(n int) {
	e, err := x.launch(n == 0)
	x.mu.Lock()
	ready := x.ready
	if err == nil && x.ctx.Err() == nil {
		x.cur = e
	}
	x.starting = false
	x.mu.Unlock()
	close(ready)
	if err != nil {
		if x.ctx.Err() != nil {
			return
		}
		kind := "start"
		if n > 0 {
			kind = "restart"
		}
		x.fault(kind, err)
		if errors.Is(err, client.ErrUnsupported) {
			x.log.Warn("the external engine cannot play this game; the embedded engine plays it", "err", err)
			return
		}
		x.restart()
		return
	}
	if x.ctx.Err() != nil {
		e.Close()
		return
	}
	if n > 0 {
		x.log.Info("external engine restarted", "engine", e.ID(), "restarts", n)
	} else {
		x.log.Debug("external engine ready", "engine", e.ID())
	}
}

// restart starts a new process in the background, unless one is starting
// or the game has used up its restarts.
func (x *externalEngine) restart() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.starting || x.ctx.Err() != nil {
		return
	}
	if x.restarts >= maxRestarts {
		x.log.Warn("external engine given up for this game; the embedded engine plays on", "restarts", x.restarts)
		return
	}
	x.restarts++
	x.starting, x.ready = true, make(chan struct{})
	n := x.restarts
	x.wg.Go(func() { x.start(n) })
}

// fault logs and counts a fault of kind.
func (x *externalEngine) fault(kind string, err error) {
	x.log.Warn("external engine fault", "fault", kind, "err", err)
	x.svc.stats.count(func(s *stats) { s.engineFaults[kind]++ })
}

// dead retires a faulty process: it is killed (the client already did for
// its own faults) and a new one started.
func (x *externalEngine) dead(e *client.Engine) {
	x.mu.Lock()
	current := x.cur == e
	if current {
		x.cur = nil
	}
	x.mu.Unlock()
	if current {
		x.wg.Go(e.Close)
		x.restart()
	}
}

// faultKind names a client error for logs and metrics.
func faultKind(err error) string {
	switch {
	case errors.Is(err, client.ErrExited):
		return "exit"
	case errors.Is(err, client.ErrHang):
		return "hang"
	case errors.Is(err, client.ErrFlood):
		return "flood"
	case errors.Is(err, client.ErrBadMove):
		return "malformed"
	case errors.Is(err, client.ErrHandshake):
		return "handshake"
	case errors.Is(err, client.ErrUnsupported):
		return "unsupported"
	}
	return "other"
}

func (x *externalEngine) CanPonder() bool {
	x.mu.Lock()
	e := x.cur
	x.mu.Unlock()
	return e != nil && e.CanPonder() && x.svc.canPonder()
}

func (x *externalEngine) Close(broken bool) {
	x.cancel()
	x.mu.Lock()
	e := x.cur
	x.cur = nil
	x.mu.Unlock()
	if e != nil {
		e.Close()
	}
	x.wg.Wait()
	if broken {
		x.pool.discard(x.fallbackFull)
	} else {
		x.pool.put(x.fallback, x.fallbackFull)
	}
	x.svc.spares.refill() // this game's process is gone: start the next game's
}

// Start searches with the external process when there is one, else with
// the embedded engine.
func (x *externalEngine) Start(ctx context.Context, g *board.Game, lim engine.Limits, info func(engine.Info)) Search {
	s := &extSearch{x: x, ctx: ctx, g: g, lim: lim, info: info, stopC: make(chan struct{}), begun: time.Now()}
	x.mu.Lock()
	e, starting, ready := x.cur, x.starting, x.ready
	x.mu.Unlock()
	switch {
	case e != nil:
		s.begin(e, lim)
	case starting && !lim.Ponder:
		// The process is (re)starting: Wait gives it a moment.
		s.ready = ready
	default:
		s.startFallback(lim)
	}
	return s
}

// startWait is how long a search waits for a (re)starting process: a
// small share of the time it may use, at most a second.
func startWait(lim engine.Limits, us board.Color) time.Duration {
	if lim.MoveTime > 0 {
		return lim.MoveTime / 4
	}
	ours := lim.WTime
	if us == board.Black {
		ours = lim.BTime
	}
	return min(ours/40, time.Second)
}

// begin starts the search on the process e.
func (s *extSearch) begin(e *client.Engine, lim engine.Limits) {
	x := s.x
	x.mu.Lock()
	c960 := x.chess960
	x.mu.Unlock()
	var convert func(client.Info)
	if s.info != nil {
		pos := s.g.Position()
		convert = func(in client.Info) { s.info(engineInfo(pos, in, c960)) }
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.e = e
	s.ext = e.Go(s.ctx, wirePosition(s.g, c960), clientLimits(lim), convert)
	if s.hit {
		s.ext.PonderHit()
	}
	if s.stopped {
		s.ext.Stop()
	}
}

// extSearch is one search of an external engine, or of the embedded
// engine standing in for it.
type extSearch struct {
	x    *externalEngine
	ctx  context.Context
	g    *board.Game
	lim  engine.Limits
	info func(engine.Info)
	// ready, when not nil, is closed when the process that was starting at
	// Start is up (or has failed).
	ready chan struct{}
	begun time.Time
	stopC chan struct{} // closed by Stop

	mu       sync.Mutex
	e        *client.Engine
	ext      *client.Search
	emb      *engine.Handle
	embStart time.Time
	hit      bool
	stopped  bool
}

func (s *extSearch) PonderHit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hit = true
	if s.emb != nil {
		s.emb.PonderHit()
	} else if s.ext != nil {
		s.ext.PonderHit()
	}
}

func (s *extSearch) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		close(s.stopC)
	}
	s.stopped = true
	if s.emb != nil {
		s.emb.Stop()
	} else if s.ext != nil {
		s.ext.Stop()
	}
}

// waitForProcess waits a moment for a starting process, then searches
// with it (the clock reduced by the wait) or with the embedded engine.
func (s *extSearch) waitForProcess() {
	pos := s.g.Position()
	us := pos.SideToMove()
	t := time.NewTimer(startWait(s.lim, us))
	defer t.Stop()
	select {
	case <-s.ready:
	case <-t.C:
	case <-s.stopC:
	case <-s.ctx.Done():
	}
	lim := s.lim
	waited := time.Since(s.begun)
	if us == board.White && lim.WTime > 0 {
		lim.WTime = max(lim.WTime-waited, time.Millisecond)
	} else if us == board.Black && lim.BTime > 0 {
		lim.BTime = max(lim.BTime-waited, time.Millisecond)
	}
	if lim.MoveTime > 0 {
		lim.MoveTime = max(lim.MoveTime-waited, time.Millisecond)
	}
	s.x.mu.Lock()
	e := s.x.cur
	s.x.mu.Unlock()
	if e != nil && s.ctx.Err() == nil {
		s.begin(e, lim)
		return
	}
	s.startFallback(lim)
}

// startFallback starts the embedded engine on the position: with the
// search's limits while there is time, or for a moment when the search
// was stopped or its deadline passed.
func (s *extSearch) startFallback(lim engine.Limits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := s.ctx
	if s.hit {
		lim.Ponder = false
	}
	if s.stopped || ctx.Err() != nil {
		lim = engine.Limits{MoveTime: fallbackQuick}
		ctx = context.WithoutCancel(ctx)
	}
	s.x.svc.fairThreads(s.x.fallback, s.x.pool == s.x.svc.corrEngines)
	s.embStart = time.Now()
	s.emb = s.x.fallback.Start(ctx, s.g, lim, s.info)
}

func (s *extSearch) Wait() Answer {
	if s.ready != nil {
		s.waitForProcess()
	}
	if s.ext != nil {
		res, err := s.ext.Wait()
		if err == nil {
			a, err := s.answer(res)
			if err == nil {
				return a
			}
			s.x.fault("illegal", err)
		} else if !errors.Is(err, client.ErrDown) {
			s.x.fault(faultKind(err), err) // (a search after a fault is no new fault)
		}
		s.x.dead(s.e)
		s.startFallback(s.lim)
	}
	res := s.emb.Wait()
	s.x.svc.stats.count(func(st *stats) { st.fallbackMoves++ })
	return Answer{Result: res, Source: "fallback", Sent: s.embStart, Read: time.Now()}
}

// answer checks the engine's move and turns its last report into the
// result the judge, the chat and the logs read.
func (s *extSearch) answer(res client.BestMove) (Answer, error) {
	pos := s.g.Position()
	x := s.x
	x.mu.Lock()
	c960 := x.chess960
	x.mu.Unlock()
	best, err := parseWireMove(pos, res.Move, c960)
	if err != nil {
		return Answer{}, fmt.Errorf("bestmove %q in %s: %w", res.Move, pos.FEN(), err)
	}
	a := Answer{Result: engine.Result{Best: best}, Source: s.e.ID(), Sent: res.GoSent, Read: res.Read}
	a.Time = res.Read.Sub(res.GoSent)
	if res.Ponder != "" {
		var after board.Position
		pos.MakeMove(best, &after)
		if p, err := parseWireMove(after, res.Ponder, c960); err == nil {
			a.Ponder = p
		}
	}
	if res.HasLast {
		in := engineInfo(pos, res.Last, c960)
		a.Score, a.Depth, a.Nodes = in.Score, max(in.Depth, 1), in.Nodes
	}
	return a, nil
}
