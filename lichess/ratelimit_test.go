package lichess_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// TestRateLimitPausesOneFamily: a 429 on accept pauses accepting only. A
// move POST issued right after goes out at once (the injected clock does
// not move), an accept whose deadline ends before the pause is refused
// without being sent, and an accept without a deadline waits out exactly
// the minute.
func TestRateLimitPausesOneFamily(t *testing.T) {
	clock := newFakeClock()
	e := setup(t, fakelichess.Options{}, lichess.Options{Clock: clock})
	ctx := testCtx(t)
	id, events, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})

	other := e.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	e.srv.InjectFault(fakelichess.Fault{Path: "/api/challenge/" + other + "/accept", Status: http.StatusTooManyRequests,
		Body: `{"error":"Too many requests. Try again later."}`})
	err := e.c.AcceptChallenge(ctx, other)
	var rl *lichess.RateLimitError
	if !errors.As(err, &rl) || rl.Quota() || rl.RetryAfter != lichess.RateLimitPause || !rl.Until.Equal(clock.Now().Add(time.Minute)) ||
		rl.Family != "POST /api/challenge/{id}/accept" || lichess.IsFatal(err) {
		t.Fatalf("429 on accept: %#v", err)
	}
	if !strings.Contains(err.Error(), "Too many requests") {
		t.Errorf("message lost: %v", err)
	}
	if p := e.c.Pauses(); len(p) != 1 || !p[rl.Family].Equal(rl.Until) {
		t.Errorf("pauses = %v", p)
	}

	// The move goes out now: no sleeper on the clock, no time passing.
	if err := e.c.Move(ctx, id, "e2e4", false); err != nil {
		t.Fatalf("move during the accept pause: %v", err)
	}
	stateWith(t, events, nMoves(2))
	if _, err := e.c.Account(ctx); err != nil {
		t.Fatalf("account during the accept pause: %v", err)
	}

	// An accept with a deadline shorter than the pause is not sent.
	before := e.srv.CountRequests("POST", "/api/challenge/")
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = e.c.AcceptChallenge(short, other)
	cancel()
	if !errors.As(err, &rl) || !rl.NotSent || lichess.IsFatal(err) {
		t.Fatalf("accept during the pause: %v", err)
	}
	if n := e.srv.CountRequests("POST", "/api/challenge/"); n != before {
		t.Fatalf("%d accept requests sent during the pause", n-before)
	}

	// Without a deadline it waits for the end of the pause, and no sooner.
	done := make(chan error, 1)
	go func() { done <- e.c.AcceptChallenge(t.Context(), other) }() // no deadline
	clock.waitSleepers(t, 1)
	clock.Advance(59 * time.Second)
	clock.waitSleepers(t, 1) // asleep again on the rest of the pause, not returned
	select {
	case err := <-done:
		t.Fatalf("accept returned during the pause: %v", err)
	default:
	}
	if n := e.srv.CountRequests("POST", "/api/challenge/"); n != before {
		t.Fatalf("%d accept requests sent during the pause", n-before)
	}
	clock.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatalf("accept after the pause: %v", err)
	}
}

// TestRetryAfter: a Retry-After header sets the pause (here 7 s, not the
// default minute), and a game action's 429 pauses that game only.
func TestRetryAfter(t *testing.T) {
	clock := newFakeClock()
	e := setup(t, fakelichess.Options{}, lichess.Options{Clock: clock})
	ctx := testCtx(t)
	e.srv.InjectFault(fakelichess.Fault{Path: "/api/account", Status: http.StatusTooManyRequests, RetryAfter: 7 * time.Second})
	_, err := e.c.Account(ctx)
	var rl *lichess.RateLimitError
	if !errors.As(err, &rl) || rl.RetryAfter != 7*time.Second || !rl.Until.Equal(clock.Now().Add(7*time.Second)) {
		t.Fatalf("429 with Retry-After: %#v", err)
	}

	g1, _, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	g2, ev2, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	e.srv.InjectFault(fakelichess.Fault{Path: "/api/bot/game/" + g1 + "/move/", Status: http.StatusTooManyRequests})
	err = e.c.Move(ctx, g1, "e2e4", false)
	if !errors.As(err, &rl) || rl.RetryAfter != lichess.GameActionPause || rl.Family != "POST /api/bot/game/"+g1+"/move/{move}" {
		t.Fatalf("429 on a move: %#v", err)
	}
	if err := e.c.Move(ctx, g2, "e2e4", false); err != nil {
		t.Fatalf("the other game's move: %v", err)
	}
	stateWith(t, ev2, nMoves(2))
}

