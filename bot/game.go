package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// actionTimeout bounds a chat, draw or abort call made by a game.
const actionTimeout = 10 * time.Second

// searchJob is one search of a game's engine: a search for our move, or a
// ponder search on the position after the opponent's expected reply.
type searchJob struct {
	ply       int        // moves played in the searched position
	ponder    bool       // a ponder search not (yet) hit
	predicted board.Move // ponder: the opponent's move assumed
	cancel    context.CancelFunc
	handle    *engine.Handle
	received  time.Time     // arrival of the gameState that made it our turn
	clock     time.Duration // our clock in that gameState (0 when not running)
	inc       time.Duration // our increment
	started   time.Time     // search start (for a ponder hit: the hit)
	safety    time.Duration
	safetyT   *time.Timer
}

// searchOutcome is what a search goroutine sends back.
type searchOutcome struct {
	job   *searchJob
	res   engine.Result
	ended time.Time
	panic any
}

// gameRunner plays one game: it reads the game stream, keeps the board,
// runs the engine, posts moves and handles offers, chat and the end. Its
// loop runs in one goroutine; searches run in goroutines it owns.
type gameRunner struct {
	svc *Service
	id  string
	log *slog.Logger
	eng *engine.Engine

	full     *lichess.GameFull
	white    bool
	opponent string
	oppID    string
	kind     clockKind
	initial  time.Duration
	startPos board.Position
	startFEN string // "" for the standard start
	game     *board.Game
	clocks   []time.Duration
	state    lichess.GameState
	stateAt  time.Time // arrival of state
	judge    judge
	lastEval string
	began    time.Time

	job       *searchJob
	results   chan searchOutcome
	done      chan struct{}
	searches  sync.WaitGroup
	postedPly int // moves in the game right after our posted move, until the stream shows it; -1 none
	lastPost  postRecord
	moveFails int

	drawPly, takebackPly int // ply at which we answered an offer; -1 none
	greeted              bool
	oppGone              bool
	claimT, abortT       *time.Timer
	claimC, abortC       <-chan time.Time
	leaving              bool
	ended                bool

	// actions are chat lines and answers to offers, posted in order by a
	// goroutine of their own so that they never delay a move.
	actions   chan action
	actionsWG sync.WaitGroup
}

// postRecord remembers our last move's clock, to measure what Lichess
// charged for it once the next gameState shows our clock.
type postRecord struct {
	ply         int           // moves in the game after our move
	before, inc time.Duration // our clock when it became our turn; our increment
	search      time.Duration
	valid       bool
}

// action is a best-effort request made for a game.
type action struct {
	what string
	f    func(context.Context) error
}

func newGameRunner(svc *Service, id string, eng *engine.Engine) *gameRunner {
	return &gameRunner{
		svc: svc, id: id, eng: eng, log: svc.log.With("game_id", id),
		results: make(chan searchOutcome, 4), done: make(chan struct{}), actions: make(chan action, 32),
		postedPly: -1, drawPly: -1, takebackPly: -1, began: time.Now(),
	}
}

