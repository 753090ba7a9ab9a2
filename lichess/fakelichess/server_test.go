package fakelichess_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestChess960FEN(t *testing.T) {
	if got := fakelichess.Chess960FEN(518); got != board.StartFEN {
		t.Fatalf("position 518 = %s", got)
	}
	seen := map[string]bool{}
	for n := range 960 {
		fen := fakelichess.Chess960FEN(n)
		if seen[fen] {
			t.Fatalf("position %d repeats %s", n, fen)
		}
		seen[fen] = true
		back := fen[:8]
		k, r1, r2 := strings.IndexByte(back, 'k'), strings.IndexByte(back, 'r'), strings.LastIndexByte(back, 'r')
		b1, b2 := strings.IndexByte(back, 'b'), strings.LastIndexByte(back, 'b')
		if !(r1 < k && k < r2) || (b1+b2)%2 == 0 {
			t.Fatalf("position %d is not a 960 start: %s", n, fen)
		}
		if _, err := board.ParseFEN(fen); err != nil {
			t.Fatalf("position %d: %v", n, err)
		}
	}
}

// raw is a minimal HTTP client, so the fake is checked independently of
// package lichess.
type raw struct {
	t     *testing.T
	srv   *fakelichess.Server
	token string
}

func (r raw) do(method, path string, body string) (int, []byte) {
	r.t.Helper()
	req, err := http.NewRequestWithContext(r.t.Context(), method, r.srv.URL()+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// stream opens an ndjson stream and returns a function reading the next
// non-empty line as a JSON object.
func (r raw) stream(ctx context.Context, path string) func() map[string]any {
	r.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.srv.URL()+path, nil)
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		r.t.Fatalf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r.t.Cleanup(func() { resp.Body.Close() })
	br := bufio.NewReader(resp.Body)
	return func() map[string]any {
		r.t.Helper()
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				r.t.Fatalf("%s: %v", path, err)
			}
			if strings.TrimSpace(line) == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				r.t.Fatalf("%s: bad line %q: %v", path, line, err)
			}
			return m
		}
	}
}

// requireKeys checks the keys a spec schema marks required.
func requireKeys(t *testing.T, what string, v any, keys ...string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is %T, want an object", what, v)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks required %q: %v", what, k, m)
		}
	}
	return m
}

func onlyKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	for k := range m {
		if !slices.Contains(keys, k) {
			t.Errorf("%s has %q, which the spec does not allow", what, k)
		}
	}
}

func isInt(t *testing.T, what string, v any) {
	t.Helper()
	f, ok := v.(float64)
	if !ok || f != float64(int64(f)) {
		t.Errorf("%s = %v, want an integer", what, v)
	}
}

