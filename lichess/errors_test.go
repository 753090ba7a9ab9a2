package lichess_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func TestUnauthorized(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{Token: "lip_wrongSecretToken123"})
	ctx := testCtx(t)
	_, err := e.c.Account(ctx)
	if !errors.Is(err, lichess.ErrUnauthorized) || !lichess.IsFatal(err) {
		t.Fatalf("wrong token: %v", err)
	}
	if strings.Contains(err.Error(), "lip_wrongSecretToken123") {
		t.Fatalf("error shows the token: %v", err)
	}
	// A fatal error ends the reconnecting watcher instead of looping.
	events, errc := e.c.WatchEvents(ctx)
	for range events {
	}
	if err := <-errc; !errors.Is(err, lichess.ErrUnauthorized) {
		t.Fatalf("watch: %v", err)
	}
	if n := e.srv.CountRequests("GET", "/api/stream/event"); n != 1 {
		t.Fatalf("%d event stream attempts after a 401, want 1", n)
	}
	// 403 (missing scope) is the same.
	e.srv.InjectFault(fakelichess.Fault{Status: http.StatusForbidden, Body: `{"error":"Missing scope"}`})
	if err := e.c.Abort(ctx, "x"); !errors.Is(err, lichess.ErrUnauthorized) || !strings.Contains(err.Error(), "Missing scope") {
		t.Fatalf("403: %v", err)
	}
	if strings.Contains(e.log.String(), "lip_wrongSecretToken123") {
		t.Fatal("log shows the token")
	}
}

func TestRetries(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	id, events, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	path := "/api/bot/game/" + id + "/move/"
	e.srv.InjectFault(fakelichess.Fault{Path: path, Status: http.StatusServiceUnavailable, Count: 2})
	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatalf("move after two 503s: %v", err)
	}
	if n := e.srv.CountRequests("POST", path); n != 3 {
		t.Fatalf("%d move attempts, want 3", n)
	}
	stateWith(t, events, nMoves(2))

	// Four 502s exhaust 1+3 attempts: the last error is returned.
	e.srv.InjectFault(fakelichess.Fault{Path: path, Status: http.StatusBadGateway, Count: 4})
	var ae *lichess.APIError
	if err := e.c.Move(ctx, id, "d2d4", false); !errors.As(err, &ae) || ae.Status != 502 || !ae.Temporary() {
		t.Fatalf("move after four 502s: %v", err)
	}

	// Creating a challenge is never retried.
	e.srv.InjectFault(fakelichess.Fault{Path: "/api/challenge/fakebot1", Status: 500})
	if _, err := e.c.CreateChallenge(ctx, "fakebot1", lichess.ChallengeParams{ClockLimit: 60}); !errors.As(err, &ae) || ae.Status != 500 {
		t.Fatalf("challenge after a 500: %v", err)
	}
	if n := e.srv.CountRequests("POST", "/api/challenge/fakebot1"); n != 1 {
		t.Fatalf("%d challenge attempts, want 1", n)
	}
}

func TestMoveTimeoutRetries(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{MoveTimeout: 500 * time.Millisecond, Retries: 1})
	ctx := testCtx(t)
	id, _, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	// The server holds every request until the client gives up: the move
	// times out whatever the scheduling. The timeout leaves each attempt
	// time to reach the server on a loaded machine.
	e.srv.SetLatency(time.Hour)
	err := e.c.Move(ctx, id, "e2e4", false)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow move: %v", err)
	}
	if n := e.srv.CountRequests("POST", "/api/bot/game/"+id+"/move/"); n != 2 {
		t.Fatalf("%d attempts, want 2", n)
	}
	e.srv.SetLatency(0)
	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatal(err)
	}
}

