package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/uci/client"
)

// A game is played by a gameRunner. Its state and methods are split by
// concern over four files:
//
//	game.go         the loop, the game's fixed data, its start and its end
//	game_board.go   board sync: the moves and clocks the stream shows (boardSync)
//	game_search.go  the engine's searches and the moves we post (searchState)
//	game_talk.go    draw and takeback offers, chat, abort and claim (talkState)

// gameRunner plays one game: it reads the game stream, keeps the board,
// runs the engine, posts moves and handles offers, chat and the end. Its
// loop runs in one goroutine; searches run in goroutines it owns.
type gameRunner struct {
	svc   *Service
	id    string
	log   *slog.Logger
	eng   Engine
	began time.Time

	full     *lichess.GameFull // the last gameFull (nil before the first)
	us       board.Color
	opponent string
	oppID    string
	phase    gamePhase

	board  boardSync
	search searchState
	talk   talkState
	memory gameMemory // for the store (memory.go)

	// visit marks a correspondence game opened for our turn: it is closed
	// again once it waits for the opponent (correspondence.go).
	visit bool
	idle  visitIdle
}

// visitIdle is the wait of a visit for the opponent's reply: c fires after
// PONDEROSA_CORRESPONDENCE_DISCONNECT; pressure is closed when other games
// wait for a visit. Both nil while the visit is not waiting.
type visitIdle struct {
	t        *time.Timer
	c        <-chan time.Time
	pressure <-chan struct{}
}

// gamePhase is where a runner is in its life.
type gamePhase int

const (
	playing gamePhase = iota
	leaving           // finish the move in progress, then leave the game for the next start
	over              // the stream said the game ended
)

func newGameRunner(svc *Service, id string, eng Engine) *gameRunner {
	return &gameRunner{
		svc: svc, id: id, eng: eng, log: svc.log.With("game_id", id), began: time.Now(),
		search: searchState{results: make(chan searchOutcome, 4), done: make(chan struct{})},
		talk:   talkState{actions: make(chan action, 32)},
	}
}

// run plays the game until it ends, ctx is cancelled, or leave is closed
// (then it finishes the move in progress first). It returns an error only
// when the game stream failed for good.
func (r *gameRunner) run(ctx context.Context, leave <-chan struct{}) (err error) {
	sctx, cancel := context.WithCancel(ctx)
	r.talk.actionsWG.Go(func() {
		for a := range r.talk.actions {
			r.act(ctx, a.what, a.f)
		}
	})
	defer func() {
		cancel()
		if r.search.job != nil {
			r.search.job.stop()
		}
		close(r.search.done)
		close(r.talk.actions) // the worker posts what is queued (goodbyes), then ends
		r.talk.actionsWG.Wait()
		r.search.searches.Wait()
		r.talk.stopTimers()
		if r.idle.t != nil {
			r.idle.t.Stop()
		}
	}()
	r.talk.abortT = time.NewTimer(r.svc.cfg.Game.AbortAfter)
	r.talk.abortC = r.talk.abortT.C
	events, errc := r.svc.api.WatchGame(sctx, r.id)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				if err := <-errc; err != nil {
					return fmt.Errorf("game %s: %w", r.id, err)
				}
				if r.phase != over && ctx.Err() == nil {
					return fmt.Errorf("game %s: stream ended before the game did", r.id)
				}
				return nil
			}
			if r.handle(ctx, ev, time.Now()) || r.watchIdle() {
				return nil
			}
		case out := <-r.search.results:
			if r.onResult(ctx, out) || r.watchIdle() {
				return nil
			}
		case <-r.idle.c:
			r.log.Debug("closing the correspondence game until our turn", "after", r.svc.cfg.Game.CorrespondenceDisconnect)
			return nil
		case <-r.idle.pressure:
			r.log.Debug("closing the correspondence game: other games wait for their turn")
			return nil
		case <-r.talk.abortC:
			r.talk.abortC = nil
			r.maybeAbort(ctx)
		case <-r.talk.claimC:
			r.talk.claimC = nil
			r.maybeClaim(ctx)
		case <-leave:
			leave = nil
			r.phase = leaving
			if j := r.search.job; j == nil || j.ponder {
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
			if errors.Is(err, errUnplayable) {
				// Never walk away from a game we are in: the clock would run
				// out on it. Abort while that is allowed, else resign.
				r.log.Error("cannot play this game: giving it up", "err", err)
				r.giveUp(ctx, len(e.State.MoveList()))
			} else {
				r.log.Error("cannot play this game", "err", err)
			}
			return true
		}
		if r.board.kind != realTime && r.talk.abortT != nil {
			// No first-move abort without a clock: the opponent has days.
			r.talk.abortT.Stop()
			r.talk.abortC = nil
		}
		stop := r.onState(ctx, &e.State, at)
		r.publishState(at)
		if !stop {
			r.greet(ctx)
		}
		return stop
	case *lichess.GameStateEvent:
		if r.full == nil {
			return false // gameFull always comes first; be lenient
		}
		stop := r.onState(ctx, &e.GameState, at)
		r.publishState(at) // after the search started: the page never delays a move
		return stop
	case *lichess.ChatLine:
		r.onChat(ctx, e)
	case *lichess.OpponentGone:
		r.onOpponentGone(ctx, e)
	}
	return false
}