// TestSpecShapes checks the fake's JSON against the required fields, types
// and closed objects of the official OpenAPI spec (lichess-org/api,
// doc/specs/schemas: GameFullEvent, GameStateEvent, GameEventInfo,
// GameStatus, GameEventOpponent, ChallengeJson, ChallengeDeclinedJson,
// TimeControl, ChatLineEvent, OpponentGoneEvent, api-account-playing).
func TestSpecShapes(t *testing.T) {
	srv := fakelichess.New(fakelichess.Options{KeepAlive: 20 * time.Millisecond, ClaimWinAfter: time.Second, Seed: 3})
	defer srv.Close()
	r := raw{t: t, srv: srv, token: srv.Token()}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	id := srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second, Color: "black", Rated: true,
		Opponent: fakelichess.Scripted([]string{"e7e5"}, nil)})
	events := r.stream(ctx, "/api/stream/event")
	ev := requireKeys(t, "challenge event", events(), "type", "challenge", "compat")
	ch := requireKeys(t, "ChallengeJson", ev["challenge"], "id", "url", "status", "challenger", "destUser", "variant", "rated", "speed", "timeControl", "color", "perf")
	if _, ok := ch["direction"]; ok {
		t.Error("event-stream challenge has a direction")
	}
	tc := requireKeys(t, "timeControl", ch["timeControl"], "type")
	onlyKeys(t, "clock timeControl", tc, "type", "limit", "increment", "show")
	isInt(t, "limit", tc["limit"])
	if tc["limit"] != 180.0 || tc["increment"] != 2.0 || tc["show"] != "3+2" {
		t.Errorf("timeControl = %v", tc)
	}
	requireKeys(t, "challenger", ch["challenger"], "id", "name")
	requireKeys(t, "perf", ch["perf"], "icon", "name")

	if st, _ := r.do("POST", "/api/challenge/"+id+"/accept", ""); st != 200 {
		t.Fatalf("accept: %d", st)
	}
	gs := requireKeys(t, "gameStart", events(), "type", "game")
	game := requireKeys(t, "GameEventInfo", gs["game"], "fullId", "gameId", "id", "color", "fen", "lastMove", "source", "status",
		"variant", "speed", "perf", "rated", "hasMoved", "opponent", "isMyTurn", "secondsLeft", "compat", "rating")
	status := requireKeys(t, "GameStatus", game["status"], "id", "name")
	if status["id"] != 20.0 || status["name"] != "started" {
		t.Errorf("status = %v", status)
	}
	requireKeys(t, "GameEventOpponent", game["opponent"], "id", "username", "rating")
	isInt(t, "secondsLeft", game["secondsLeft"])

	st, body := r.do("GET", "/api/account/playing", "")
	var playing map[string]any
	if err := json.Unmarshal(body, &playing); st != 200 || err != nil {
		t.Fatalf("playing: %d %v", st, err)
	}
	requireKeys(t, "playing", playing, "nowPlaying", "nbMyTurn")
	now := playing["nowPlaying"].([]any)
	if len(now) != 1 {
		t.Fatalf("nowPlaying = %v", now)
	}
	requireKeys(t, "nowPlaying[0]", now[0], "gameId", "fullId", "color", "fen", "hasMoved", "isMyTurn", "lastMove", "opponent",
		"perf", "rated", "rating", "secondsLeft", "source", "speed", "variant")

	gstream := r.stream(ctx, "/api/bot/game/stream/"+id)
	full := requireKeys(t, "gameFull", gstream(), "type", "id", "variant", "speed", "perf", "rated", "createdAt", "white", "black", "initialFen", "state", "clock")
	clock := requireKeys(t, "clock", full["clock"], "initial", "increment")
	if clock["initial"] != 180000.0 || clock["increment"] != 2000.0 {
		t.Errorf("clock = %v (want ms)", clock)
	}
	state := requireKeys(t, "state", full["state"], "type", "moves", "wtime", "btime", "winc", "binc", "status")
	for _, k := range []string{"wtime", "btime", "winc", "binc"} {
		isInt(t, k, state[k])
	}
	if state["status"] != "started" || state["type"] != "gameState" {
		t.Errorf("state = %v", state)
	}
	exp := requireKeys(t, "expiration", state["expiration"], "idleMillis", "millisToMove")
	isInt(t, "millisToMove", exp["millisToMove"])
	white := requireKeys(t, "white", full["white"], "id", "name", "title", "rating")
	if white["title"] != "BOT" {
		t.Errorf("white = %v", white)
	}
	if black := full["black"].(map[string]any); black["title"] != nil {
		t.Errorf("a human's title should be null: %v", black)
	}

	if st, b := r.do("POST", "/api/bot/game/"+id+"/chat", "room=player&text=hello"); st != 200 || !strings.Contains(string(b), `"ok":true`) {
		t.Fatalf("chat: %d %s", st, b)
	}
	cl := requireKeys(t, "chatLine", gstream(), "type", "room", "username", "text")
	onlyKeys(t, "chatLine", cl, "type", "room", "username", "text")
	if st, _ := r.do("POST", "/api/bot/game/"+id+"/move/e2e4", ""); st != 200 {
		t.Fatalf("move: %d", st)
	}
	s1 := requireKeys(t, "gameState", gstream(), "type", "moves", "wtime", "btime", "winc", "binc", "status")
	if s1["moves"] != "e2e4" {
		t.Errorf("state = %v", s1)
	}
	s2 := requireKeys(t, "gameState", gstream(), "moves")
	if s2["moves"] != "e2e4 e7e5" {
		t.Errorf("state = %v", s2)
	}
	if _, ok := s2["expiration"]; ok {
		t.Error("expiration after both first moves")
	}
	if err := srv.OpponentLeave(id); err != nil {
		t.Fatal(err)
	}
	gone := requireKeys(t, "opponentGone", gstream(), "type", "gone", "claimWinInSeconds")
	onlyKeys(t, "opponentGone", gone, "type", "gone", "claimWinInSeconds")
	isInt(t, "claimWinInSeconds", gone["claimWinInSeconds"])
	if st, b := r.do("POST", "/api/bot/game/"+id+"/move/e2e4", ""); st != 400 || !strings.Contains(string(b), `"error"`) {
		t.Fatalf("illegal move: %d %s", st, b)
	}
	if st, _ := r.do("POST", "/api/bot/game/"+id+"/resign", ""); st != 200 {
		t.Fatalf("resign: %d", st)
	}
	fin := requireKeys(t, "final gameState", gstream(), "status", "winner")
	if fin["status"] != "resign" || fin["winner"] != "black" {
		t.Errorf("final = %v", fin)
	}
	gf := requireKeys(t, "gameFinish", events(), "type", "game")
	if g := requireKeys(t, "gameFinish.game", gf["game"], "fullId", "gameId", "status", "winner"); g["winner"] != "black" {
		t.Errorf("gameFinish = %v", g)
	}

	// A declined challenge carries the reason text and key.
	id2 := srv.Challenge(fakelichess.ChallengeSpec{Days: 2})
	c2 := requireKeys(t, "challenge event", events(), "challenge")["challenge"].(map[string]any)
	tc2 := requireKeys(t, "corr timeControl", c2["timeControl"], "type", "daysPerTurn")
	onlyKeys(t, "corr timeControl", tc2, "type", "daysPerTurn")
	if st, _ := r.do("POST", "/api/challenge/"+id2+"/decline", "reason=tooSlow"); st != 200 {
		t.Fatalf("decline: %d", st)
	}
	if st, _ := r.do("POST", "/api/challenge/"+id2+"/decline", "reason=nonsense"); st != 400 {
		t.Fatalf("decline with a bad reason: %d", st)
	}
	if info, _ := srv.ChallengeState(id2); info.Status != "declined" || info.DeclineReason != "tooSlow" {
		t.Errorf("declined challenge = %+v", info)
	}
}

