package lichess_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// startGame scripts a challenge, accepts it and opens the game stream.
func startGame(t *testing.T, e *env, spec fakelichess.ChallengeSpec) (string, <-chan lichess.GameEvent, <-chan error, *lichess.GameFull) {
	t.Helper()
	ctx := testCtx(t)
	id := e.srv.Challenge(spec)
	if err := e.c.AcceptChallenge(ctx, id); err != nil {
		t.Fatal(err)
	}
	events, errc := e.c.WatchGame(ctx, id)
	full := next[*lichess.GameFull](t, events)
	if full.ID != id {
		t.Fatalf("gameFull for %s, want %s", full.ID, id)
	}
	return id, events, errc, full
}

// stateWith waits for a game state (gameState event) satisfying ok.
func stateWith(t *testing.T, events <-chan lichess.GameEvent, ok func(*lichess.GameState) bool) *lichess.GameState {
	t.Helper()
	for {
		ev := next[lichess.GameEvent](t, events)
		switch e := ev.(type) {
		case *lichess.GameStateEvent:
			if ok(&e.GameState) {
				return &e.GameState
			}
		case *lichess.GameFull:
			if ok(&e.State) {
				return &e.State
			}
		}
	}
}

func nMoves(n int) func(*lichess.GameState) bool {
	return func(s *lichess.GameState) bool { return len(s.MoveList()) == n }
}

func TestPlayToMate(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	id, events, errc, full := startGame(t, e, fakelichess.ChallengeSpec{
		ClockLimit: time.Minute, ClockIncrement: time.Second, Color: "black",
		Opponent: fakelichess.Scripted([]string{"e7e5", "d8h4"}, nil),
	})
	if ourColor(full, "ponderosa") != lichess.White || full.Clock == nil || full.Clock.Initial != 60000 ||
		full.Clock.Increment != 1000 || full.InitialFEN != "startpos" || full.Speed != lichess.SpeedBullet ||
		full.State.Status != lichess.StatusStarted || full.State.Moves != "" || full.State.WTime != 60000 ||
		full.State.WInc != 1000 || full.State.Expiration == nil || full.State.Expiration.MillisToMove != 20000 ||
		full.Black.ID != "alice" || full.White.Title != "BOT" || full.CreatedAt == 0 || full.Perf.Name != "Bullet" {
		t.Fatalf("gameFull = %+v", full)
	}
	if err := e.c.Move(ctx, id, "f2f3", false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, nMoves(2))
	if err := e.c.Move(ctx, id, "g2g4", false); err != nil {
		t.Fatal(err)
	}
	final := stateWith(t, events, func(s *lichess.GameState) bool { return s.Status.Finished() })
	if final.Status != lichess.StatusMate || final.Winner != lichess.Black || final.Moves != "f2f3 e7e5 g2g4 d8h4" {
		t.Fatalf("final state = %+v", final)
	}
	if _, ok := <-events; ok {
		t.Fatal("events still open after the game ended")
	}
	if err := <-errc; err != nil {
		t.Fatalf("watch ended with %v", err)
	}
	var me *lichess.MoveError
	if err := e.c.Move(ctx, id, "a2a3", false); !errors.As(err, &me) || !strings.Contains(me.Message, "game already over") {
		t.Fatalf("move after mate: %v", err)
	}
	// A game stream opened after the end sends gameFull and closes.
	late, lerr := e.c.StreamGame(ctx, id)
	if f := next[*lichess.GameFull](t, late); f.State.Status != lichess.StatusMate {
		t.Fatalf("late gameFull = %+v", f.State)
	}
	for range late {
	}
	if err := <-lerr; err != nil {
		t.Fatalf("late stream: %v", err)
	}
}

func TestIllegalMoveAndTurn(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	id, events, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	var me *lichess.MoveError
	if err := e.c.Move(ctx, id, "e2e5", false); !errors.As(err, &me) || me.Message != "Invalid UCI: e2e5" || me.Move != "e2e5" {
		t.Fatalf("illegal move: %v", err)
	}
	if !lichess.IsFatal(me) {
		t.Error("a rejected move should be fatal for retries")
	}
	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatal(err)
	}
	// It is now the opponent's turn until its reply arrives; wait for it.
	stateWith(t, events, nMoves(2))
	if err := e.c.Move(ctx, "nosuchgm", "e2e4", false); err == nil {
		t.Fatal("move in an unknown game succeeded")
	}
}