// run plays the game until it ends, ctx is cancelled, or leave is closed
// (then it finishes the move in progress first). It returns an error only
// when the game stream failed for good.
func (r *gameRunner) run(ctx context.Context, leave <-chan struct{}) (err error) {
	sctx, cancel := context.WithCancel(ctx)
	r.actionsWG.Go(func() {
		for a := range r.actions {
			r.act(ctx, a.what, a.f)
		}
	})
	defer func() {
		cancel()
		if r.job != nil {
			r.job.stop()
		}
		close(r.done)
		close(r.actions) // the worker posts what is queued (goodbyes), then ends
		r.actionsWG.Wait()
		r.searches.Wait()
		if r.claimT != nil {
			r.claimT.Stop()
		}
		if r.abortT != nil {
			r.abortT.Stop()
		}
	}()
	r.abortT = time.NewTimer(r.svc.cfg.Game.AbortAfter)
	r.abortC = r.abortT.C
	events, errc := r.svc.api.WatchGame(sctx, r.id)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				if err := <-errc; err != nil {
					return fmt.Errorf("game %s: %w", r.id, err)
				}
				if !r.ended && ctx.Err() == nil {
					return fmt.Errorf("game %s: stream ended before the game did", r.id)
				}
				return nil
			}
			if r.handle(ctx, ev, time.Now()) {
				return nil
			}
		case out := <-r.results:
			if r.onResult(ctx, out) {
				return nil
			}
		case <-r.abortC:
			r.abortC = nil
			r.maybeAbort(ctx)
		case <-r.claimC:
			r.claimC = nil
			r.maybeClaim(ctx)
		case <-leave:
			leave = nil
			r.leaving = true
			if r.job == nil || r.job.ponder {
				r.log.Info("leaving game for the next start to resume")
				return nil
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// handle processes one game stream event; it returns true when the runner
// should stop.
func (r *gameRunner) handle(ctx context.Context, ev lichess.GameEvent, at time.Time) bool {
	switch e := ev.(type) {
	case *lichess.GameFull:
		if err := r.setup(e); err != nil {
			r.log.Error("cannot play this game", "err", err)
			return true
		}
		stop := r.onState(ctx, &e.State, at)
		if !r.greeted && !stop {
			r.greeted = true
			if len(r.game.Moves()) < 2 {
				r.say(ctx, roomPlayer, r.svc.cfg.Chat.Greeting)
				r.say(ctx, roomSpectator, r.svc.cfg.Chat.GreetingSpectator)
			}
		}
		return stop
	case *lichess.GameStateEvent:
		if r.full == nil {
			return false // gameFull always comes first; be lenient
		}
		return r.onState(ctx, &e.GameState, at)
	case *lichess.ChatLine:
		r.onChat(ctx, e)
	case *lichess.OpponentGone:
		r.onOpponentGone(ctx, e)
	}
	return false
}

// setup reads the immutable game data (again, after a reconnect).
func (r *gameRunner) setup(f *lichess.GameFull) error {
	first := r.full == nil
	r.full = f
	me := r.svc.me.ID
	switch {
	case strings.EqualFold(f.White.ID, me):
		r.white = true
		r.opponent, r.oppID = playerName(f.Black), f.Black.ID
	case strings.EqualFold(f.Black.ID, me):
		r.white = false
		r.opponent, r.oppID = playerName(f.White), f.White.ID
	default:
		return fmt.Errorf("we (%s) play neither side", me)
	}
	switch {
	case f.Clock != nil:
		r.kind, r.initial = realTime, f.Clock.InitialTime()
	case f.DaysPerTurn > 0:
		r.kind = correspondence
	default:
		r.kind = unlimited
	}
	var pos board.Position
	if f.InitialFEN == "" || f.InitialFEN == "startpos" {
		pos = board.StartPosition()
		r.startFEN = ""
	} else {
		p, err := board.ParseFEN(f.InitialFEN)
		if err != nil {
			return fmt.Errorf("initial position: %w", err)
		}
		pos, r.startFEN = p, f.InitialFEN
	}
	switch f.Variant.Key {
	case lichess.VariantStandard, "":
	case lichess.VariantChess960, lichess.VariantFromPosition:
		pos.Chess960 = true
	default:
		return fmt.Errorf("variant %q is not supported", f.Variant.Key)
	}
	if first || r.startPos != pos {
		r.startPos = pos
		r.game = board.NewGame(pos)
		r.clocks = r.clocks[:0]
	}
	if first {
		r.judge = judge{cfg: r.svc.cfg.Game}
		color := "black"
		if r.white {
			color = "white"
		}
		r.log = r.log.With("opponent", r.opponent)
		r.svc.stats.gameStarted(LiveGame{ID: r.id, Opponent: r.opponent, Color: color,
			Speed: string(f.Speed), Variant: string(f.Variant.Key), Started: r.began})
		r.log.Info("game start", "color", color, "speed", f.Speed, "variant", f.Variant.Key,
			"rated", f.Rated, "clock", clockString(f), "initial_fen", f.InitialFEN)
	}
	return nil
}

func playerName(p lichess.GamePlayer) string {
	switch {
	case p.Name != "":
		return p.Name
	case p.AILevel > 0:
		return fmt.Sprintf("Stockfish level %d", p.AILevel)
	}
	return p.ID
}

func clockString(f *lichess.GameFull) string {
	switch {
	case f.Clock != nil:
		return fmt.Sprintf("%v+%v", f.Clock.InitialTime(), f.Clock.IncrementTime())
	case f.DaysPerTurn > 0:
		return fmt.Sprintf("%d days/move", f.DaysPerTurn)
	}
	return "unlimited"
}

// syncMoves brings the board up to the stream's move list. It returns
// changed when the position differs from before, and rebuilt when moves were
// taken back or did not match (every search is then stale).
func (r *gameRunner) syncMoves(moves []string) (changed, rebuilt bool, err error) {
	have := r.game.Moves()
	prefixOK := len(moves) >= len(have)
	if prefixOK && len(have) > 0 {
		// The moves we have must be a prefix of the stream's list: compare
		// the last one (a full check would cost a replay per state).
		pos := r.positionAt(len(have) - 1)
		m, err := pos.ParseUCIMove(moves[len(have)-1])
		prefixOK = err == nil && m == have[len(have)-1]
	}
	if !prefixOK {
		r.game = board.NewGame(r.startPos)
		r.clocks = r.clocks[:0]
		have = nil
		rebuilt = true
	}
	for _, s := range moves[len(have):] {
		if err := r.game.PlayUCI(s); err != nil {
			return true, true, fmt.Errorf("move %d %q from Lichess: %w", len(r.game.Moves())+1, s, err)
		}
		changed = true
	}
	return changed || rebuilt, rebuilt, nil
}

// positionAt returns the position after the first n moves.
func (r *gameRunner) positionAt(n int) board.Position {
	pos := r.startPos
	for _, m := range r.game.Moves()[:n] {
		var next board.Position
		pos.MakeMove(m, &next)
		pos = next
	}
	return pos
}

// ourClock returns our remaining time and increment in the last gameState.
func (r *gameRunner) ourClock() (left, inc time.Duration) {
	wt, bt, wi, bi := r.state.Clock()
	if r.white {
		return wt, wi
	}
	return bt, bi
}

// ourTurn reports whether we are to move in the current position.
func (r *gameRunner) ourTurn() bool {
	pos := r.game.Position()
	return (pos.SideToMove() == board.White) == r.white
}

// movesBy counts the moves made so far by white (or black) in the game.
func (r *gameRunner) movesBy(white bool) int {
	n := len(r.game.Moves())
	startWhite := r.startPos.SideToMove() == board.White
	if startWhite == white {
		return (n + 1) / 2
	}
	return n / 2
}

// onState processes a gameState (also the one inside gameFull).
func (r *gameRunner) onState(ctx context.Context, st *lichess.GameState, at time.Time) bool {
	prevPly := len(r.game.Moves())
	changed, rebuilt, err := r.syncMoves(st.MoveList())
	if err != nil {
		r.log.Error("cannot follow the game", "err", err)
		r.resignBroken(ctx)
		return true
	}
	r.state, r.stateAt = *st, at
	ply := len(r.game.Moves())
	if changed {
		r.svc.stats.gamePly(r.id, ply)
		if !rebuilt && ply == prevPly+1 {
			r.recordClock(st, ply)
		}
	}
	if rebuilt && r.job != nil {
		r.dropJob()
	}
	if r.postedPly >= 0 && (ply >= r.postedPly || rebuilt) {
		r.postedPly = -1
	}
	if lp := r.lastPost; lp.valid && changed && !rebuilt && ply == lp.ply {
		// The clock Lichess shows after our move says what the move cost;
		// beyond the search, that is the overhead (stream delivery,
		// scheduling, the request) as the server saw it.
		r.lastPost.valid = false
		now, _ := r.ourClock()
		if charged := lp.before + lp.inc - now; charged > lp.search && charged-lp.search < 10*time.Second {
			r.svc.overhead.Observe(charged - lp.search)
		}
	}
	if st.Status.Finished() {
		r.finish(ctx, st)
		return true
	}
	opp := lichess.Black
	if !r.white {
		opp = lichess.White
	}
	if st.DrawOffered(opp) && r.drawPly != ply {
		r.drawPly = ply
		pos := r.game.Position()
		dead := pos.InsufficientMaterial()
		accept := r.judge.AcceptDraw(pos.FullmoveNumber(), dead)
		r.log.Info("draw offer", "accept", accept, "ply", ply)
		r.later("draw", func(c context.Context) error { return r.svc.api.HandleDrawOffer(c, r.id, accept) })
	}
	if st.TakebackProposed(opp) && r.takebackPly != ply {
		r.takebackPly = ply
		accept := r.svc.cfg.Game.Takebacks
		r.log.Info("takeback request", "accept", accept, "ply", ply)
		r.later("takeback", func(c context.Context) error { return r.svc.api.HandleTakeback(c, r.id, accept) })
	}
	if r.leaving {
		return r.job == nil
	}
	if !r.ourTurn() || r.postedPly >= 0 {
		if r.job != nil && !r.job.ponder && r.job.ply != ply {
			r.dropJob()
		}
		return false
	}
	if j := r.job; j != nil {
		switch {
		case j.ponder && j.ply == ply && r.lastMove() == j.predicted:
			r.ponderHit(j, at)
			return false
		case !j.ponder && j.ply == ply:
			return false // already searching this position
		}
		if j.ponder {
			r.svc.stats.count(func(s *stats) { s.ponderMiss++ })
		}
		r.dropJob()
	}
	return r.startSearch(ctx, at)
}

func (r *gameRunner) lastMove() board.Move {
	ms := r.game.Moves()
	if len(ms) == 0 {
		return board.NoMove
	}
	return ms[len(ms)-1]
}

// recordClock keeps the mover's clock after move ply for the PGN.
func (r *gameRunner) recordClock(st *lichess.GameState, ply int) {
	if r.kind != realTime {
		return
	}
	for len(r.clocks) < ply-1 {
		r.clocks = append(r.clocks, -1)
	}
	wt, bt, _, _ := st.Clock()
	before := r.positionAt(ply - 1)
	moverWhite := before.SideToMove() == board.White
	c := bt
	if moverWhite {
		c = wt
	}
	if len(r.clocks) == ply-1 {
		r.clocks = append(r.clocks, c)
	}
}

// startSearch starts the search for our move. A single legal move is
// played at once.
func (r *gameRunner) startSearch(ctx context.Context, received time.Time) bool {
	pos := r.game.Position()
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	ply := len(r.game.Moves())
	job := &searchJob{ply: ply, received: received}
	job.clock, job.inc = r.ourClock()
	switch ml.N {
	case 0:
		return false // mate or stalemate: the stream ends the game
	case 1:
		now := time.Now()
		job.started = now
		r.job = job
		return r.onResult(ctx, searchOutcome{job: job, res: engine.Result{Best: ml.Moves[0]}, ended: now})
	}
	if m, ok := r.bookMove(&pos, ply); ok {
		now := time.Now()
		job.started = now
		r.job = job
		r.log.Debug("book move", "ply", ply+1, "move", pos.UCI(m))
		return r.onResult(ctx, searchOutcome{job: job, res: engine.Result{Best: m}, ended: now})
	}
	st := &r.state
	wt, bt, wi, bi := st.Clock()
	cs := clockState{WTime: wt, BTime: bt, WInc: wi, BInc: bi}
	if st.WTime >= unlimitedMillis {
		r.kind = unlimited
	}
	waited := time.Since(received)
	b := planSearch(r.kind, cs, r.white, r.movesBy(r.white), r.initial,
		r.svc.overhead.Overhead(), waited, r.svc.cfg.Engine.CorrespondenceMoveTime)
	lim := engine.Limits{WTime: b.WTime, BTime: b.BTime, WInc: b.WInc, BInc: b.BInc, MoveTime: b.MoveTime}
	job.safety = b.Safety
	r.launch(ctx, job, r.game.Clone(), lim)
	return false
}

// bookMove returns a move from the opening book, in standard games for the
// first plies.
func (r *gameRunner) bookMove(pos *board.Position, ply int) (board.Move, bool) {
	b := r.svc.book
	if b == nil || pos.Chess960 || ply >= r.svc.cfg.Engine.BookMaxPly {
		return board.NoMove, false
	}
	m, ok, err := b.Pick(pos)
	if err != nil {
		r.log.Warn("book", "err", err)
		return board.NoMove, false
	}
	return m, ok && pos.IsLegal(m)
}

// launch runs a search in a new goroutine.
func (r *gameRunner) launch(ctx context.Context, job *searchJob, g *board.Game, lim engine.Limits) {
	sctx, cancel := context.WithCancel(ctx)
	job.cancel = cancel
	r.svc.fairThreads(r.eng)
	job.started = time.Now()
	if !job.ponder && job.safety > 0 {
		job.safetyT = time.AfterFunc(job.safety, cancel)
	}
	r.job = job
	// Start returns with the search registered, so a PonderHit from now on
	// always reaches it. It waits (milliseconds) for a dropped search of
	// this engine to unwind first.
	job.handle = r.eng.Start(sctx, g, lim, nil)
	r.searches.Add(1)
	go func() {
		defer r.searches.Done()
		out := searchOutcome{job: job}
		func() {
			defer func() {
				if p := recover(); p != nil {
					out.panic = p
				}
			}()
			out.res = job.handle.Wait()
		}()
		out.ended = time.Now()
		select {
		case r.results <- out:
		case <-r.done:
		}
	}()
}

// stop cancels the job's search.
func (j *searchJob) stop() {
	if j.safetyT != nil {
		j.safetyT.Stop()
	}
	if j.cancel != nil {
		j.cancel()
	}
}

// dropJob cancels the current search and forgets it; its result is ignored.
func (r *gameRunner) dropJob() {
	r.job.stop()
	r.job = nil
}

// ponderHit turns the ponder search into the search for our move.
func (r *gameRunner) ponderHit(j *searchJob, at time.Time) {
	j.ponder = false
	j.clock, j.inc = r.ourClock()
	j.received = at
	j.started = time.Now()
	j.handle.PonderHit()
	// The safety net, measured from now, as for a normal search.
	wt, bt, wi, bi := r.state.Clock()
	b := planSearch(r.kind, clockState{wt, bt, wi, bi}, r.white, r.movesBy(r.white), r.initial,
		r.svc.overhead.Overhead(), time.Since(at), r.svc.cfg.Engine.CorrespondenceMoveTime)
	j.safetyT = time.AfterFunc(b.Safety, j.cancel)
	r.svc.stats.count(func(s *stats) { s.ponderHit++ })
}

// onResult handles a finished search; it returns true when the runner
// should stop.
func (r *gameRunner) onResult(ctx context.Context, out searchOutcome) bool {
	if out.panic != nil {
		panic(fmt.Sprintf("search: %v", out.panic)) // recovered by the service: this game only
	}
	j := out.job
	if j != r.job || j.ponder {
		return false // stale (dropped) or a stopped ponder search
	}
	r.job = nil
	if j.safetyT != nil {
		j.safetyT.Stop()
	}
	j.cancel = nil
	if len(r.game.Moves()) != j.ply || out.res.Best == board.NoMove {
		return r.leaving
	}
	pos := r.game.Position()
	best := out.res.Best
	if !pos.IsLegal(best) {
		r.log.Error("engine returned an illegal move", "move", best.String(), "fen", pos.FEN())
		return r.leaving
	}
	searched := out.res.Depth > 0 || out.res.Nodes > 0
	if searched {
		cp, mate := scoreCP(out.res.Score)
		r.judge.Record(cp)
		r.lastEval = fmt.Sprintf("%s at depth %d", formatCP(cp, mate), out.res.Depth)
		if r.judge.Resign() {
			r.log.Info("resigning a hopeless game", "score", out.res.Score.String())
			c, cancel := context.WithTimeout(ctx, actionTimeout)
			err := r.svc.api.Resign(c, r.id)
			cancel()
			if err == nil {
				return false // the stream reports the end
			}
			r.log.Warn("resign failed; playing on", "err", err)
		}
	}
	if r.svc.beforeMove != nil {
		r.svc.beforeMove(r.id, j.ply)
	}
	uci := pos.UCI(best)
	sent := time.Now()
	err := r.svc.api.Move(ctx, r.id, uci, false)
	posted := time.Now()
	internal := j.started.Sub(j.received) + sent.Sub(out.ended)
	added := internal + posted.Sub(sent)
	if err != nil {
		r.svc.stats.count(func(s *stats) { s.moveErrors++ })
		r.moveFails++
		var me *lichess.MoveError
		if errors.As(err, &me) {
			// Lichess is the truth: the stream will say what happened.
			r.log.Warn("move rejected", "move", uci, "err", err)
		} else {
			r.log.Warn("move not posted", "move", uci, "err", err)
		}
		if ctx.Err() == nil && r.moveFails < 5 && r.ourTurn() && !r.leaving {
			return r.startSearch(ctx, time.Now()) // try again at once
		}
		return r.leaving
	}
	r.moveFails = 0
	r.postedPly = j.ply + 1
	r.lastPost = postRecord{ply: j.ply + 1, before: j.clock, inc: j.inc, search: out.ended.Sub(j.started),
		valid: r.kind == realTime && j.ply >= 2 && j.clock > 0}
	r.svc.overhead.Observe(added)
	r.svc.stats.addLatency(internal, posted.Sub(sent))
	r.svc.stats.count(func(s *stats) { s.overhead = r.svc.overhead.Overhead() })
	r.log.Info("move", "ply", j.ply+1, "move", uci, "score", out.res.Score.String(), "depth", out.res.Depth,
		"nodes", out.res.Nodes, "search_ms", ms2(out.ended.Sub(j.started)), "bot_ms", ms2(internal), "post_ms", ms2(posted.Sub(sent)))
	if r.leaving {
		return true
	}
	r.maybePonder(ctx, best, out.res.Ponder)
	return false
}

// ms2 returns d in milliseconds with two decimals, for logs.
func ms2(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// scoreCP converts an engine score to centipawns for the judge (mates as
// ±mateCP) and the mate distance for chat.
func scoreCP(s engine.Score) (cp, mate int) {
	if s.IsMate() {
		if s > 0 {
			return mateCP, s.MateIn()
		}
		return -mateCP, s.MateIn()
	}
	return int(s), 0
}

// maybePonder starts a ponder search on the position after our move best
// and the expected reply.
func (r *gameRunner) maybePonder(ctx context.Context, best, reply board.Move) {
	if !r.svc.cfg.Engine.Ponder || r.kind != realTime || reply == board.NoMove || !r.svc.canPonder() {
		return
	}
	g := r.game.Clone()
	if err := g.Play(best); err != nil {
		return
	}
	after := g.Position()
	if !after.IsLegal(reply) {
		return
	}
	g.Play(reply)
	if o := g.Outcome(); o.Result != board.Ongoing {
		return
	}
	// Our clock does not run on the opponent's time: what we had, minus
	// what this move cost, is what we will have (plus the increment).
	wt, bt, wi, bi := r.state.Clock()
	spent, ovh := time.Since(r.stateAt), r.svc.overhead.Overhead()
	if r.white {
		wt = usableClock(wt-spent, wi, ovh)
	} else {
		bt = usableClock(bt-spent, bi, ovh)
	}
	job := &searchJob{ply: len(g.Moves()), ponder: true, predicted: reply}
	r.launch(ctx, job, g, engine.Limits{WTime: wt, BTime: bt, WInc: wi, BInc: bi, Ponder: true})
}

// maybeAbort aborts the game when the opponent has not made a first move.
func (r *gameRunner) maybeAbort(ctx context.Context) {
	if r.full == nil || r.movesBy(!r.white) > 0 || r.state.Status.Finished() {
		return
	}
	r.log.Info("opponent has not moved: aborting", "after", r.svc.cfg.Game.AbortAfter)
	r.later("abort", func(c context.Context) error { return r.svc.api.Abort(c, r.id) })
}

// onOpponentGone schedules a victory claim.
func (r *gameRunner) onOpponentGone(ctx context.Context, e *lichess.OpponentGone) {
	r.oppGone = e.Gone
	if r.claimT != nil {
		r.claimT.Stop()
		r.claimC = nil
	}
	if !e.Gone || !r.svc.cfg.Game.ClaimVictory || e.ClaimWinInSeconds == nil {
		return
	}
	wait := time.Duration(*e.ClaimWinInSeconds) * time.Second
	r.log.Info("opponent left", "claim_in", wait)
	if wait <= 0 {
		r.maybeClaim(ctx)
		return
	}
	r.claimT = time.NewTimer(wait + 200*time.Millisecond)
	r.claimC = r.claimT.C
}

func (r *gameRunner) maybeClaim(ctx context.Context) {
	if !r.oppGone || r.state.Status.Finished() {
		return
	}
	r.log.Info("claiming victory: the opponent left")
	r.later("claim victory", func(c context.Context) error { return r.svc.api.ClaimVictory(c, r.id) })
}

// onChat answers chat commands.
func (r *gameRunner) onChat(ctx context.Context, c *lichess.ChatLine) {
	if !r.svc.cfg.Chat.Commands {
		return
	}
	reply, ok := chatReply(c.Room, c.Username, c.Text, chatView{
		Me: r.svc.me.Username, Opponent: r.opponent, Version: r.svc.version, Eval: r.lastEval})
	if ok {
		r.say(ctx, c.Room, reply)
	}
}

// say posts a chat line (best effort).
func (r *gameRunner) say(ctx context.Context, room, msg string) {
	if msg == "" {
		return
	}
	text := expand(msg, r.svc.me.Username, r.opponent)
	r.later("chat", func(c context.Context) error { return r.svc.api.Chat(c, r.id, room, text) })
}

// later queues a best-effort action for the action goroutine.
func (r *gameRunner) later(what string, f func(context.Context) error) {
	select {
	case r.actions <- action{what, f}:
	default:
		r.log.Warn(what + " dropped: too many pending requests")
	}
}

// act runs a best-effort game action with a timeout, logging failures.
func (r *gameRunner) act(ctx context.Context, what string, f func(context.Context) error) {
	c, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	if err := f(c); err != nil && ctx.Err() == nil {
		r.log.Warn(what+" failed", "err", err)
	}
}

// resignBroken gives up a game the bot cannot follow.
func (r *gameRunner) resignBroken(ctx context.Context) {
	r.act(ctx, "resign", func(c context.Context) error { return r.svc.api.Resign(c, r.id) })
}

// finish records the end of the game.
func (r *gameRunner) finish(ctx context.Context, st *lichess.GameState) {
	r.ended = true
	if r.job != nil {
		r.dropJob()
	}
	ourColor := lichess.Black
	if r.white {
		ourColor = lichess.White
	}
	result := "draw"
	switch {
	case st.Status == lichess.StatusAborted:
		result = "aborted"
	case st.Winner == ourColor:
		result = "win"
	case st.Winner != "":
		result = "loss"
	}
	ply := len(r.game.Moves())
	r.log.Info("game end", "result", result, "status", st.Status, "winner", st.Winner, "plies", ply,
		"duration", time.Since(r.began).Round(time.Millisecond))
	r.svc.stats.gameEnded(r.id, &GameResult{ID: r.id, Opponent: r.opponent, Color: string(ourColor),
		Result: result, Status: string(st.Status), Moves: ply, Ended: time.Now()})
	if st.Status != lichess.StatusAborted {
		r.say(ctx, roomPlayer, r.svc.cfg.Chat.Goodbye)
		r.say(ctx, roomSpectator, r.svc.cfg.Chat.GoodbyeSpectator)
		r.savePGN(st)
	}
}

func (r *gameRunner) savePGN(st *lichess.GameState) {
	dir := r.svc.cfg.PGNDir
	if dir == "" {
		return
	}
	f := r.full
	rec := &gameRecord{
		ID: r.id, Site: r.svc.cfg.URL + "/" + r.id, Start: time.UnixMilli(f.CreatedAt),
		White: pgnPlayer{Name: playerName(f.White), Title: f.White.Title, Rating: f.White.Rating},
		Black: pgnPlayer{Name: playerName(f.Black), Title: f.Black.Title, Rating: f.Black.Rating},
		Rated: f.Rated, Speed: string(f.Speed), Variant: string(f.Variant.Key),
		StartPos: r.startPos, StartFEN: r.startFEN, Timed: f.Clock != nil,
		Moves: r.game.Moves(), Clocks: r.clocks, Status: string(st.Status), Winner: string(st.Winner),
	}
	if f.CreatedAt == 0 {
		rec.Start = r.began
	}
	if f.Clock != nil {
		rec.Base, rec.Increment = f.Clock.InitialTime(), f.Clock.IncrementTime()
	}
	name, err := savePGN(dir, rec)
	if err != nil {
		r.log.Warn("PGN not saved", "err", err)
		return
	}
	r.log.Debug("PGN saved", "file", name)
}