func TestCastlingNotation(t *testing.T) {
	const fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
	for _, tc := range []struct {
		variant string
		legacy  bool
		post    []string // tried in order; the last must succeed
		wire    string
	}{
		{"standard", false, []string{"e1g1"}, "e1h1"},
		{"standard", true, []string{"e1h1"}, "e1g1"},
		{"chess960", false, []string{"e1g1", "e1h1"}, "e1h1"},
		{"fromPosition", false, []string{"e1c1"}, "e1a1"},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			srv := fakelichess.New(fakelichess.Options{LegacyCastling: tc.legacy, Seed: 1})
			defer srv.Close()
			r := raw{t: t, srv: srv, token: srv.Token()}
			id := srv.Challenge(fakelichess.ChallengeSpec{Variant: tc.variant, FEN: fen, ClockLimit: time.Minute, Color: "black"})
			if st, _ := r.do("POST", "/api/challenge/"+id+"/accept", ""); st != 200 {
				t.Fatalf("accept: %d", st)
			}
			for i, m := range tc.post {
				st, b := r.do("POST", "/api/bot/game/"+id+"/move/"+m, "")
				if last := i == len(tc.post)-1; (st == 200) != last {
					t.Fatalf("move %s: %d %s", m, st, b)
				}
			}
			if gi, _ := srv.Game(id); len(gi.Moves) == 0 || gi.Moves[0] != tc.wire {
				t.Fatalf("moves on the wire = %v, want %s first", gi.Moves, tc.wire)
			}
		})
	}
}