func TestChatDrawTakebackGone(t *testing.T) {
	e := setup(t, fakelichess.Options{
		ClaimWinAfter:  200 * time.Millisecond,
		AcceptTakeback: func(fakelichess.GameInfo) bool { return true },
	}, lichess.Options{})
	ctx := testCtx(t)
	id, events, _, _ := startGame(t, e, fakelichess.ChallengeSpec{
		ClockLimit: 5 * time.Minute, Color: "black",
		Opponent: fakelichess.Scripted([]string{"e7e5", "g8f6", "b8c6", "f8c5"}, nil),
	})

	if err := e.c.Chat(ctx, id, "", "Good luck!"); err != nil {
		t.Fatal(err)
	}
	if cl := next[*lichess.ChatLine](t, events); cl.Username != "Ponderosa" || cl.Text != "Good luck!" || cl.Room != "player" {
		t.Fatalf("own chat line = %+v", cl)
	}
	if err := e.srv.OpponentSay(id, "hi"); err != nil {
		t.Fatal(err)
	}
	if cl := next[*lichess.ChatLine](t, events); cl.Username != "Alice" || cl.Text != "hi" {
		t.Fatalf("opponent chat line = %+v", cl)
	}
	if err := e.c.Chat(ctx, id, "spectator", strings.Repeat("x", 141)); err == nil {
		t.Fatal("141-character chat accepted")
	}

	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, nMoves(2))
	// The opponent offers a draw; we decline.
	if err := e.srv.OpponentOfferDraw(id); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, func(s *lichess.GameState) bool { return s.BDraw && s.DrawOffered(lichess.Black) })
	if err := e.c.HandleDrawOffer(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, func(s *lichess.GameState) bool { return !s.BDraw })

	// We propose a takeback of e2e4 after the reply: the opponent accepts.
	if err := e.c.HandleTakeback(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, func(s *lichess.GameState) bool { return s.WTakeback })
	stateWith(t, events, nMoves(0))
	if err := e.c.Move(ctx, id, "d2d4", false); err != nil {
		t.Fatal(err)
	}
	st := stateWith(t, events, nMoves(2))
	if st.Moves != "d2d4 e7e5" {
		t.Fatalf("moves after takeback = %q", st.Moves)
	}
	// The opponent proposes a takeback; we decline.
	if err := e.srv.OpponentProposeTakeback(id); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, func(s *lichess.GameState) bool { return s.TakebackProposed(lichess.Black) })
	if err := e.c.HandleTakeback(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, func(s *lichess.GameState) bool { return !s.BTakeback })

	// Claiming too early fails; the opponent leaves, then we may claim.
	var ae *lichess.APIError
	if err := e.c.ClaimVictory(ctx, id); !errors.As(err, &ae) || ae.Status != 400 {
		t.Fatalf("early claim: %v", err)
	}
	if err := e.c.Move(ctx, id, "d4e5", false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, nMoves(4))
	if err := e.srv.OpponentLeave(id); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Move(ctx, id, "g1f3", false); err != nil {
		t.Fatal(err)
	}
	var gone *lichess.OpponentGone
	for gone == nil || gone.ClaimWinInSeconds == nil || *gone.ClaimWinInSeconds > 0 {
		gone = next[*lichess.OpponentGone](t, events)
		if !gone.Gone {
			t.Fatalf("opponentGone = %+v", gone)
		}
	}
	if err := e.c.ClaimVictory(ctx, id); err != nil {
		t.Fatal(err)
	}
	final := stateWith(t, events, func(s *lichess.GameState) bool { return s.Status.Finished() })
	if final.Status != lichess.StatusTimeout || final.Winner != lichess.White {
		t.Fatalf("final = %+v", final)
	}
}

func TestDrawOfferWithMove(t *testing.T) {
	e := setup(t, fakelichess.Options{AcceptDraw: func(fakelichess.GameInfo) bool { return true }}, lichess.Options{})
	ctx := testCtx(t)
	id, events, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black",
		Opponent: fakelichess.Scripted([]string{"e7e5", "b8c6"}, nil)})
	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, nMoves(2))
	if err := e.c.Move(ctx, id, "g1f3", true); err != nil {
		t.Fatal(err)
	}
	final := stateWith(t, events, func(s *lichess.GameState) bool { return s.Status.Finished() })
	if final.Status != lichess.StatusDraw || final.Winner != "" {
		t.Fatalf("final = %+v", final)
	}
	if r := e.srv.Requests(); r[len(r)-1].Query.Get("offeringDraw") != "true" && r[len(r)-2].Query.Get("offeringDraw") != "true" {
		t.Fatalf("offeringDraw not sent: %+v", r[len(r)-2:])
	}
}

