package lichess

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The official example payloads of the Lichess API (and lila's error
// bodies) live in testdata/examples; SOURCE.md there says where each comes
// from.

func example(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExampleEvents feeds every event-stream example to DecodeEvent and
// every game-stream example to DecodeGameEvent.
func TestExampleEvents(t *testing.T) {
	for name, typ := range map[string]string{
		"stream-challenge.json": "challenge", "stream-challengeCanceled.json": "challengeCanceled",
		"stream-challengeDeclined.json": "challengeDeclined", "stream-gameStart.json": "gameStart",
		"stream-gameStart-ai.json": "gameStart", "stream-gameFinish.json": "gameFinish", "stream-gameFinish-ai.json": "gameFinish",
	} {
		ev, err := DecodeEvent(example(t, name))
		if err != nil || ev.eventType() != typ {
			t.Fatalf("%s: %v, %v", name, ev, err)
		}
	}
	ev, _ := DecodeEvent(example(t, "stream-challenge.json"))
	if c := ev.(*ChallengeEvent); c.Challenge.Challenger.Name != "Adriana" || c.Challenge.Challenger.Rating != 734 ||
		c.Challenge.DestUser.ID != "gabriela" || c.Challenge.TimeControl.Type != "unlimited" || c.Compat.Bot || c.Challenge.Challenger.IsAnonymous() {
		t.Errorf("challenge = %+v", c)
	}
	ev, _ = DecodeEvent(example(t, "stream-challengeDeclined.json"))
	if c := ev.(*ChallengeDeclinedEvent); !c.Challenge.DeclineReasonKey.Is(DeclineGeneric) || c.Challenge.Status != ChallengeDeclined {
		t.Errorf("declined = %+v", c)
	}
	ev, _ = DecodeEvent(example(t, "stream-gameFinish.json"))
	if g := ev.(*GameFinishEvent).Game; g.GameID != "0FgNPGRz" || g.Status.Name != StatusResign || g.Winner != Black || g.RatingDiff != -9 || g.Opponent.RatingDiff != 5 {
		t.Errorf("gameFinish = %+v", g)
	}
	ev, _ = DecodeEvent(example(t, "stream-gameFinish-ai.json"))
	if g := ev.(*GameFinishEvent).Game; g.Opponent.AI != 1 || g.Opponent.ID != "" || g.Status.Name != StatusAborted || g.SecondsLeft != nil {
		t.Errorf("gameFinish (AI) = %+v", g)
	}

	for name, typ := range map[string]string{
		"schema-GameFullEvent.json": "gameFull", "schema-GameStateEvent.json": "gameState",
		"schema-ChatLineEvent.json": "chatLine", "schema-OpponentGoneEvent.json": "opponentGone",
	} {
		ev, err := DecodeGameEvent(example(t, name))
		if err != nil || ev.gameEventType() != typ {
			t.Fatalf("%s: %v, %v", name, ev, err)
		}
	}
	gev, _ := DecodeGameEvent(example(t, "schema-GameFullEvent.json"))
	if f := gev.(*GameFull); f.Clock.InitialTime() != 15*time.Minute || f.White.Name != "Bobby" || f.State.Moves != "d2d3" || f.InitialFEN != "startpos" {
		t.Errorf("gameFull = %+v", f)
	}
	gev, _ = DecodeGameEvent(example(t, "schema-GameStateEvent.json"))
	if s := gev.(*GameStateEvent); len(s.MoveList()) != 13 || s.WTime != 7598040 || s.WInc != 10000 || s.DrawOffered(White) {
		t.Errorf("gameState = %+v", s)
	}
	gev, _ = DecodeGameEvent(example(t, "schema-OpponentGoneEvent.json"))
	if g := gev.(*OpponentGone); !g.Gone || g.ClaimWinInSeconds == nil || *g.ClaimWinInSeconds != 8 {
		t.Errorf("opponentGone = %+v", g)
	}
}

// TestAnonymousChallenger: lila writes "challenger": null for a player who
// is not logged in; the challenge decodes with a named, id-less human.
func TestAnonymousChallenger(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal(example(t, "stream-challenge.json"), &m); err != nil {
		t.Fatal(err)
	}
	m["challenge"].(map[string]any)["challenger"] = nil
	b, _ := json.Marshal(m)
	ev, err := DecodeEvent(b)
	if err != nil {
		t.Fatal(err)
	}
	c := ev.(*ChallengeEvent).Challenge.Challenger
	if !c.IsAnonymous() || c.Name != AnonymousName || c.IsBot() {
		t.Fatalf("anonymous challenger = %+v", c)
	}
}

// TestExampleAnswers serves the examples of the unary endpoints and reads
// them through the client's own methods.
func TestExampleAnswers(t *testing.T) {
	files := map[string]string{
		"GET /api/account":              "account-getMyProfile.json",
		"GET /api/bot/online":           "bot-getOnlineBots.json",
		"POST /api/challenge/mary":      "challenges-createChallenge.json",
		"GET /api/challenge":            "challenges-listYourChallenges.json",
		"POST /api/challenge/x/accept":  "challenges-acceptChallenge.json",
		"POST /api/challenge/x/decline": "challenges-declineChallenge.json",
		"GET /api/account/playing":      "account-playing.json",
		"POST /api/token/test":          "oauth-testMultipleOauthTokens.json",
	}
	playing := "account-playing.json"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := files[r.Method+" "+r.URL.Path]
		if r.URL.Path == "/api/account/playing" {
			name = playing
		}
		if name == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(example(t, name))
	}))
	defer srv.Close()
	var tokens map[string]any
	if err := json.Unmarshal(example(t, "oauth-testMultipleOauthTokens.json"), &tokens); err != nil {
		t.Fatal(err)
	}
	var token string
	for k, v := range tokens {
		if v != nil {
			token = k
		}
	}
	c := New(Options{BaseURL: srv.URL, Token: token})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	me, err := c.Account(ctx)
	if err != nil || me.ID == "" || me.Username == "" || len(me.Perfs) == 0 {
		t.Fatalf("account: %+v, %v", me, err)
	}
	bots, err := c.OnlineBots(ctx, 10)
	if err != nil || len(bots) != 1 || !bots[0].IsBot() || bots[0].Perfs["blitz"].Rating != 1121 {
		t.Fatalf("online bots: %+v, %v", bots, err)
	}
	ch, err := c.CreateChallenge(ctx, "mary", ChallengeParams{})
	if err != nil || ch.ID != "uGK4MHaQ" || ch.Direction != "out" || ch.Challenger.Name != "Bobby" || ch.FinalColor != White {
		t.Fatalf("create challenge: %+v, %v", ch, err)
	}
	in, out, err := c.Challenges(ctx)
	if err != nil || len(in)+len(out) == 0 {
		t.Fatalf("challenges: %v %v %v", in, out, err)
	}
	if err := c.AcceptChallenge(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeclineChallenge(ctx, "x", DeclineLater); err != nil {
		t.Fatal(err)
	}
	games, err := c.OngoingGames(ctx, 10)
	if err != nil || len(games) != 1 || games[0].GameID != "rCRw1AuO" || games[0].Opponent.Username != "Philippe" || *games[0].SecondsLeft != 1209600 {
		t.Fatalf("playing: %+v, %v", games, err)
	}
	playing = "account-playing-anon.json"
	games, err = c.OngoingGames(ctx, 10)
	if err != nil || len(games) != 1 || games[0].Opponent.ID != "" || games[0].Opponent.Username != "Anon." {
		t.Fatalf("playing an anonymous opponent: %+v, %v", games, err)
	}
	info, err := c.TokenInfo(ctx)
	if err != nil || info.UserID == "" || info.Scopes == "" {
		t.Fatalf("token test: %+v, %v", info, err)
	}
}