func TestFaultsAndAuth(t *testing.T) {
	srv := fakelichess.New(fakelichess.Options{Seed: 2})
	defer srv.Close()
	r := raw{t: t, srv: srv, token: srv.Token()}
	srv.InjectFault(fakelichess.Fault{Method: "GET", Path: "/api/account", Status: 502, Count: 2})
	for _, want := range []int{502, 502, 200} {
		if st, _ := r.do("GET", "/api/account", ""); st != want {
			t.Fatalf("account: %d, want %d", st, want)
		}
	}
	srv.SetTokenValid(false)
	if st, b := r.do("GET", "/api/account", ""); st != 401 || !strings.Contains(string(b), "No such token") {
		t.Fatalf("revoked token: %d %s", st, b)
	}
	if st, _ := (raw{t: t, srv: srv, token: "other"}).do("GET", "/api/bot/online", ""); st != 200 {
		t.Fatalf("online bots need no token: %d", st)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 || reqs[0].Status != 502 || reqs[3].Status != 401 || reqs[3].Authed != true || reqs[4].Authed {
		t.Fatalf("requests = %+v", reqs)
	}
}

func TestUnplayableVariantAndRematch(t *testing.T) {
	srv := fakelichess.New(fakelichess.Options{Seed: 4})
	defer srv.Close()
	r := raw{t: t, srv: srv, token: srv.Token()}
	id := srv.Challenge(fakelichess.ChallengeSpec{Variant: "crazyhouse", ClockLimit: 3 * time.Minute, RematchOf: "oldgame1"})
	st, body := r.do("GET", "/api/challenge", "")
	var list struct{ In []map[string]any }
	if err := json.Unmarshal(body, &list); st != 200 || err != nil || len(list.In) != 1 {
		t.Fatalf("challenge list: %d %s", st, body)
	}
	c := list.In[0]
	if v := c["variant"].(map[string]any); v["key"] != "crazyhouse" || v["name"] != "Crazyhouse" || c["rematchOf"] != "oldgame1" || c["direction"] != "in" {
		t.Fatalf("challenge = %v", c)
	}
	if st, _ := r.do("POST", "/api/challenge/"+id+"/accept", ""); st != 400 {
		t.Fatalf("accepting crazyhouse: %d", st)
	}
	if st, _ := r.do("POST", "/api/challenge/"+id+"/decline", "reason=variant"); st != 200 {
		t.Fatalf("declining: %d", st)
	}
}

func TestRequestRateLimit(t *testing.T) {
	srv := fakelichess.New(fakelichess.Options{MaxRequestsPerMinute: 3, Seed: 5})
	defer srv.Close()
	r := raw{t: t, srv: srv, token: srv.Token()}
	for i, want := range []int{200, 200, 200, 429, 429} {
		if st, _ := r.do("GET", "/api/account", ""); st != want {
			t.Fatalf("request %d: %d, want %d", i, st, want)
		}
	}
}

// sameKeys checks that the fake's object has exactly the keys of the
// official example (testdata of package lichess; see SOURCE.md there).
func sameKeys(t *testing.T, what string, got any, example string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "examples", example))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	g, ok := got.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object: %v", what, got)
	}
	var missing, extra []string
	for k := range want {
		if _, ok := g[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range g {
		if _, ok := want[k]; !ok {
			extra = append(extra, k)
		}
	}
	if len(missing)+len(extra) > 0 {
		t.Errorf("%s: keys missing %v, extra %v (against %s)", what, missing, extra, example)
	}
}

// TestQuotasAndLimits: the daily bot-game quota (lila's BotLimit), the
// opponent's limit, anonymous challengers, challengeDeclined to the side
// that declined, one stream per game and correspondence clocks.
func TestQuotasAndLimits(t *testing.T) {
	// The quota windows run on a clock the test moves.
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	srv := fakelichess.New(fakelichess.Options{KeepAlive: 20 * time.Millisecond, BotGameQuota: 1, BotGameQuotaWindow: 300 * time.Millisecond,
		FirstMoveTimeout: time.Minute, Seed: 5, Now: now})
	defer srv.Close()
	r := raw{t: t, srv: srv, token: srv.Token()}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	events := r.stream(ctx, "/api/stream/event")
	bot := fakelichess.Player{ID: "b", Name: "B", Title: "BOT"}

	// One bot game, then the quota: 429 with lila's ratelimit body, on
	// accept and on create; a human is still accepted.
	first := srv.Challenge(fakelichess.ChallengeSpec{Challenger: bot, ClockLimit: time.Minute})
	sameKeys(t, "challenge event", events(), "stream-challenge.json")
	if st, _ := r.do("POST", "/api/challenge/"+first+"/accept", ""); st != 200 {
		t.Fatalf("first bot game: %d", st)
	}
	sameKeys(t, "gameStart", events(), "stream-gameStart.json")
	second := srv.Challenge(fakelichess.ChallengeSpec{Challenger: bot, ClockLimit: time.Minute})
	events()
	st, body := r.do("POST", "/api/challenge/"+second+"/accept", "")
	var lim struct {
		Error     string
		Ratelimit struct {
			Key     string
			Seconds int
		}
	}
	if err := json.Unmarshal(body, &lim); st != 429 || err != nil || lim.Ratelimit.Key != "bot.vsBot.day" || lim.Ratelimit.Seconds != 1 ||
		!strings.Contains(lim.Error, "You played 1 games against other bots today") {
		t.Fatalf("accept over quota: %d %s", st, body)
	}
	if st, body := r.do("POST", "/api/challenge/fakebot1", "clock.limit=60&clock.increment=0"); st != 429 || !strings.Contains(string(body), "bot.vsBot.day") {
		t.Fatalf("create over quota: %d %s", st, body)
	}
	human := srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	events()
	if st, _ := r.do("POST", "/api/challenge/"+human+"/accept", ""); st != 200 {
		t.Fatalf("human over the bot quota: %d", st)
	}
	events()

	// The window slides: once the first game is old enough, bots again.
	clock.Add(int64(299 * time.Millisecond))
	if n := srv.BotGamesToday(); n != 1 {
		t.Fatalf("%d bot games counted 299 ms into a 300 ms window, want 1", n)
	}
	clock.Add(int64(time.Millisecond))
	if n := srv.BotGamesToday(); n != 0 {
		t.Fatalf("%d bot games still counted", n)
	}
	if st, body := r.do("POST", "/api/challenge/"+second+"/accept", ""); st != 200 {
		t.Fatalf("after the window: %d %s", st, body)
	}
	events()

	// The opponent's limit: 400 with the same ratelimit object.
	srv.LimitOpponent("fakebot2", time.Hour)
	clock.Add(int64(300 * time.Millisecond)) // our own quota is free again
	if st, body := r.do("POST", "/api/challenge/fakebot2", "clock.limit=60&clock.increment=0"); st != 400 || !strings.Contains(string(body), `"key":"bot.vsBot.day"`) ||
		!strings.Contains(string(body), "FakeBot2 played 100 games") {
		t.Fatalf("opponent limited: %d %s", st, body)
	}
	// Form errors are objects of field errors.
	if st, body := r.do("POST", "/api/challenge/fakebot1", "days=4"); st != 400 || string(body) != `{"error":{"days":["Invalid value"]}}`+"\n" {
		t.Fatalf("form error: %d %s", st, body)
	}

	// Anonymous challenger: "challenger": null; declining it tells us too.
	anon := srv.Challenge(fakelichess.ChallengeSpec{Anonymous: true, ClockLimit: time.Minute})
	ev := events()
	if c := ev["challenge"].(map[string]any); c["challenger"] != nil {
		t.Fatalf("anonymous challenger = %v", c["challenger"])
	} else if _, ok := c["challenger"]; !ok {
		t.Fatal("no challenger key")
	}
	if st, _ := r.do("POST", "/api/challenge/"+anon+"/decline", "reason=later"); st != 200 {
		t.Fatal("decline")
	}
	ev = events()
	sameKeys(t, "challengeDeclined", ev, "stream-challengeDeclined.json")
	if c := ev["challenge"].(map[string]any); ev["type"] != "challengeDeclined" || c["id"] != anon || c["declineReasonKey"] != "later" {
		t.Fatalf("declined event = %v", ev)
	}

	// An anonymous opponent's game: {} in gameFull, "Anon." in nowPlaying.
	anonGame := srv.Challenge(fakelichess.ChallengeSpec{Anonymous: true, Days: 2, Color: "white"})
	events()
	if st, _ := r.do("POST", "/api/challenge/"+anonGame+"/accept", ""); st != 200 {
		t.Fatal("accept anonymous")
	}
	events()
	game := r.stream(ctx, "/api/bot/game/stream/"+anonGame)
	full := game()
	if w := full["white"].(map[string]any); len(w) != 0 {
		t.Errorf("anonymous white = %v", w)
	}
	_, body = r.do("GET", "/api/account/playing", "")
	if !strings.Contains(string(body), `"opponent":{"id":null,"username":"Anon."}`) {
		t.Errorf("nowPlaying with an anonymous opponent: %s", body)
	}
	// Correspondence clocks count down for the side to move, from the days
	// per turn; the other one waits at full.
	days := float64(2 * 24 * time.Hour.Milliseconds())
	time.Sleep(30 * time.Millisecond)
	g2 := r.stream(ctx, "/api/bot/game/stream/"+anonGame) // also: closes the first stream
	state := g2()["state"].(map[string]any)
	running, waiting := state["wtime"].(float64), state["btime"].(float64)
	if len(strings.Fields(state["moves"].(string)))%2 == 1 {
		running, waiting = waiting, running
	}
	if !(running < days && running > days-60_000) || waiting != days {
		t.Errorf("correspondence clocks: %v", state)
	}
	if err := srv.WaitUntil(ctx, func() bool { return srv.GameStreams(anonGame) == 1 }); err != nil {
		t.Fatal(err)
	}
}

// TestOpponentResignOnTurn: asked on the bot's turn, the opponent lets the
// bot's move land and resigns instead of answering it; asked on its own
// turn, it resigns at once.
func TestOpponentResignOnTurn(t *testing.T) {
	srv := fakelichess.New(fakelichess.Options{Seed: 3, OpponentDelay: time.Millisecond})
	defer srv.Close()
	r := raw{t: t, srv: srv, token: srv.Token()}
	wait := func(id string, cond func(fakelichess.GameInfo) bool) fakelichess.GameInfo {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := srv.WaitUntil(ctx, func() bool { g, _ := srv.Game(id); return cond(g) }); err != nil {
			g, _ := srv.Game(id)
			t.Fatalf("game %s: %v (%+v)", id, err, g)
		}
		g, _ := srv.Game(id)
		return g
	}
	id := srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	if st, _ := r.do("POST", "/api/challenge/"+id+"/accept", ""); st != 200 {
		t.Fatalf("accept: %d", st)
	}
	for _, m := range []string{"e2e4", "d2d4"} {
		wait(id, func(g fakelichess.GameInfo) bool { return len(g.Moves)%2 == 0 })
		if st, b := r.do("POST", "/api/bot/game/"+id+"/move/"+m, ""); st != 200 {
			t.Fatalf("move %s: %d %s", m, st, b)
		}
	}
	wait(id, func(g fakelichess.GameInfo) bool { return len(g.Moves) == 4 })
	if err := srv.OpponentResignOnTurn(id); err != nil {
		t.Fatal(err)
	}
	if g, _ := srv.Game(id); g.Status != "started" {
		t.Fatalf("resigned on the bot's turn: %s", g.Status)
	}
	if st, b := r.do("POST", "/api/bot/game/"+id+"/move/g1f3", ""); st != 200 {
		t.Fatalf("the bot's move after the request: %d %s", st, b)
	}
	g := wait(id, func(g fakelichess.GameInfo) bool { return g.Status != "started" })
	if g.Status != "resign" || g.Winner != "white" || len(g.Moves) != 5 {
		t.Fatalf("game ended %s, winner %q after %d plies; want the opponent's resignation after the bot's move", g.Status, g.Winner, len(g.Moves))
	}

	// On its own turn (an opponent that takes an hour) it resigns at once;
	// after one move that is an abort, as in lila.
	slow := fakelichess.New(fakelichess.Options{Seed: 3, OpponentDelay: time.Hour})
	defer slow.Close()
	r = raw{t: t, srv: slow, token: slow.Token()}
	id = slow.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	if st, _ := r.do("POST", "/api/challenge/"+id+"/accept", ""); st != 200 {
		t.Fatalf("accept: %d", st)
	}
	if st, b := r.do("POST", "/api/bot/game/"+id+"/move/e2e4", ""); st != 200 {
		t.Fatalf("move: %d %s", st, b)
	}
	if err := slow.OpponentResignOnTurn(id); err != nil {
		t.Fatal(err)
	}
	if g, _ := slow.Game(id); g.Status != "aborted" {
		t.Fatalf("on its turn after one move: %s, want aborted at once", g.Status)
	}
}