// TestQuota429: a quota answer (ratelimit object) pauses nothing: it says
// until when that action is used up. Here the fake's daily bot-game quota
// is 1: the second challenge to a bot is refused for a day, while
// accepting a human's challenge, on the same endpoint family as accepting
// a bot's, still works.
func TestQuota429(t *testing.T) {
	clock := newFakeClock()
	e := setup(t, fakelichess.Options{BotGameQuota: 1}, lichess.Options{Clock: clock})
	ctx := testCtx(t)
	bot := fakelichess.Player{ID: "otherbot", Name: "OtherBot", Title: "BOT"}
	first := e.srv.Challenge(fakelichess.ChallengeSpec{Challenger: bot, ClockLimit: time.Minute})
	if err := e.c.AcceptChallenge(ctx, first); err != nil {
		t.Fatal(err)
	}
	second := e.srv.Challenge(fakelichess.ChallengeSpec{Challenger: bot, ClockLimit: time.Minute})
	err := e.c.AcceptChallenge(ctx, second)
	rl, ok := lichess.QuotaReached(err)
	if !ok || rl.Key != "bot.vsBot.day" || rl.RetryAfter < 23*time.Hour || rl.RetryAfter > 24*time.Hour ||
		!rl.Until.Equal(clock.Now().Add(rl.RetryAfter)) || !strings.Contains(err.Error(), "games against other bots today") {
		t.Fatalf("accepting a bot over quota: %#v", err)
	}
	if _, err := e.c.CreateChallenge(ctx, "fakebot1", lichess.ChallengeParams{ClockLimit: 60}); err == nil {
		t.Fatal("challenging a bot over quota worked")
	} else if _, ok := lichess.QuotaReached(err); !ok {
		t.Fatalf("challenging a bot over quota: %v", err)
	}
	if len(e.c.Pauses()) != 0 {
		t.Fatalf("a quota paused %v", e.c.Pauses())
	}
	human := e.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	if err := e.c.AcceptChallenge(ctx, human); err != nil {
		t.Fatalf("accepting a human over the bot quota: %v", err)
	}
	if n := e.srv.BotGamesToday(); n != 1 {
		t.Fatalf("bot games counted: %d, want 1", n)
	}
}

// TestOpponentLimit: when the OTHER bot is out of games, lila answers 400
// with a ratelimit object; OpponentLimited reads its seconds.
func TestOpponentLimit(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	e.srv.LimitOpponent("fakebot2", 2*time.Hour)
	_, err := e.c.CreateChallenge(ctx, "fakebot2", lichess.ChallengeParams{ClockLimit: 60})
	d, ok := lichess.OpponentLimited(err)
	if !ok || d < 2*time.Hour-5*time.Second || d > 2*time.Hour || !strings.Contains(err.Error(), "FakeBot2 played 100 games") || !lichess.IsFatal(err) {
		t.Fatalf("opponent limit: %v (%v, %v)", err, d, ok)
	}
	if _, err := e.c.CreateChallenge(ctx, "fakebot1", lichess.ChallengeParams{ClockLimit: 60}); err != nil {
		t.Fatalf("another bot: %v", err)
	}
}

// TestErrorBodies: lila's "error" is a string or an object of field
// errors; both read as one line, and the token is masked only when there
// is one (an empty token used to put "***" between every character).
func TestErrorBodies(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"error":"This game is over"}`, "This game is over"},
		{`{"error":{"days":["Invalid value"],"global":["Rules not applicable for bots"]}}`, "days: Invalid value; Rules not applicable for bots"},
		{`{"error":{"clock.limit":["Too small","Too slow"]}}`, "clock.limit: Too small, Too slow"},
		{`{"error":{"x":"single"}}`, "x: single"},
		{`plain text