// watchIdle arms the idle timer of a visit that waits for the opponent
// (we have moved, the stream shows it, nothing is searching) and disarms
// it otherwise. It returns true when the visit should close now: we have
// moved and other games wait for a visit, PONDEROSA_CORRESPONDENCE_DISCONNECT
// is 0, or it is our turn but nothing will move (a search or a post that
// failed for good, a resignation on its way): the next check-in tries
// again.
func (r *gameRunner) watchIdle() bool {
	if !r.visit || r.full == nil || r.phase != playing {
		return false
	}
	s := &r.search
	if s.job != nil {
		r.stopIdle()
		return false
	}
	p := r.svc.corrPressure()
	if s.post.pending {
		// Lichess took our move; the stream has not shown it yet. When
		// other games wait, there is no reply to wait for.
		r.stopIdle()
		select {
		case <-p:
			return true
		default:
			return false
		}
	}
	if r.board.toMove(r.us) {
		r.log.Info("our turn but no move under way: closing the correspondence game until the next check-in")
		return true
	}
	if r.idle.c != nil {
		return false // already waiting
	}
	select {
	case <-p:
		return true
	default:
	}
	d := r.svc.cfg.Game.CorrespondenceDisconnect
	if d <= 0 {
		return true
	}
	r.idle.t = time.NewTimer(d)
	r.idle.c, r.idle.pressure = r.idle.t.C, p
	return false
}

// stopIdle disarms the idle wait of a visit.
func (r *gameRunner) stopIdle() {
	if r.idle.t != nil {
		r.idle.t.Stop()
	}
	r.idle = visitIdle{}
}

// setup reads the immutable game data (again, after a reconnect).
func (r *gameRunner) setup(f *lichess.GameFull) error {
	first := r.full == nil
	r.full = f
	me := r.svc.me.ID
	switch {
	case strings.EqualFold(f.White.ID, me):
		r.us = board.White
		r.opponent, r.oppID = playerName(f.Black), f.Black.ID
	case strings.EqualFold(f.Black.ID, me):
		r.us = board.Black
		r.opponent, r.oppID = playerName(f.White), f.White.ID
	default:
		return fmt.Errorf("we (%s) play neither side", me)
	}
	if err := r.board.setup(f); err != nil {
		return fmt.Errorf("%w: %w", errUnplayable, err)
	}
	r.publishSetup(f)
	if first {
		r.search.judge = judge{cfg: r.svc.cfg.Game}
		color := r.us.String()
		r.log = r.log.With("opponent", r.opponent)
		them := f.Black
		if r.us == board.Black {
			them = f.White
		}
		r.svc.mu.Lock()
		r.svc.noteTaken(r.id, them.ID, them.Title == "BOT")
		r.svc.mu.Unlock()
		r.svc.stats.gameStarted(LiveGame{ID: r.id, Opponent: r.opponent, Color: color,
			Speed: string(f.Speed), Variant: string(f.Variant.Key), Started: r.began})
		r.log.Info("game start", "color", color, "speed", f.Speed, "variant", f.Variant.Key,
			"rated", f.Rated, "clock", clockString(f), "initial_fen", f.InitialFEN)
		if err := r.eng.NewGame(context.Background(), r.gameInfo(f)); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
	}
	return nil
}

// gameInfo is what the engine is told about the game.
func (r *gameRunner) gameInfo(f *lichess.GameFull) GameInfo {
	me, opp := f.White, f.Black
	if r.us == board.Black {
		me, opp = opp, me
	}
	g := GameInfo{Start: r.board.startPos, StartFEN: r.board.startFEN, Variant: string(f.Variant.Key),
		OurRating: me.Rating, Opponent: client.Opponent{Title: opp.Title, Rating: opp.Rating,
			Computer: opp.Title == "BOT" || opp.AILevel > 0, Name: playerName(opp)}}
	if f.Clock != nil {
		g.Base, g.Inc = f.Clock.InitialTime(), f.Clock.IncrementTime()
	}
	return g
}