func TestFlagFallAndIncrement(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	id, events, _, _ := startGame(t, e, fakelichess.ChallengeSpec{
		ClockLimit: 700 * time.Millisecond, ClockIncrement: time.Second, Color: "black",
		Opponent: fakelichess.Scripted([]string{"e7e5", "b8c6"}, nil),
	})
	began := time.Now() // before the server can start white's clock (at black's reply)
	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, nMoves(2))
	// The clock runs from ply 2: white spends at least 50 ms, at most the
	// time since began, and gains the increment.
	time.Sleep(50 * time.Millisecond)
	if err := e.c.Move(ctx, id, "g1f3", false); err != nil {
		t.Fatal(err)
	}
	most := time.Since(began).Milliseconds() + 1 // +1: the server rounds to ms
	st := stateWith(t, events, nMoves(3))
	if st.WTime > 1700-50 || st.WTime < 1700-most || st.BTime != 700 || st.WInc != 1000 {
		t.Fatalf("clocks after a timed move: w=%d (want %d to %d) b=%d", st.WTime, 1700-most, 1700-50, st.BTime)
	}
	stateWith(t, events, nMoves(4))
	// Now we never move: white's flag falls.
	final := stateWith(t, events, func(s *lichess.GameState) bool { return s.Status.Finished() })
	if final.Status != lichess.StatusOutOfTime || final.Winner != lichess.Black || final.WTime != 0 {
		t.Fatalf("final = %+v", final)
	}
}