answer`, "plain text answer"},
		{`<html>oops</html>`, ""},
		{`{"error":17}`, ""},
		{``, ""},
	} {
		if got := lichess.ErrorMessage([]byte(tc.body)); got != tc.want {
			t.Errorf("ErrorMessage(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
	for _, token := range []string{"", "lip_fake_token"} {
		e := setup(t, fakelichess.Options{Token: "lip_fake_token"}, lichess.Options{})
		c := lichess.New(lichess.Options{BaseURL: e.srv.URL(), Token: token}) // setup never leaves the token empty
		defer c.Close()
		e.srv.InjectFault(fakelichess.Fault{Path: "/api/challenge/fakebot1", Status: http.StatusBadRequest,
			Body: `{"error":{"days":["Invalid value"]}}`})
		_, err := c.CreateChallenge(testCtx(t), "fakebot1", lichess.ChallengeParams{Days: 4})
		if err == nil || !strings.Contains(err.Error(), ": 400: days: Invalid value") {
			t.Errorf("token %q: object-valued error reads %v", token, err)
		}
	}
}

// TestChatNotRetried: a chat line whose answer is a 5xx may have been
// posted; a retry would post it twice.
func TestChatNotRetried(t *testing.T) {
	e := setup(t, fakelichess.Options{}, lichess.Options{})
	ctx := testCtx(t)
	id, _, _, _ := startGame(t, e, fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	e.srv.InjectFault(fakelichess.Fault{Path: "/api/bot/game/" + id + "/chat", Status: http.StatusBadGateway})
	if err := e.c.Chat(ctx, id, "player", "hello"); err == nil {
		t.Fatal("chat after a 502 reported success")
	}
	if n := e.srv.CountRequests("POST", "/api/bot/game/"+id+"/chat"); n != 1 {
		t.Fatalf("%d chat attempts, want 1", n)
	}
}

// recorder is a server that records what reaches it.
type recorder struct {
	mu   sync.Mutex
	auth []string
	body []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b := make([]byte, 4096)
	n, _ := req.Body.Read(b)
	r.mu.Lock()
	r.auth = append(r.auth, req.Header.Get("Authorization"))
	r.body = append(r.body, string(b[:n]))
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"id":"x","username":"x","title":"BOT"}`))
}

// TestNoRedirects: a redirect to another port (same host) or another
// scheme is not followed: Go's default would keep the Authorization
// header there, and a 307 would re-send the token test's body (the
// token).
func TestNoRedirects(t *testing.T) {
	rec := &recorder{}
	elsewhere := httptest.NewServer(rec)
	defer elsewhere.Close()
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		e := setup(t, fakelichess.Options{}, lichess.Options{})
		ctx := testCtx(t)
		e.srv.InjectFault(fakelichess.Fault{Status: status, Location: elsewhere.URL + "/api/account", Count: 2})
		_, err := e.c.Account(ctx)
		var ae *lichess.APIError
		if !errors.As(err, &ae) || ae.Status != status || !strings.Contains(err.Error(), "redirect refused") {
			t.Errorf("%d: %v", status, err)
		}
		_, err = e.c.TokenInfo(ctx)
		if !errors.As(err, &ae) || ae.Status != status {
			t.Errorf("%d on token test: %v", status, err)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.auth) > 0 {
		t.Fatalf("the other server got %d requests (Authorization %q, bodies %q)", len(rec.auth), rec.auth, rec.body)
	}
}

// TestPlainHTTPRefused: the token never crosses the network unencrypted:
// an http:// base URL is refused unless its host is loopback, before any
// request.
func TestPlainHTTPRefused(t *testing.T) {
	for base, ok := range map[string]bool{
		"https://lichess.org": true, "http://127.0.0.1:8080": true, "http://[::1]:9000": true, "http://localhost": true,
		"http://lichess.org": false, "http://10.0.0.1:8080": false, "http://127.0.0.1.example.com": false, "ftp://lichess.org": false,
	} {
		if err := lichess.CheckBaseURL(base); (err == nil) != ok {
			t.Errorf("CheckBaseURL(%q) = %v", base, err)
		}
	}
	// The refusal comes before any connection: the name does not even
	// resolve, and the error must say why, not that the lookup failed.
	c := lichess.New(lichess.Options{BaseURL: "http://lichess.invalid", Token: "lip_secret"})
	defer c.Close()
	_, err := c.Account(testCtx(t))
	if err == nil || !strings.Contains(err.Error(), "refusing http://") || !lichess.IsFatal(err) || strings.Contains(err.Error(), "lip_secret") {
		t.Fatalf("http:// to a remote host: %v", err)
	}
	events, errc := c.WatchEvents(testCtx(t))
	for range events {
	}
	if err := <-errc; err == nil || !lichess.IsFatal(err) {
		t.Fatalf("event stream over http:// to a remote host: %v", err)
	}
}
