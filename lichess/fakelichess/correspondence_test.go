package fakelichess_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// TestCorrespondenceClocks: correspondence games as lila runs them
// (bot-api.md §13) on an accelerated day: no clock key and daysPerTurn in
// gameFull, the side to move's clock counting down in game time and the
// other at full days, nothing on the event stream when the opponent moves,
// account/playing with the games to move first and their secondsLeft, no
// first-move abort, and a loss on time at 0.
func TestCorrespondenceClocks(t *testing.T) {
	const day = 1500 * time.Millisecond // one game day in real time
	srv := fakelichess.New(fakelichess.Options{DayLength: day, FirstMoveTimeout: 50 * time.Millisecond,
		KeepAlive: 20 * time.Millisecond, Seed: 3, Opponent: fakelichess.RandomMover(3)})
	defer srv.Close()
	r := raw{t: t, srv: srv, token: srv.Token()}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	events := r.stream(ctx, "/api/stream/event")
	accept := func(spec fakelichess.ChallengeSpec) string {
		t.Helper()
		id := srv.Challenge(spec)
		if ev := events(); ev["type"] != "challenge" {
			t.Fatalf("want a challenge, got %v", ev)
		}
		if st, body := r.do("POST", "/api/challenge/"+id+"/accept", ""); st != 200 {
			t.Fatalf("accept: %d %s", st, body)
		}
		if ev := events(); ev["type"] != "gameStart" {
			t.Fatalf("want gameStart, got %v", ev)
		}
		return id
	}
	fullDay := float64(24 * time.Hour.Milliseconds())

	// The bot is white: its clock runs, black's waits at the full day.
	id := accept(fakelichess.ChallengeSpec{Days: 1, Color: "black"})
	full := r.stream(ctx, "/api/bot/game/stream/"+id)()
	if _, ok := full["clock"]; ok {
		t.Errorf("gameFull of a correspondence game has a clock key: %v", full["clock"])
	}
	if full["daysPerTurn"] != float64(1) || full["speed"] != "correspondence" {
		t.Errorf("gameFull: daysPerTurn %v, speed %v", full["daysPerTurn"], full["speed"])
	}
	st := full["state"].(map[string]any)
	if w, b := st["wtime"].(float64), st["btime"].(float64); !(w > 0 && w <= fullDay) || b != fullDay || st["winc"] != float64(0) {
		t.Errorf("clocks at the start: %v", st)
	}
	if _, ok := st["expiration"]; ok {
		t.Errorf("a correspondence game expires: %v", st["expiration"])
	}
	if st, body := r.do("POST", "/api/bot/game/"+id+"/move/e2e4", ""); st != 200 {
		t.Fatalf("move: %d %s", st, body)
	}
	if err := srv.WaitUntil(ctx, func() bool { g, _ := srv.Game(id); return len(g.Moves) == 2 }); err != nil {
		t.Fatal(err)
	}
	// The opponent moved: nothing on the event stream (the next event is
	// the next challenge's).
	other := accept(fakelichess.ChallengeSpec{Days: 14, Color: "white", Opponent: fakelichess.Slow(time.Hour, fakelichess.RandomMover(1))})

	// account/playing: the game to move first, with its clock in seconds.
	_, body := r.do("GET", "/api/account/playing?nb=50", "")
	var playing struct {
		NowPlaying []struct {
			GameID      string
			IsMyTurn    bool
			SecondsLeft *int
			Speed       string
		}
		NbMyTurn int
	}
	if err := json.Unmarshal(body, &playing); err != nil {
		t.Fatal(err)
	}
	if n := len(playing.NowPlaying); n != 2 || playing.NbMyTurn != 1 {
		t.Fatalf("playing: %s", body)
	}
	first, second := playing.NowPlaying[0], playing.NowPlaying[1]
	if first.GameID != id || !first.IsMyTurn || first.SecondsLeft == nil || *first.SecondsLeft > 86400 || first.Speed != "correspondence" {
		t.Errorf("first game listed: %s", body)
	}
	if second.GameID != other || second.IsMyTurn || second.SecondsLeft == nil || *second.SecondsLeft != 14*86400 {
		t.Errorf("second game listed: %s", body)
	}
	if _, body := r.do("GET", "/api/account/playing?nb=1", ""); strings.Count(string(body), `"gameId"`) != 1 {
		t.Errorf("nb=1: %s", body)
	}

	// The bot does not move: at 0 it loses on time (not an abort, though
	// its first move's wait was longer than FirstMoveTimeout).
	g, err := srv.WaitGameOver(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != "outoftime" || g.Winner != "black" || g.WTime != 0 || g.BTime != 24*time.Hour || g.BotLeastLeft <= 0 {
		t.Errorf("after the bot's day: %s %s, clocks %v %v, least left %v", g.Status, g.Winner, g.WTime, g.BTime, g.BotLeastLeft)
	}
	if ev := events(); ev["type"] != "gameFinish" {
		t.Errorf("want gameFinish, got %v", ev)
	}
	if g, _ := srv.Game(other); g.Over() {
		t.Errorf("the 14-day game ended: %+v", g)
	}

	// Unlimited: the clocks read 2147483647 and never fall.
	unl := accept(fakelichess.ChallengeSpec{Color: "black"})
	st = r.stream(ctx, "/api/bot/game/stream/"+unl)()["state"].(map[string]any)
	if st["wtime"] != float64(2147483647) || st["btime"] != float64(2147483647) {
		t.Errorf("unlimited clocks: %v", st)
	}
}