// TestLilaErrorBodies reads lila's error bodies (testdata/examples/lila-*)
// as the client does.
func TestLilaErrorBodies(t *testing.T) {
	c := New(Options{BaseURL: "https://lichess.org", Token: "lip_x"})
	defer c.Close()
	err := c.check("POST", "/api/challenge/x/accept", "POST /api/challenge/{id}/accept", 429, http.Header{}, example(t, "lila-ratelimit-botvsbot.json"))
	if rl, ok := QuotaReached(err); !ok || rl.RetryAfter != 41230*time.Second || !strings.Contains(rl.Message, "100 games against other bots") {
		t.Errorf("quota: %v", err)
	}
	if len(c.Pauses()) != 0 {
		t.Error("a quota paused an endpoint")
	}
	err = c.check("POST", "/api/challenge/fakebot2", "POST /api/challenge/{user}", 400, http.Header{}, example(t, "lila-opponent-limit.json"))
	if d, ok := OpponentLimited(err); !ok || d != 2912*time.Second {
		t.Errorf("opponent limit: %v", err)
	}
	err = c.check("POST", "/api/challenge/bob", "POST /api/challenge/{user}", 400, http.Header{}, example(t, "lila-form-error.json"))
	if !strings.HasSuffix(err.Error(), "400: days: Invalid value; Rules not applicable for bots") {
		t.Errorf("form error: %v", err)
	}
	err = c.check("GET", "/api/account", "GET /api/account", 429, http.Header{"Retry-After": {"12"}}, example(t, "lila-too-many-requests.json"))
	if rl, ok := err.(*RateLimitError); !ok || rl.Quota() || rl.RetryAfter != 12*time.Second || rl.Message != "Too many requests. Try again later." {
		t.Errorf("plain 429: %v", err)
	}
}

// exampleSeeds returns every example payload, for the fuzz seed corpora.
func exampleSeeds(f *testing.F) [][]byte {
	names, err := filepath.Glob(filepath.Join("testdata", "examples", "*.json"))
	if err != nil || len(names) == 0 {
		f.Fatalf("no examples: %v", err)
	}
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func FuzzErrorMessage(f *testing.F) {
	for _, b := range exampleSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"error":{"":["x"],"a":[1]}}`))
	f.Add([]byte("\xff\xfe plain"))
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := ErrorMessage(body)
		if strings.ContainsAny(msg, "\n\r") || len(msg) > 310 {
			t.Fatalf("message %q is not one short line", msg)
		}
		c := New(Options{BaseURL: "https://lichess.org", Token: "lip_x"})
		for _, st := range []int{302, 400, 403, 429, 500} {
			if err := c.check("GET", "/p", "GET /p", st, http.Header{"Retry-After": {string(body)}}, body); err == nil {
				t.Fatalf("status %d: no error", st)
			}
		}
	})
}

func FuzzDecodeChallenge(f *testing.F) {
	for _, b := range exampleSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"id":"a","challenger":null}`))
	f.Add([]byte(`{"id":"a","challenger":{"id":"","title":"BOT"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Challenge
		if err := json.Unmarshal(b, &c); err != nil {
			return
		}
		if c.Challenger.Name == "" {
			t.Fatalf("challenger without a name: %+v", c.Challenger)
		}
		if c.Challenger.IsAnonymous() && (c.Challenger.IsBot() || c.Challenger.Name != AnonymousName) {
			t.Fatalf("anonymous challenger %+v", c.Challenger)
		}
	})
}