// errUnplayable marks a game of ours that the bot cannot set up (its start
// position or variant).
var errUnplayable = errors.New("unplayable game")

// giveUp ends a game the bot cannot play: abort while Lichess allows it
// (before each side has moved, and never in a tournament), resign
// otherwise or if the abort fails.
func (r *gameRunner) giveUp(ctx context.Context, plies int) {
	if plies < 2 && (r.full == nil || r.full.TournamentID == "") {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), actionTimeout)
		err := r.svc.api.Abort(c, r.id)
		cancel()
		if err == nil {
			return
		}
		r.log.Warn("abort failed; resigning", "err", err)
	}
	r.resignBroken(ctx)
}

// wireColor is c as Lichess spells it.
func wireColor(c board.Color) lichess.Color { return lichess.Color(c.String()) }

func playerName(p lichess.GamePlayer) string {
	switch {
	case p.Name != "":
		return p.Name
	case p.AILevel > 0:
		return fmt.Sprintf("Stockfish level %d", p.AILevel)
	case p.ID == "":
		return lichess.AnonymousName // lila shows a logged-out player as {}
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

// onState processes a gameState (also the one inside gameFull); it returns
// true when the runner should stop.
func (r *gameRunner) onState(ctx context.Context, st *lichess.GameState, at time.Time) bool {
	changed, rebuilt, err := r.followState(st, at)
	if err != nil {
		r.log.Error("cannot follow the game", "err", err)
		r.resignBroken(ctx)
		return true
	}
	if changed {
		r.noteMoves(rebuilt)
	}
	if st.Status.Finished() {
		r.finish(ctx, st)
		return true
	}
	r.answerOffers(st)
	return r.searchIfOurTurn(ctx, at)
}

// finish records the end of the game.
func (r *gameRunner) finish(ctx context.Context, st *lichess.GameState) {
	r.phase = over
	if r.search.job != nil {
		r.dropJob()
	}
	ourColor := wireColor(r.us)
	result := "draw"
	switch {
	case st.Status == lichess.StatusAborted:
		result = "aborted"
	case st.Winner == ourColor:
		result = "win"
	case st.Winner != "":
		result = "loss"
	}
	ply, ended := r.board.ply(), time.Now() // before the goodbyes: the store orders games by their end
	r.log.Info("game end", "result", result, "status", st.Status, "winner", st.Winner, "plies", ply,
		"duration", time.Since(r.began).Round(time.Millisecond))
	r.svc.stats.gameEnded(r.id, &GameResult{ID: r.id, Opponent: r.opponent, Color: string(ourColor),
		Result: result, Status: string(st.Status), Moves: ply, Ended: ended})
	pgn := ""
	if st.Status != lichess.StatusAborted {
		r.say(ctx, roomPlayer, r.svc.cfg.Chat.Goodbye)
		r.say(ctx, roomSpectator, r.svc.cfg.Chat.GoodbyeSpectator)
		pgn = r.savePGN(st)
	}
	r.remember(st, result, pgn, ended)
}

// savePGN writes the game's PGN file and returns its path ("" when none).
func (r *gameRunner) savePGN(st *lichess.GameState) string {
	dir := r.svc.cfg.PGNDir
	if dir == "" {
		return ""
	}
	f, b := r.full, &r.board
	rec := &gameRecord{
		ID: r.id, Site: r.svc.cfg.URL + "/" + r.id, Start: time.UnixMilli(f.CreatedAt),
		White: pgnPlayer{Name: playerName(f.White), Title: f.White.Title, Rating: f.White.Rating},
		Black: pgnPlayer{Name: playerName(f.Black), Title: f.Black.Title, Rating: f.Black.Rating},
		Rated: f.Rated, Speed: string(f.Speed), Variant: string(f.Variant.Key),
		StartPos: b.startPos, StartFEN: b.startFEN, Timed: f.Clock != nil,
		Moves: b.game.Moves(), Clocks: b.clocks, Status: string(st.Status), Winner: string(st.Winner),
	}
	rec.Notes = make([]string, len(rec.Moves))
	for i, n := range r.memory.notes {
		if i >= 0 && i < len(rec.Notes) {
			rec.Notes[i] = n
		}
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
		return ""
	}
	r.log.Debug("PGN saved", "file", name)
	return name
}
