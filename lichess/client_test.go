package lichess_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// next receives from ch until a value of type T arrives.
func next[T any, E any](t *testing.T, ch <-chan E) T {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				var zero T
				t.Fatalf("channel closed while waiting for %T", zero)
			}
			if v, ok := any(ev).(T); ok {
				return v
			}
		case <-timeout:
			var zero T
			t.Fatalf("timed out waiting for %T", zero)
		}
	}
}

func TestAccountAndUserAgent(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	u, err := e.c.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != "ponderosa" || u.Username != "Ponderosa" || !u.IsBot() {
		t.Fatalf("account = %+v", u)
	}
	if u.Perfs["bullet"].Rating == 0 {
		t.Errorf("no bullet perf in %+v", u.Perfs)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 || reqs[0].UserAgent != "ponderosa-test/0.1" || !reqs[0].Authed {
		t.Fatalf("requests = %+v", reqs)
	}
	info, err := e.c.TokenInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.UserID != "ponderosa" || !info.HasScope("bot:play") || info.HasScope("board:play") {
		t.Errorf("token info = %+v", info)
	}
}

func TestUpgradeToBot(t *testing.T) {
	e := setup(t, fakelichess.Options{NotBot: true}, lichess.Options{})
	ctx := testCtx(t)
	u, err := e.c.Account(ctx)
	if err != nil || u.IsBot() {
		t.Fatalf("account before upgrade = %+v, %v", u, err)
	}
	if err := e.c.UpgradeToBot(ctx); err != nil {
		t.Fatal(err)
	}
	if u, _ = e.c.Account(ctx); !u.IsBot() {
		t.Fatalf("account after upgrade = %+v", u)
	}
	var ae *lichess.APIError
	if err := e.c.UpgradeToBot(ctx); !errors.As(err, &ae) || ae.Status != 400 || ae.Message == "" {
		t.Fatalf("second upgrade: %v", err)
	}
}

func TestOnlineBotsAndOngoing(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	bots, err := e.c.OnlineBots(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(bots) != 2 || bots[0].ID != "fakebot1" || !bots[0].IsBot() {
		t.Fatalf("bots = %+v", bots)
	}
	games, err := e.c.OngoingGames(ctx, 0)
	if err != nil || len(games) != 0 {
		t.Fatalf("ongoing = %v, %v", games, err)
	}
	id := e.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white"})
	if err := e.c.AcceptChallenge(ctx, id); err != nil {
		t.Fatal(err)
	}
	games, err = e.c.OngoingGames(ctx, 0)
	if err != nil || len(games) != 1 {
		t.Fatalf("ongoing = %v, %v", games, err)
	}
	g := games[0]
	if g.GameID != id || g.Color != lichess.Black || g.Opponent.ID != "alice" || g.Status.Name != lichess.StatusStarted ||
		g.Status.ID != 20 || g.Variant.Key != lichess.VariantStandard || g.SecondsLeft == nil || *g.SecondsLeft != 60 {
		t.Fatalf("ongoing game = %+v", g)
	}
}

func TestChallengeEvents(t *testing.T) {
	e := setup(t, fakelichess.Options{AnswerChallenge: func(c fakelichess.ChallengeInfo) string {
		if c.Spec.Rated {
			return "casual"
		}
		return ""
	}}, lichess.Options{})
	ctx := testCtx(t)
	// A challenge sent before the stream opens is replayed on connect.
	first := e.srv.Challenge(fakelichess.ChallengeSpec{
		Challenger: fakelichess.Player{Name: "SomeBot", Title: "BOT", Rating: 2100},
		ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, Rated: true, Color: "white",
	})
	events, errc := e.c.StreamEvents(ctx)
	ch := next[*lichess.ChallengeEvent](t, events)
	c := ch.Challenge
	if c.ID != first || !c.Challenger.IsBot() || c.Challenger.ID != "somebot" || c.DestUser == nil ||
		c.DestUser.ID != "ponderosa" || !c.Rated || c.Speed != lichess.SpeedBlitz ||
		c.TimeControl.Type != "clock" || c.TimeControl.Limit != 180 || c.TimeControl.Increment != 2 ||
		c.TimeControl.Show != "3+2" || c.FinalColor != lichess.White || c.Status != lichess.ChallengeCreated ||
		ch.Compat == nil || !ch.Compat.Bot {
		t.Fatalf("challenge = %+v", ch)
	}
	in, out, err := e.c.Challenges(ctx)
	if err != nil || len(in) != 1 || len(out) != 0 || in[0].Direction != "in" {
		t.Fatalf("challenges = %v %v %v", in, out, err)
	}

	if err := e.c.DeclineChallenge(ctx, first, lichess.DeclineTooFast); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.srv.ChallengeState(first); st.Status != "declined" || st.DeclineReason != "tooFast" {
		t.Fatalf("declined challenge = %+v", st)
	}
	var ae *lichess.APIError
	if err := e.c.AcceptChallenge(ctx, first); !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		t.Fatalf("accepting a declined challenge: %v", err)
	}

	second := e.srv.Challenge(fakelichess.ChallengeSpec{Variant: "chess960", Days: 3})
	ch = next[*lichess.ChallengeEvent](t, events)
	if ch.Challenge.ID != second || ch.Challenge.Variant.Key != lichess.VariantChess960 || ch.Challenge.InitialFEN == "" ||
		ch.Challenge.TimeControl.Type != "correspondence" || ch.Challenge.TimeControl.DaysPerTurn != 3 {
		t.Fatalf("chess960 challenge = %+v", ch.Challenge)
	}
	if err := e.srv.CancelChallenge(second); err != nil {
		t.Fatal(err)
	}
	if cc := next[*lichess.ChallengeCanceledEvent](t, events); cc.Challenge.ID != second || cc.Challenge.Status != lichess.ChallengeCanceled {
		t.Fatalf("canceled = %+v", cc.Challenge)
	}

	// Our own challenges: an accepted one starts a game, a rated one is declined.
	mine, err := e.c.CreateChallenge(ctx, "FakeBot2", lichess.ChallengeParams{ClockLimit: 60, ClockIncrement: 1, Color: lichess.White})
	if err != nil {
		t.Fatal(err)
	}
	if mine.Direction != "out" || mine.Challenger.ID != "ponderosa" || mine.DestUser.ID != "fakebot2" || mine.TimeControl.Limit != 60 {
		t.Fatalf("created = %+v", mine)
	}
	if own := next[*lichess.ChallengeEvent](t, events); own.Challenge.ID != mine.ID || own.Challenge.Challenger.ID != "ponderosa" {
		t.Fatalf("own challenge event = %+v", own.Challenge)
	}
	gs := next[*lichess.GameStartEvent](t, events)
	if gs.Game.GameID != mine.ID || gs.Game.Color != lichess.White || !gs.Game.IsMyTurn || gs.Game.Opponent.ID != "fakebot2" ||
		gs.Game.Compat == nil || !gs.Game.Compat.Bot || gs.Game.Speed != lichess.SpeedBullet || len(gs.Game.FullID) != 12 {
		t.Fatalf("gameStart = %+v", gs.Game)
	}
	rated, err := e.c.CreateChallenge(ctx, "fakebot3", lichess.ChallengeParams{Rated: true, ClockLimit: 180, ClockIncrement: 0})
	if err != nil {
		t.Fatal(err)
	}
	dec := next[*lichess.ChallengeDeclinedEvent](t, events)
	if dec.Challenge.ID != rated.ID || !dec.Challenge.DeclineReasonKey.Is(lichess.DeclineCasual) || dec.Challenge.DeclineReason == "" {
		t.Fatalf("declined = %+v", dec.Challenge)
	}
	if _, err := e.c.CreateChallenge(ctx, "nobody", lichess.ChallengeParams{ClockLimit: 60}); !errors.As(err, &ae) || !strings.Contains(ae.Message, "No such user") {
		t.Fatalf("challenging nobody: %v", err)
	}
	if _, err := e.c.CreateChallenge(ctx, "fakebot1", lichess.ChallengeParams{ClockLimit: 15}); !errors.As(err, &ae) || !strings.Contains(ae.Message, "UltraBullet") {
		t.Fatalf("ultrabullet challenge: %v", err)
	}
	// Abort the game our challenge created through cancel.
	if err := e.c.CancelChallenge(ctx, mine.ID); err != nil {
		t.Fatal(err)
	}
	if gf := next[*lichess.GameFinishEvent](t, events); gf.Game.GameID != mine.ID || gf.Game.Status.Name != lichess.StatusAborted || gf.Game.Winner != "" {
		t.Fatalf("gameFinish = %+v", gf.Game)
	}
	e.srv.Close()
	for range events {
	}
	if err := <-errc; err == nil {
		t.Fatal("stream ended without an error after the server closed")
	}
}

// board helpers for the tests that play games as the bot.

func position(t *testing.T, full *lichess.GameFull, moves []string) board.Position {
	t.Helper()
	start := board.StartPosition()
	if full.InitialFEN != "startpos" {
		p, err := board.ParseFEN(full.InitialFEN)
		if err != nil {
			t.Fatal(err)
		}
		start = p
	}
	start.Chess960 = full.Variant.Key == lichess.VariantChess960 || full.Variant.Key == lichess.VariantFromPosition
	g := board.NewGame(start)
	for _, m := range moves {
		if err := g.PlayUCI(m); err != nil {
			t.Fatalf("replaying %v: %v", moves, err)
		}
	}
	return g.Position()
}

func ourColor(full *lichess.GameFull, id string) lichess.Color {
	if full.White.ID == id {
		return lichess.White
	}
	return lichess.Black
}

func toMove(p *board.Position) lichess.Color {
	if p.SideToMove() == board.White {
		return lichess.White
	}
	return lichess.Black
}

// firstMove picks the first legal move (castling king-to-rook in 960).
func firstMove(p *board.Position) string {
	var l board.MoveList
	p.GenerateLegal(&l)
	return p.UCI(l.Moves[0])
}