func TestFirstMoveAbortAndResign(t *testing.T) {
	quick := setup(t, fakelichess.Options{FirstMoveTimeout: 150 * time.Millisecond}, lichess.Options{})
	ctx := testCtx(t)
	id, events, _, full := startGame(t, quick, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	if full.State.Expiration == nil || full.State.Expiration.MillisToMove != 150 {
		t.Fatalf("expiration = %+v", full.State.Expiration)
	}
	final := stateWith(t, events, func(s *lichess.GameState) bool { return s.Status.Finished() })
	if final.Status != lichess.StatusAborted || final.Winner != "" {
		t.Fatalf("final = %+v", final)
	}
	var ae *lichess.APIError
	if err := quick.c.Abort(ctx, id); !errors.As(err, &ae) || ae.Status != 400 {
		t.Fatalf("abort after the end: %v", err)
	}

	e := setup(t, fakelichess.Options{}, lichess.Options{})

	// Resigning an abortable game aborts it.
	id2, ev2, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	if err := e.c.Resign(ctx, id2); err != nil {
		t.Fatal(err)
	}
	if f := stateWith(t, ev2, func(s *lichess.GameState) bool { return s.Status.Finished() }); f.Status != lichess.StatusAborted {
		t.Fatalf("resign at ply 0 = %+v", f)
	}

	// After two plies abort fails and resign resigns.
	id3, ev3, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	if err := e.c.Move(ctx, id3, "e2e4", false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, ev3, nMoves(2))
	if err := e.c.Abort(ctx, id3); !errors.As(err, &ae) || !strings.Contains(ae.Message, "no longer be aborted") {
		t.Fatalf("late abort: %v", err)
	}
	if err := e.c.Resign(ctx, id3); err != nil {
		t.Fatal(err)
	}
	if f := stateWith(t, ev3, func(s *lichess.GameState) bool { return s.Status.Finished() }); f.Status != lichess.StatusResign || f.Winner != lichess.Black {
		t.Fatalf("resign = %+v", f)
	}
}

func TestChess960(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	fen := fakelichess.Chess960FEN(518 - 4*4) // bishops moved: not the standard start
	id, events, _, full := startGame(t, e, fakelichess.ChallengeSpec{Variant: "chess960", FEN: fen, ClockLimit: time.Minute, Color: "black"})
	if full.Variant.Key != lichess.VariantChess960 || full.InitialFEN != fen {
		t.Fatalf("gameFull = %+v", full)
	}
	pos := position(t, full, nil)
	if err := e.c.Move(ctx, id, firstMove(&pos), false); err != nil {
		t.Fatal(err)
	}
	st := stateWith(t, events, nMoves(2))
	position(t, full, st.MoveList()) // the replies replay on the 960 start
}

// TestFullGame plays whole games with the first legal move against the
// fake's default opponent, through reconnects, until they end by the rules.
func TestFullGameWithDrops(t *testing.T) {
	e := setup(t, fakelichess.Options{OpponentDelay: time.Millisecond}, lichess.Options{})
	ctx := testCtx(t)
	id, events, errc, full := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: 10 * time.Minute, Color: "random"})
	us := ourColor(full, "ponderosa")
	drops := 0
	state := &full.State
	fulls := 1
	for {
		if state.Status.Finished() {
			break
		}
		moves := state.MoveList()
		pos := position(t, full, moves)
		if toMove(&pos) == us {
			if len(moves) == 6 || len(moves) == 21 {
				e.srv.DropStreams()
				drops++
			}
			if len(moves) > 300 {
				if err := e.c.Resign(ctx, id); err != nil {
					t.Fatal(err)
				}
			} else if err := e.c.Move(ctx, id, firstMove(&pos), false); err != nil {
				var me *lichess.MoveError
				if !errors.As(err, &me) {
					t.Fatal(err)
				}
			}
		}
		// Wait for a state with more moves (or the end).
		n := len(moves)
		for {
			ev := next[lichess.GameEvent](t, events)
			if f, ok := ev.(*lichess.GameFull); ok {
				fulls++
				full, state = f, &f.State
			} else if s, ok := ev.(*lichess.GameStateEvent); ok {
				state = &s.GameState
			} else {
				continue
			}
			if len(state.MoveList()) != n || state.Status.Finished() {
				break
			}
		}
	}
	for range events {
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if drops == 0 || fulls < drops+1 {
		t.Fatalf("drops=%d fulls=%d", drops, fulls)
	}
	gi, _ := e.srv.Game(id)
	if !gi.Over() || strings.Join(gi.Moves, " ") != state.Moves {
		t.Fatalf("server game %+v, client saw %q", gi, state.Moves)
	}
	if !strings.Contains(e.log.String(), "reconnecting") {
		t.Error("no reconnect logged")
	}
	_ = context.Background
}

func TestDrawAcceptClaimDrawOpponentResign(t *testing.T) {
	e := setup(t, fakelichess.Options{ClaimWinAfter: 100 * time.Millisecond}, lichess.Options{})
	ctx := testCtx(t)
	spec := fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black", Opponent: fakelichess.Scripted([]string{"e7e5", "b8c6"}, nil)}

	// Accepting the opponent's draw offer ends the game.
	id, events, _, _ := startGame(t, e, spec)
	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, nMoves(2))
	if err := e.srv.OpponentOfferDraw(id); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, func(s *lichess.GameState) bool { return s.BDraw })
	if err := e.c.HandleDrawOffer(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	if f := stateWith(t, events, func(s *lichess.GameState) bool { return s.Status.Finished() }); f.Status != lichess.StatusDraw {
		t.Fatalf("after accepting a draw: %+v", f)
	}

	// A gone opponent that comes back cannot be claimed against, even
	// after the claim became possible; once gone long enough again, a draw
	// can be claimed.
	id, events, _, _ = startGame(t, e, spec)
	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, nMoves(2))
	if err := e.srv.OpponentLeave(id); err != nil {
		t.Fatal(err)
	}
	for g := next[*lichess.OpponentGone](t, events); *g.ClaimWinInSeconds > 0; g = next[*lichess.OpponentGone](t, events) {
	}
	if err := e.srv.OpponentReturn(id); err != nil {
		t.Fatal(err)
	}
	if g := next[*lichess.OpponentGone](t, events); g.Gone {
		t.Fatalf("opponent back = %+v", g)
	}
	if err := e.c.ClaimDraw(ctx, id); err == nil {
		t.Fatal("claimed a draw against a present opponent")
	}
	if err := e.srv.OpponentLeave(id); err != nil {
		t.Fatal(err)
	}
	for g := next[*lichess.OpponentGone](t, events); *g.ClaimWinInSeconds > 0; g = next[*lichess.OpponentGone](t, events) {
	}
	if err := e.c.ClaimDraw(ctx, id); err != nil {
		t.Fatal(err)
	}
	if f := stateWith(t, events, func(s *lichess.GameState) bool { return s.Status.Finished() }); f.Status != lichess.StatusDraw || f.Winner != "" {
		t.Fatalf("after claiming a draw: %+v", f)
	}

	// The opponent resigns.
	id, events, _, _ = startGame(t, e, spec)
	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatal(err)
	}
	stateWith(t, events, nMoves(2))
	if err := e.srv.OpponentResign(id); err != nil {
		t.Fatal(err)
	}
	gi, err := e.srv.WaitGameOver(ctx, id)
	if err != nil || gi.Status != "resign" || gi.Winner != "white" || gi.BotColor != "white" {
		t.Fatalf("opponent resigned: %+v %v", gi, err)
	}
	if f := stateWith(t, events, func(s *lichess.GameState) bool { return s.Status.Finished() }); f.Winner != lichess.White {
		t.Fatalf("final state: %+v", f)
	}
}