func TestEventStreamReconnects(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	events, errc := e.c.WatchEvents(ctx)
	id := e.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	if ch := next[*lichess.ChallengeEvent](t, events); ch.Challenge.ID != id {
		t.Fatalf("challenge %s, want %s", ch.Challenge.ID, id)
	}
	if err := e.c.AcceptChallenge(ctx, id); err != nil {
		t.Fatal(err)
	}
	next[*lichess.GameStartEvent](t, events)

	// A cut connection: the ongoing game is replayed after the reconnect.
	e.srv.DropStreams()
	if gs := next[*lichess.GameStartEvent](t, events); gs.Game.GameID != id {
		t.Fatalf("replayed gameStart for %s", gs.Game.GameID)
	}
	// A silent connection: the watchdog declares it dead.
	e.srv.StallStreams()
	if gs := next[*lichess.GameStartEvent](t, events); gs.Game.GameID != id {
		t.Fatalf("replayed gameStart for %s", gs.Game.GameID)
	}
	if !strings.Contains(e.log.String(), "silent") {
		t.Errorf("idle stream not logged: %s", e.log.String())
	}
	// A 503 on reconnect is retried too.
	e.srv.InjectFault(fakelichess.Fault{Path: "/api/stream/event", Status: 503, Count: 2})
	e.srv.DropStreams()
	next[*lichess.GameStartEvent](t, events)
	if n := e.srv.CountRequests("GET", "/api/stream/event"); n != 6 {
		t.Errorf("%d event stream opens, want 6", n)
	}
	select {
	case err := <-errc:
		t.Fatalf("watcher ended: %v", err)
	default:
	}
}

func TestWatchEndsWithContext(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx, cancel := context.WithCancel(testCtx(t))
	events, errc := e.c.WatchEvents(ctx)
	if err := e.srv.WaitUntil(ctx, e.srv.EventStreamOpen); err != nil {
		t.Fatal(err)
	}
	id := e.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	if err := e.c.AcceptChallenge(ctx, id); err != nil {
		t.Fatal(err)
	}
	gevents, gerrc := e.c.WatchGame(ctx, id)
	next[*lichess.GameFull](t, gevents)
	cancel()
	for range events {
	}
	for range gevents {
	}
	if err := <-errc; err != nil {
		t.Fatalf("events: %v", err)
	}
	if err := <-gerrc; err != nil {
		t.Fatalf("game: %v", err)
	}
	if err := e.srv.WaitUntil(t.Context(), func() bool { return !e.srv.EventStreamOpen() && e.srv.GameStreams(id) == 0 }); err != nil {
		t.Fatal(err)
	}
}

// TestEventStreamState: the client reports the event stream's real state
// (issue 13: /healthz said healthy while the stream was down): connected
// once it is open, then down since the drop, through every failed
// reconnect, with the reason.
func TestEventStreamState(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	if st := e.c.EventStreamState(); st.Connected || !st.Since.IsZero() {
		t.Fatalf("state before any stream: %+v", st)
	}
	events, _ := e.c.WatchEvents(ctx)
	e.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	next[*lichess.ChallengeEvent](t, events)
	st := e.c.EventStreamState()
	if !st.Connected || st.Since.IsZero() || st.LastEvent.IsZero() || st.LastData.Before(st.LastEvent) {
		t.Fatalf("state after an event: %+v", st)
	}

	e.srv.InjectFault(fakelichess.Fault{Path: "/api/stream/event", Status: 503, Count: 1000})
	opens := e.srv.CountRequests("GET", "/api/stream/event")
	e.srv.DropStreams()
	if err := e.srv.WaitUntil(ctx, func() bool {
		return !e.c.EventStreamState().Connected && e.srv.CountRequests("GET", "/api/stream/event") >= opens+2
	}); err != nil {
		t.Fatal(err)
	}
	down := e.c.EventStreamState()
	if down.Connected || !down.Since.After(st.Since) || !strings.Contains(down.LastError, "503") {
		t.Fatalf("state while reconnecting: %+v", down)
	}
	// More failed attempts: still down since the drop.
	if err := e.srv.WaitUntil(ctx, func() bool {
		return e.srv.CountRequests("GET", "/api/stream/event") >= opens+4
	}); err != nil {
		t.Fatal(err)
	}
	if again := e.c.EventStreamState(); again.Connected || !again.Since.Equal(down.Since) {
		t.Errorf("state after more attempts: %+v, want down since %v", again, down.Since)
	}
}
