package bot

import (
	"context"
	"errors"
	"fmt"
	"github.com/ponderosa-chess/ponderosa/bot/movesource"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// searchState is a game's engine side: the search in progress, the move we
// posted and what its clock says, and the evaluation history for resigning.
type searchState struct {
	job       *searchJob // the search in progress; nil none
	results   chan searchOutcome
	done      chan struct{} // closed when the runner ends: searches stop sending
	searches  sync.WaitGroup
	post      postRecord // our last posted move
	moveFails int        // posts that failed in a row
	judge     judge
	lastEval  string // for the chat's !eval
}

// searchJob is one search of a game's engine: a search for our move, or a
// ponder search on the position after the opponent's expected reply.
type searchJob struct {
	ply       int        // moves played in the searched position
	ponder    bool       // a ponder search not (yet) hit
	predicted board.Move // ponder: the opponent's move assumed
	cancel    context.CancelFunc
	ctx       context.Context // the search's context (ended by cancel)
	handle    Search
	received  time.Time     // arrival of the gameState that made it our turn
	clock     time.Duration // our clock in that gameState (0 when not running)
	inc       time.Duration // our increment
	started   time.Time     // search start (for a ponder hit: the hit)
	safety    time.Duration
	safetyT   *time.Timer
	// pondering is ponder for the search's info reports (on its goroutine).
	pondering atomic.Bool
}

// searchOutcome is what a search goroutine sends back.
type searchOutcome struct {
	job   *searchJob
	res   Answer
	ended time.Time
	panic *engine.Panic      // raised again by the runner, stack and all
	src   *movesource.Answer // the move came from a move source, not the search
}

// postRecord remembers our last posted move: whether the stream has shown
// it yet, and its clock, to measure what Lichess charged for it once the
// next gameState shows our clock.
type postRecord struct {
	ply         int           // moves in the game after our move
	pending     bool          // the stream has not shown the move yet
	measure     bool          // the charge is still to be measured
	before, inc time.Duration // our clock when it became our turn; our increment
	search      time.Duration
	waited      time.Duration // spent waiting before the request went out (limiter, pause, retries)
}

// noteMoves updates the search side after the board changed: a rebuilt
// board makes the search stale; the move we posted may now be on the board,
// and the clock after it says what it cost.
func (r *gameRunner) noteMoves(rebuilt bool) {
	s, ply := &r.search, r.board.ply()
	if rebuilt && s.job != nil {
		r.dropJob()
	}
	if s.post.pending && (ply >= s.post.ply || rebuilt) {
		s.post.pending = false
	}
	if lp := s.post; lp.measure && !rebuilt && ply == lp.ply {
		// The clock Lichess shows after our move says what the move cost;
		// beyond the search, that is the overhead (stream delivery,
		// scheduling, the request) as the server saw it.
		s.post.measure = false
		now, _ := r.board.clockOf(r.us)
		if charged := lp.before + lp.inc - now - lp.waited; charged > lp.search && charged-lp.search < 10*time.Second {
			r.svc.overhead.Observe(charged - lp.search)
		}
	}
}

// searchIfOurTurn starts, keeps, converts (ponder hit) or drops the search
// after a gameState that arrived at at; it returns true when the runner
// should stop.
func (r *gameRunner) searchIfOurTurn(ctx context.Context, at time.Time) bool {
	s, ply := &r.search, r.board.ply()
	if r.phase == leaving {
		return s.job == nil
	}
	if !r.board.toMove(r.us) || s.post.pending {
		if s.job != nil && !s.job.ponder && s.job.ply != ply {
			r.dropJob()
		}
		return false
	}
	if j := s.job; j != nil {
		switch {
		case j.ponder && j.ply == ply && r.board.lastMove() == j.predicted:
			r.ponderHit(j, at)
			return false
		case !j.ponder && j.ply == ply:
			return false // already searching this position
		}
		if j.ponder {
			r.svc.stats.count(func(s *stats) { s.ponderMiss++ })
			r.publishPonder(false)
		}
		r.dropJob()
	}
	return r.startSearch(ctx, at)
}

// plan is the search budget for our move in the last gameState, waited
// after it arrived.
func (r *gameRunner) plan(waited time.Duration) budget {
	b := &r.board
	wt, bt, wi, bi := b.state.Clock()
	return planSearch(searchClock{
		Kind: b.kind, Clock: clockState{WTime: wt, BTime: bt, WInc: wi, BInc: bi},
		Us: r.us, OurMoves: b.movesBy(r.us), Initial: b.initial,
		Overhead: r.svc.overhead.Overhead(), Waited: waited,
		CorrMoveTime: r.svc.cfg.Engine.CorrespondenceMoveTime,
	})
}

// startSearch starts the search for our move. A single legal move is
// played at once.
func (r *gameRunner) startSearch(ctx context.Context, received time.Time) bool {
	pos := r.board.game.Position()
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	ply := r.board.ply()
	job := &searchJob{ply: ply, received: received}
	job.clock, job.inc = r.board.clockOf(r.us)
	instant := func(m board.Move, source string, src *movesource.Answer) bool {
		now := time.Now()
		job.started = now
		r.search.job = job
		return r.onResult(ctx, searchOutcome{job: job, res: Answer{Result: engine.Result{Best: m}, Source: source}, ended: now, src: src})
	}
	switch ml.N {
	case 0:
		return false // mate or stalemate: the stream ends the game
	case 1:
		return instant(ml.Moves[0], sourceForced, nil)
	}
	if a, ok := r.bookMove(&pos, ply); ok {
		r.log.Debug("book move", "ply", ply+1, "move", pos.UCI(a.Move), "source", a.Source, "note", a.Note)
		return instant(a.Move, a.Source, &a)
	}
	if r.board.state.WTime >= unlimitedMillis {
		r.board.kind = unlimited
	}
	waited := time.Since(received)
	b := r.plan(waited)
	r.log.Debug("search", "ply", ply+1, "waited_ms", ms2(waited), "wtime_ms", ms2(b.WTime), "btime_ms", ms2(b.BTime),
		"movetime_ms", ms2(b.MoveTime), "safety_ms", ms2(b.Safety))
	lim := engine.Limits{WTime: b.WTime, BTime: b.BTime, WInc: b.WInc, BInc: b.BInc, MoveTime: b.MoveTime}
	job.safety = b.Safety
	r.launch(ctx, job, r.board.game.Clone(), lim)
	return false
}

// bookMove returns a move from the first opening book that serves the
// game's variant and speed at this ply and knows the position. Books are
// local files: they answer at once, before any search starts.
func (r *gameRunner) bookMove(pos *board.Position, ply int) (movesource.Answer, bool) {
	if r.svc.books == nil {
		return movesource.Answer{}, false
	}
	q := movesource.Query{Pos: *pos, Ply: ply, GameID: r.id}
	if f := r.full; f != nil {
		q.Variant, q.Speed = string(f.Variant.Key), string(f.Speed)
	}
	a, ok, err := r.svc.books.Lookup(&q)
	if err != nil {
		r.log.Warn("book", "err", err)
	}
	return a, ok && pos.IsLegal(a.Move)
}

// launch runs a search in a new goroutine.
func (r *gameRunner) launch(ctx context.Context, job *searchJob, g *board.Game, lim engine.Limits) {
	sctx, cancel := context.WithCancel(ctx)
	job.cancel, job.ctx = cancel, sctx
	job.started = time.Now()
	if !job.ponder && job.safety > 0 {
		job.safetyT = time.AfterFunc(job.safety, cancel)
	}
	r.search.job = job
	// Start returns with the search registered, so a PonderHit from now on
	// always reaches it. It waits (milliseconds) for a dropped search of
	// this engine to unwind first.
	job.pondering.Store(job.ponder)
	report := r.reporter(g, &job.pondering)
	if hook, live := r.svc.searchInfo, report; hook != nil {
		report = func(in engine.Info) { hook(in); live(in) }
	}
	job.handle = r.eng.Start(sctx, g, lim, report)
	s := &r.search
	if !job.ponder && r.svc.sources != nil {
		r.lookupSources(sctx, job, g.Position())
	}
	s.searches.Add(1)
	go func() {
		defer s.searches.Done()
		out := searchOutcome{job: job}
		func() {
			defer func() {
				if p := recover(); p != nil {
					// Wait re-raises a search's panic as an *engine.Panic
					// with the search's stack; anything else gets this one.
					sp, ok := p.(*engine.Panic)
					if !ok {
						sp = &engine.Panic{Value: p, Stack: debug.Stack()}
					}
					out.panic = sp
				}
			}()
			out.res = job.handle.Wait()
		}()
		out.ended = time.Now()
		select {
		case s.results <- out:
		case <-s.done:
		}
	}()
}

// lookupSources asks the move sources while the engine searches pos; a
// good answer comes to the runner as the job's outcome (which stops the
// search). The lookup ends with the search's context, and never waits past
// its own clock-derived timeout: the engine's move is never delayed.
func (r *gameRunner) lookupSources(ctx context.Context, job *searchJob, pos board.Position) {
	q := movesource.Query{Pos: pos, Ply: job.ply, Remaining: job.clock}
	if f := r.full; f != nil {
		q.Variant, q.Speed = string(f.Variant.Key), string(f.Speed)
	}
	s := &r.search
	s.searches.Add(1)
	go func() {
		defer s.searches.Done()
		a, ok := r.svc.sources.Lookup(ctx, q)
		if !ok || ctx.Err() != nil {
			return
		}
		select {
		case s.results <- searchOutcome{job: job, res: Answer{Result: engine.Result{Best: a.Move}, Source: a.Source}, ended: time.Now(), src: &a}:
		case <-s.done:
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
	r.search.job.stop()
	r.search.job = nil
}

// ponderHit turns the ponder search into the search for our move.
func (r *gameRunner) ponderHit(j *searchJob, at time.Time) {
	j.ponder = false
	j.pondering.Store(false)
	j.clock, j.inc = r.board.clockOf(r.us)
	j.received = at
	pondered := at.Sub(j.started) // on the opponent's time
	j.started = time.Now()
	j.handle.PonderHit()
	if r.svc.sources != nil && j.ctx != nil {
		r.lookupSources(j.ctx, j, r.board.game.Position())
	}
	// The safety net, measured from now, as for a normal search. The debug
	// line stands for the search line a move searched from scratch logs.
	waited := time.Since(at)
	safety := r.plan(waited).Safety
	r.log.Debug("ponder hit", "ply", j.ply+1, "waited_ms", ms2(waited), "pondered_ms", ms2(pondered),
		"safety_ms", ms2(safety))
	j.safetyT = time.AfterFunc(safety, j.cancel)
	r.svc.stats.count(func(s *stats) { s.ponderHit++ })
	r.publishPonder(true)
}

// onResult handles a finished search; it returns true when the runner
// should stop.
func (r *gameRunner) onResult(ctx context.Context, out searchOutcome) bool {
	if out.panic != nil {
		panic(out.panic) // recovered by the service (this game only), which logs its stack
	}
	j := out.job
	if j != r.search.job || j.ponder {
		return false // stale (dropped) or a stopped ponder search
	}
	r.search.job = nil
	if j.safetyT != nil {
		j.safetyT.Stop()
	}
	if out.src != nil {
		j.stop() // a source answered first: the search is no longer needed
	}
	j.cancel = nil
	leaving := r.phase == leaving
	if r.board.ply() != j.ply || out.res.Best == board.NoMove {
		return leaving
	}
	pos := r.board.game.Position()
	if !pos.IsLegal(out.res.Best) {
		r.log.Error("engine returned an illegal move", "move", out.res.Best.String(), "fen", pos.FEN())
		return leaving
	}
	if out.src != nil {
		r.search.lastEval = fmt.Sprintf("%s (%s)", out.src.Note, out.src.Source)
	}
	if r.judgeResult(ctx, out) {
		return false // resigned: the stream reports the end
	}
	return r.postMove(ctx, &pos, out)
}

// judgeResult records the score of a search (a book or forced move has
// none) or the tablebase's verdict on a tablebase move, and resigns a
// hopeless game; it returns true when it resigned.
func (r *gameRunner) judgeResult(ctx context.Context, out searchOutcome) bool {
	s, res := &r.search, out.res
	var verdict lichess.TablebaseCategory
	if out.src != nil {
		verdict = out.src.Verdict
	}
	s.judge.Verdict(verdict)
	switch {
	case verdict != "":
	case res.Depth == 0 && res.Nodes == 0:
		if out.src == nil && res.Source != "" {
			s.lastEval = "none, the last move was a " + res.Source + " move"
		}
		return false
	default:
		cp, mate := scoreCP(res.Score)
		s.judge.Record(cp)
		s.lastEval = fmt.Sprintf("%s at depth %d (engine)", formatCP(cp, mate), res.Depth)
	}
	// Before both sides have moved, Lichess would abort the game, not
	// record a resignation: play on.
	if r.board.ply() < 2 || !s.judge.Resign() {
		return false
	}
	r.log.Info("resigning a hopeless game", "score", res.Score.String(), "tablebase", string(verdict))
	c, cancel := context.WithTimeout(ctx, actionTimeout)
	err := r.svc.api.Resign(c, r.id)
	cancel()
	if err != nil {
		r.log.Warn("resign failed; playing on", "err", err)
		return false
	}
	return true
}

// postMove posts the move of a finished search in pos, measures the
// latency, and starts pondering; it returns true when the runner should
// stop.
func (r *gameRunner) postMove(ctx context.Context, pos *board.Position, out searchOutcome) bool {
	j, s := out.job, &r.search
	if r.svc.beforeMove != nil {
		r.svc.beforeMove(r.id, j.ply)
	}
	uci := pos.UCI(out.res.Best)
	var at lichess.Attempt
	sent := time.Now()
	offer := r.offerDraw(pos, out.res)
	err := r.sendMove(lichess.WithAttempt(ctx, &at), j, uci, offer) // a 429 is retried within our clock (game_retry.go)
	posted := time.Now()
	// Time spent waiting (the limiter, a 429 pause, retries and their
	// failed attempts) is no transport overhead: it is left out of the
	// learned overhead, here and in the clock charge measured later. The
	// rest of the call, scheduling delays included, counts.
	waited := min(at.Waited, posted.Sub(sent))
	wire := posted.Sub(sent) - waited
	// The bot's own time: event received → the engine asked, and the
	// answer read → the move request sent. An external engine reports when
	// its go was written and its bestmove read.
	asked, answered := j.started, out.ended
	if a := out.res; !a.Sent.IsZero() && a.Sent.After(asked) {
		asked = a.Sent
	}
	if a := out.res; !a.Read.IsZero() && a.Read.Before(answered) {
		answered = a.Read
	}
	internal := asked.Sub(j.received) + sent.Sub(answered)
	added := internal + wire
	if err != nil {
		r.svc.stats.count(func(s *stats) { s.moveErrors++ })
		s.moveFails++
		var me *lichess.MoveError
		if errors.As(err, &me) {
			// Lichess is the truth: the stream will say what happened.
			r.log.Warn("move rejected", "move", uci, "err", err)
		} else {
			r.log.Warn("move not posted", "move", uci, "err", err)
		}
		if ctx.Err() == nil && s.moveFails < 5 && r.board.toMove(r.us) && r.phase != leaving {
			// Try again at once, on the clock of the same gameState: the
			// time since it arrived (this search, the failed post) is
			// spent, and the new search's budget must say so.
			return r.startSearch(ctx, j.received)
		}
		return r.phase == leaving
	}
	s.moveFails = 0
	s.post = postRecord{ply: j.ply + 1, pending: true, before: j.clock, inc: j.inc, search: answered.Sub(asked),
		waited: waited, measure: r.board.kind == realTime && j.ply >= 2 && j.clock > 0}
	r.svc.overhead.Observe(added)
	r.svc.stats.addLatency(internal, wire)
	r.svc.stats.count(func(s *stats) { s.overhead = r.svc.overhead.Overhead() })
	source := moveSource(pos, out.res)
	r.noteMove(j.ply, source, moveNote(source, out.res, out.src, pos.SideToMove() == board.White), answered.Sub(asked))
	r.publishMove(source, j.ply+1, internal, wire)
	r.log.Info("move", "ply", j.ply+1, "move", uci, "offer_draw", offer, "score", out.res.Score.String(), "depth", out.res.Depth,
		"nodes", out.res.Nodes, "source", source, "search_ms", ms2(answered.Sub(asked)), "bot_ms", ms2(internal), "post_ms", ms2(wire))
	if r.phase == leaving {
		return true
	}
	r.maybePonder(ctx, out.res.Best, out.res.Ponder)
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
	b := &r.board
	if !r.svc.cfg.Engine.Ponder || b.kind != realTime || reply == board.NoMove || !r.eng.CanPonder() {
		return
	}
	g := b.game.Clone()
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
	wt, bt, wi, bi := b.state.Clock()
	spent, ovh := time.Since(b.stateAt), r.svc.overhead.Overhead()
	if r.us == board.White {
		wt = usableClock(wt-spent, wi, ovh)
	} else {
		bt = usableClock(bt-spent, bi, ovh)
	}
	job := &searchJob{ply: len(g.Moves()), ponder: true, predicted: reply}
	r.launch(ctx, job, g, engine.Limits{WTime: wt, BTime: bt, WInc: wi, BInc: bi, Ponder: true})
}
