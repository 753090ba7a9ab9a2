package bot

import (
	"context"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// actionTimeout bounds a chat, draw or abort call made by a game.
const actionTimeout = 10 * time.Second

// talkState is what passes between the players besides moves: draw and
// takeback offers, chat, and the timers to abort a game the opponent never
// started or to claim one the opponent left.
type talkState struct {
	drawAnswered     plyMark // the ply at which we answered a draw offer
	takebackAnswered plyMark // the ply at which we answered a takeback request
	greeted          bool
	oppGone          bool
	lastReply        map[string]time.Time // chat room → when we last answered a command there
	claimT, abortT   *time.Timer
	claimC, abortC   <-chan time.Time // nil once fired or stopped

	// actions are chat lines and answers to offers, posted in order by a
	// goroutine of their own so that they never delay a move.
	actions   chan action
	actionsWG sync.WaitGroup
}

// plyMark remembers one ply, or none.
type plyMark struct {
	ply int
	set bool
}

// at reports whether the mark is set at ply.
func (m plyMark) at(ply int) bool { return m.set && m.ply == ply }

// action is a best-effort request made for a game.
type action struct {
	what string
	f    func(context.Context) error
}

// stopTimers stops the abort and claim timers.
func (t *talkState) stopTimers() {
	if t.claimT != nil {
		t.claimT.Stop()
	}
	if t.abortT != nil {
		t.abortT.Stop()
	}
}

// greet says hello once per game (not again after a reconnect), and only
// at the start.
func (r *gameRunner) greet(ctx context.Context) {
	if r.talk.greeted {
		return
	}
	r.talk.greeted = true
	if r.board.ply() < 2 {
		r.say(ctx, roomPlayer, r.svc.cfg.Chat.Greeting)
		r.say(ctx, roomSpectator, r.svc.cfg.Chat.GreetingSpectator)
	}
}

// answerOffers answers the opponent's draw offer and takeback request in a
// gameState, once per ply.
func (r *gameRunner) answerOffers(st *lichess.GameState) {
	t, ply, opp := &r.talk, r.board.ply(), wireColor(r.us.Other())
	if st.DrawOffered(opp) && !t.drawAnswered.at(ply) {
		t.drawAnswered = plyMark{ply, true}
		pos := r.board.game.Position()
		dead := pos.InsufficientMaterial()
		accept := r.search.judge.AcceptDraw(pos.FullmoveNumber(), dead)
		r.log.Info("draw offer", "accept", accept, "ply", ply)
		r.later("draw", func(c context.Context) error { return r.svc.api.HandleDrawOffer(c, r.id, accept) })
	}
	if st.TakebackProposed(opp) && !t.takebackAnswered.at(ply) {
		t.takebackAnswered = plyMark{ply, true}
		accept := r.svc.cfg.Game.Takebacks
		r.log.Info("takeback request", "accept", accept, "ply", ply)
		r.later("takeback", func(c context.Context) error { return r.svc.api.HandleTakeback(c, r.id, accept) })
	}
}

// maybeAbort aborts the game when the opponent has not made a first move;
// never a tournament game (Lichess refuses: they cannot be aborted).
func (r *gameRunner) maybeAbort(ctx context.Context) {
	if r.full == nil || r.full.TournamentID != "" || r.board.movesBy(r.us.Other()) > 0 || r.board.state.Status.Finished() {
		return
	}
	r.log.Info("opponent has not moved: aborting", "after", r.svc.cfg.Game.AbortAfter)
	r.later("abort", func(c context.Context) error { return r.svc.api.Abort(c, r.id) })
}

// onOpponentGone schedules a victory claim.
func (r *gameRunner) onOpponentGone(ctx context.Context, e *lichess.OpponentGone) {
	t := &r.talk
	t.oppGone = e.Gone
	if t.claimT != nil {
		t.claimT.Stop()
		t.claimC = nil
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
	t.claimT = time.NewTimer(wait + 200*time.Millisecond)
	t.claimC = t.claimT.C
}

func (r *gameRunner) maybeClaim(ctx context.Context) {
	if !r.talk.oppGone || r.board.state.Status.Finished() {
		return
	}
	r.claim(ctx)
}

// onChat answers chat commands.
func (r *gameRunner) onChat(ctx context.Context, c *lichess.ChatLine) {
	if !r.svc.cfg.Chat.Commands {
		return
	}
	view := chatView{
		Me: r.svc.me.Username, Opponent: r.opponent, Version: r.svc.version, Eval: r.search.lastEval,
		EvalToOpponent: r.svc.cfg.Chat.EvalToOpponent}
	r.chatExtras(&view)
	reply, ok := chatReply(c.Room, c.Username, c.Text, view)
	if !ok {
		return
	}
	// One reply per cooldown in each room: fifty "!name" lines get one
	// answer, not fifty requests.
	now := time.Now()
	if last, seen := r.talk.lastReply[c.Room]; seen && now.Sub(last) < r.svc.cfg.Chat.CommandCooldown {
		r.log.Debug("chat command ignored: cooldown", "room", c.Room, "user", c.Username)
		return
	}
	if r.talk.lastReply == nil {
		r.talk.lastReply = map[string]time.Time{}
	}
	r.talk.lastReply[c.Room] = now
	r.say(ctx, c.Room, reply)
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
	case r.talk.actions <- action{what, f}:
	default:
		r.log.Warn(what + " dropped: too many pending requests")
	}
}

// act runs a best-effort game action with a timeout, logging failures; a
// 429 is retried within the timeout (game_retry.go).
func (r *gameRunner) act(ctx context.Context, what string, f func(context.Context) error) {
	c, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	if err := r.retryRateLimited(c, what, f); err != nil && ctx.Err() == nil {
		r.log.Warn(what+" failed", "err", err)
	}
}

// resignBroken gives up a game the bot cannot follow.
func (r *gameRunner) resignBroken(ctx context.Context) {
	r.act(ctx, "resign", func(c context.Context) error { return r.svc.api.Resign(c, r.id) })
}