// TestGameStreamReconnectsAtOnce: a game stream that was cut after it
// delivered its gameFull reconnects after ReconnectMin every time, without
// the doubling backoff a failing stream gets (the bot's clock may be
// running). Every logged wait stays within ReconnectMin's ±50% jitter.
func TestGameStreamReconnectsAtOnce(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{ReconnectMin: 40 * time.Millisecond, ReconnectMax: 10 * time.Second})
	_, events, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: 10 * time.Minute})
	const drops = 5
	for i := 0; i < drops; i++ {
		e.srv.DropStreams()
		next[*lichess.GameFull](t, events)
	}
	waits := regexp.MustCompile(`reconnecting" stream="game stream [^"]*" attempt=\d+ wait=(\S+)`).FindAllStringSubmatch(e.log.String(), -1)
	if len(waits) < drops {
		t.Fatalf("%d reconnects logged, want %d:\n%s", len(waits), drops, e.log.String())
	}
	for _, w := range waits {
		d, err := time.ParseDuration(w[1])
		if err != nil {
			t.Fatal(err)
		}
		if d > 60*time.Millisecond {
			t.Errorf("reconnect waited %v after a working connection (ReconnectMin 40ms)", d)
		}
	}
}

// TestChatNeverTakesMoveTokens: chat lines wait on their own limiter, so a
// chatty game cannot delay a move (issue 13: 50 "!name" lines got 50
// replies on the limiter the moves use).
func TestChatNeverTakesMoveTokens(t *testing.T) {
	// The main limiter has just the tokens the set-up and one move need.
	e := setup(t, fakelichess.Options{}, lichess.Options{Limiter: rate.NewLimiter(rate.Every(time.Hour), 4)})
	ctx := testCtx(t)
	id, _, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	for i := range lichess.ChatBurst {
		if err := e.c.Chat(ctx, id, "player", fmt.Sprintf("line %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	mctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := e.c.Move(mctx, id, "e2e4", false); err != nil {
		t.Fatalf("move after %d chat lines: %v", lichess.ChatBurst, err)
	}
}

// TestAttemptLeavesOutWaits: a call's Attempt times the request on the
// wire, not the wait for the limiter before it (issue 13: the learned
// move overhead counted such waits).
func TestAttemptLeavesOutWaits(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{Limiter: rate.NewLimiter(rate.Every(2*time.Second), 3)})
	ctx := testCtx(t)
	id, _, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	// The set-up took 2 of 3 tokens; this chat-free call takes the third,
	// the move then waits for a token.
	if _, err := e.c.Account(ctx); err != nil {
		t.Fatal(err)
	}
	var at lichess.Attempt
	began := time.Now()
	if err := e.c.Move(lichess.WithAttempt(ctx, &at), id, "e2e4", false); err != nil {
		t.Fatal(err)
	}
	total := time.Since(began)
	if at.Attempts != 1 || at.Wire() <= 0 || at.Sent.Before(began) || total-at.Wire() < 100*time.Millisecond || at.Waited < 100*time.Millisecond || at.Waited > total {
		t.Errorf("attempt %+v (wire %v) in a call of %v that waited for the limiter", at, at.Wire(), total)
	}
}
