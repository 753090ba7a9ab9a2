package bot

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// quietWhite is a scripted white opponent that shuffles its knights (a
// level game for a while), then plays on with the engine.
func quietWhite() fakelichess.Opponent {
	return fakelichess.Scripted([]string{"g1f3", "b1c3", "f3g1", "c3b1", "g1f3", "b1c3", "f3g1", "c3b1"}, sparringEngine(500))
}

func TestDeclineReasonsDefaultConfig(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_SPEEDS": "bullet,blitz,rapid,classical"})
	h.start()
	cases := []struct {
		name string
		spec fakelichess.ChallengeSpec
		want string
	}{
		{"ultraBullet", fakelichess.ChallengeSpec{ClockLimit: 15 * time.Second}, ReasonTooFast},
		{"correspondence", fakelichess.ChallengeSpec{Days: 3}, ReasonTimeControl},
		{"unlimited", fakelichess.ChallengeSpec{}, ReasonTimeControl},
		{"atomic", fakelichess.ChallengeSpec{Variant: "atomic", ClockLimit: 3 * time.Minute}, ReasonVariant},
	}
	for _, tc := range cases {
		id := h.srv.Challenge(tc.spec)
		h.waitFor(tc.name+" answered", 10*time.Second, func() bool { st, _ := h.challengeStatus(id); return st != "created" })
		if st, reason := h.challengeStatus(id); st != "declined" || reason != tc.want {
			t.Errorf("%s: %s %q, want declined %q", tc.name, st, reason, tc.want)
		}
	}
}

func TestDeclineReasonsConfigured(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{Opponent: fakelichess.Slow(50*time.Millisecond, sparringEngine(300))}, map[string]string{
		"PONDEROSA_VARIANTS":      "standard",
		"PONDEROSA_ACCEPT_BOTS":   "false",
		"PONDEROSA_ACCEPT_CASUAL": "false",
		"PONDEROSA_MAX_GAMES":     "1",
		"PONDEROSA_QUEUE":         "0",
		"PONDEROSA_BLOCK":         "mallory",
	})
	h.start()
	rated := fakelichess.ChallengeSpec{ClockLimit: 3 * time.Minute, Rated: true}
	decline := func(name string, spec fakelichess.ChallengeSpec, want string) {
		t.Helper()
		id := h.srv.Challenge(spec)
		h.waitFor(name+" answered", 10*time.Second, func() bool { st, _ := h.challengeStatus(id); return st != "created" })
		if st, reason := h.challengeStatus(id); st != "declined" || reason != want {
			t.Errorf("%s: %s %q, want declined %q", name, st, reason, want)
		}
	}
	s960 := rated
	s960.Variant = "chess960"
	decline("chess960", s960, ReasonStandard)
	bot := rated
	bot.Challenger = fakelichess.Player{Name: "OtherBot", Title: "BOT"}
	decline("bot", bot, ReasonNoBot)
	casual := rated
	casual.Rated = false
	decline("casual", casual, ReasonRated)
	blocked := rated
	blocked.Challenger = fakelichess.Player{Name: "Mallory"}
	decline("blocked", blocked, ReasonGeneric)

	// One game at a time, no queue: the second challenge gets "later".
	first := h.srv.Challenge(rated)
	h.waitAccepted(first)
	h.waitFor("game started", 10*time.Second, func() bool { _, ok := h.srv.Game(first); return ok })
	decline("busy", rated, ReasonLater)
	if err := h.srv.OpponentResign(first); err != nil {
		t.Fatal(err)
	}
	h.waitOver(first, 10*time.Second)
}

func TestQueueWhileBusy(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_MAX_GAMES": "1", "PONDEROSA_QUEUE": "2"})
	h.start()
	spec := fakelichess.ChallengeSpec{ClockLimit: 20 * time.Second, Opponent: sparringEngine(200)}
	a := h.srv.Challenge(spec)
	h.waitAccepted(a)
	b := h.srv.Challenge(spec)
	// Wait for the service's decision on b, not for time to pass.
	h.waitFor("second challenge queued", 10*time.Second, func() bool { return h.svc.Snapshot().Challenges["queue"] == 1 })
	if st, _ := h.challengeStatus(b); st != "created" {
		t.Fatalf("second challenge while busy: %s, want it kept waiting", st)
	}
	if err := h.srv.OpponentResign(a); err != nil {
		t.Fatal(err)
	}
	h.waitAccepted(b)
	if err := h.srv.OpponentResign(b); err != nil {
		t.Fatal(err)
	}
	h.waitOver(b, 10*time.Second)
}

func TestConcurrentGamesAndPGN(t *testing.T) {
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(300)}, map[string]string{"PONDEROSA_MAX_GAMES": "2"})
	h.start()
	specs := []fakelichess.ChallengeSpec{
		{ClockLimit: 8 * time.Second, ClockIncrement: 100 * time.Millisecond, Color: "white"},
		{ClockLimit: 8 * time.Second, ClockIncrement: 100 * time.Millisecond, Variant: "chess960", Color: "black"},
	}
	var ids []string
	for _, sp := range specs {
		id := h.srv.Challenge(sp)
		h.waitAccepted(id)
		ids = append(ids, id)
	}
	for _, id := range ids {
		g := h.waitOver(id, 120*time.Second)
		checkFair(t, g)
		if !slices.ContainsFunc(g.BotChat, func(s string) bool { return strings.Contains(s, "Good luck") }) {
			t.Errorf("game %s: no greeting in %q", id, g.BotChat)
		}
	}
	h.stop()
	for _, id := range ids {
		data, err := os.ReadFile(filepath.Join(h.cfg.PGNDir, id+".pgn"))
		if err != nil {
			t.Fatal(err)
		}
		g, _ := h.srv.Game(id)
		pgn := string(data)
		if !strings.Contains(pgn, "[%clk ") || !strings.Contains(pgn, `[GameId "`+id+`"]`) {
			t.Errorf("PGN of %s:\n%s", id, pgn)
		}
		if g.Variant == "chess960" && !strings.Contains(pgn, `[Variant "Chess960"]`) {
			t.Errorf("960 PGN without variant tag:\n%s", pgn)
		}
	}
}

func TestDrawOffers(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{
		"PONDEROSA_DRAW_MIN_MOVE": "1", "PONDEROSA_DRAW_MOVES": "1", "PONDEROSA_DRAW_SCORE": "300"})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white", Opponent: quietWhite()})
	h.waitAccepted(id)
	h.waitFor("two bot moves", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 4 })
	if err := h.srv.OpponentOfferDraw(id); err != nil {
		t.Fatal(err)
	}
	g := h.waitOver(id, 10*time.Second)
	if g.Status != "draw" {
		t.Errorf("level game, draw offered: %s %s", g.Status, g.Winner)
	}
}

func TestDrawDeclinedEarlyAndTakebackDeclined(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, nil) // defaults: no draw before move 30, no takebacks
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white", Opponent: quietWhite()})
	h.waitAccepted(id)
	h.waitFor("bot moved", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 2 })
	if err := h.srv.OpponentOfferDraw(id); err != nil {
		t.Fatal(err)
	}
	h.waitFor("draw declined", 10*time.Second, func() bool {
		return h.srv.CountRequests("POST", "/api/bot/game/"+id+"/draw/no") > 0
	})
	h.waitFor("white moved", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 3 })
	before, _ := h.srv.Game(id)
	if err := h.srv.OpponentProposeTakeback(id); err != nil {
		t.Fatal(err)
	}
	h.waitFor("takeback declined", 10*time.Second, func() bool {
		return h.srv.CountRequests("POST", "/api/bot/game/"+id+"/takeback/no") > 0
	})
	h.waitFor("game went on", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) > len(before.Moves) })
	g, _ := h.srv.Game(id)
	if g.Over() || !slices.Equal(g.Moves[:len(before.Moves)], before.Moves) {
		t.Errorf("after the declined takeback: %s, moves %v then %v", g.Status, before.Moves, g.Moves)
	}
	h.srv.OpponentResign(id)
	h.waitOver(id, 10*time.Second)
}

func TestAbortWhenOpponentNeverMoves(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{FirstMoveTimeout: time.Minute}, map[string]string{"PONDEROSA_ABORT_AFTER": "5s"})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white",
		Opponent: fakelichess.Slow(time.Hour, fakelichess.RandomMover(1))})
	h.waitAccepted(id)
	g := h.waitOver(id, 20*time.Second)
	if g.Status != "aborted" || h.srv.CountRequests("POST", "/api/bot/game/"+id+"/abort") == 0 {
		t.Errorf("opponent never moved: %s, abort requests %d", g.Status, h.srv.CountRequests("POST", "/api/bot/game/"+id+"/abort"))
	}
}

func TestClaimVictory(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{ClaimWinAfter: time.Second}, nil)
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white", Opponent: quietWhite()})
	h.waitAccepted(id)
	h.waitFor("moves", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 4 })
	if err := h.srv.OpponentLeave(id); err != nil {
		t.Fatal(err)
	}
	g := h.waitOver(id, 15*time.Second)
	if g.Status != "timeout" || g.Winner != g.BotColor {
		t.Errorf("opponent left: %s, winner %q (bot %s)", g.Status, g.Winner, g.BotColor)
	}
}

func TestChatCommands(t *testing.T) {
	t.Parallel()
	// No cooldown here: three commands in a row get three answers.
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_CHAT_COOLDOWN": "0s"})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white", Opponent: quietWhite()})
	h.waitAccepted(id)
	h.waitFor("moves", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 2 })
	for _, cmd := range []string{"!name", "!eval", "!help"} {
		if err := h.srv.OpponentSay(id, cmd); err != nil {
			t.Fatal(err)
		}
	}
	h.waitFor("answers", 10*time.Second, func() bool {
		g, _ := h.srv.Game(id)
		joined := strings.Join(g.BotChat, "\n")
		return strings.Contains(joined, "ponderosa test") && strings.Contains(joined, "Commands:") &&
			strings.Contains(joined, "opponent")
	})
	h.srv.OpponentResign(id)
	h.waitOver(id, 10*time.Second)
}

// TestChatFloodGetsOneReply: fifty "!name" lines in the player room get
// one answer per cooldown, not fifty requests (issue 13).
func TestChatFloodGetsOneReply(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_CHAT_COOLDOWN": "1m", "PONDEROSA_GREETING": "none",
		"PONDEROSA_GREETING_SPECTATOR": "none", "PONDEROSA_GOODBYE": "none", "PONDEROSA_GOODBYE_SPECTATOR": "none"})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white", Opponent: quietWhite()})
	h.waitAccepted(id)
	h.waitFor("moves", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 2 })
	for range 50 {
		if err := h.srv.OpponentSay(id, "!name"); err != nil {
			t.Fatal(err)
		}
	}
	h.waitFor("an answer", 10*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.BotChat) > 0 })
	// The bot's move after the flood is the event to wait on: the chat
	// lines came before it on the stream.
	g0, _ := h.srv.Game(id)
	h.waitFor("the next move", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= len(g0.Moves)+2 })
	h.srv.OpponentResign(id)
	h.waitOver(id, 10*time.Second)
	if n := h.srv.CountRequests("POST", "/api/bot/game/"+id+"/chat"); n != 1 {
		t.Errorf("50 commands got %d chat requests, want 1", n)
	}
}

func TestStreamDropsMidGame(t *testing.T) {
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(300)}, nil)
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 10 * time.Second, ClockIncrement: 100 * time.Millisecond})
	h.waitAccepted(id)
	stop := make(chan struct{})
	var drops atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(400 * time.Millisecond):
				h.srv.DropStreams()
				drops.Add(1)
			}
		}
	})
	g := h.waitOver(id, 120*time.Second)
	close(stop)
	wg.Wait()
	checkFair(t, g)
	if g.Status == "outoftime" {
		t.Errorf("flag with %d stream drops", drops.Load())
	}
	t.Logf("%d stream drops, %d plies, %s", drops.Load(), len(g.Moves), g.Status)
}

func TestRestartResumesGame(t *testing.T) {
	h := setup(t, fakelichess.Options{Opponent: fakelichess.Slow(100*time.Millisecond, sparringEngine(300))},
		map[string]string{"PONDEROSA_SHUTDOWN": "leave"})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 12 * time.Second, ClockIncrement: 100 * time.Millisecond})
	h.waitAccepted(id)
	h.waitFor("some moves", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 6 })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	g, _ := h.srv.Game(id)
	if g.Over() {
		t.Fatalf("leave mode ended the game: %s", g.Status)
	}
	// A new process: a new client and service against the same server.
	h.client = newTestClient(h.srv, h.cfg)
	defer h.client.Close()
	h.start()
	n := len(g.Moves)
	h.waitFor("resumed play", 30*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= n+4 || g.Over() })
	if g, _ = h.srv.Game(id); !g.Over() {
		h.srv.OpponentResign(id)
	}
	g = h.waitOver(id, 30*time.Second)
	checkFair(t, g)
	if !strings.Contains(h.logs.String(), "resuming game") {
		t.Error("no resume logged")
	}
}

func TestShutdownWaitsForGames(t *testing.T) {
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(300)},
		map[string]string{"PONDEROSA_SHUTDOWN": "wait", "PONDEROSA_DRAIN_TIMEOUT": "2m"})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 5 * time.Second})
	h.waitAccepted(id)
	h.waitFor("started", 10*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 2 })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	g, _ := h.srv.Game(id)
	if !g.Over() {
		t.Fatalf("Run returned with the game still going (%d plies)", len(g.Moves))
	}
	checkFair(t, g)
	// Challenges after shutdown are not accepted: the event stream is
	// closed, so none can reach the service.
	h.waitFor("event stream closed", 10*time.Second, func() bool { return !h.srv.EventStreamOpen() })
	late := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	if st, _ := h.challengeStatus(late); st != "created" || h.srv.CountRequests("POST", "/api/challenge/"+late) != 0 {
		t.Errorf("challenge after shutdown: %s, %d requests for it", st, h.srv.CountRequests("POST", "/api/challenge/"+late))
	}
}

// virtualClock makes the client's waits instant while keeping count of
// the time it would have slept.
type virtualClock struct {
	mu      sync.Mutex
	offset  time.Duration
	longest time.Duration
}

func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.offset += max(d, 0)
	c.longest = max(c.longest, d)
	c.mu.Unlock()
	return ctx.Err()
}

func TestRateLimitedMove(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{Opponent: fakelichess.Slow(300*time.Millisecond, sparringEngine(300))}, nil)
	clock := &virtualClock{}
	h.client = lichess.New(lichess.Options{BaseURL: h.cfg.URL, Token: h.cfg.Token.Reveal(), Clock: clock,
		ReconnectMin: 20 * time.Millisecond, RetryBackoff: 20 * time.Millisecond})
	defer h.client.Close()
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 20 * time.Second, Color: "white"})
	h.waitAccepted(id)
	// Two 429s in a row on this game's moves: the game retries the same
	// move with backoff within its clock; nothing else stops.
	h.srv.InjectFault(fakelichess.Fault{Method: "POST", Path: "/api/bot/game/" + id + "/move", Status: 429, Count: 2})
	h.waitFor("some moves", 30*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 6 })
	// The game waited for the pause itself (about lichess.GameActionPause
	// per 429, real time): the client never slept a minute.
	clock.mu.Lock()
	longest := clock.longest
	clock.mu.Unlock()
	if longest >= lichess.RateLimitPause {
		t.Errorf("after a 429 on a move the client waited %v", longest)
	}
	if n := h.srv.CountRequests("POST", "/api/bot/game/"+id+"/move"); n < 5 {
		t.Errorf("%d move requests", n)
	}
	if snap := h.svc.Snapshot(); snap.MoveRetries != 2 || snap.MoveErrors != 0 {
		t.Errorf("after two 429s: %d retries, %d move errors; want 2 and 0", snap.MoveRetries, snap.MoveErrors)
	}
	if !strings.Contains(h.logs.String(), "retrying this game's move") {
		t.Error("no retry in the log")
	}
	h.srv.OpponentResign(id)
	g := h.waitOver(id, 10*time.Second)
	if g.Winner != g.BotColor {
		t.Errorf("game after the 429: %s %s", g.Status, g.Winner)
	}
}

// TestMovePostedWhenTheOverheadExceedsTheClock: with less time on the
// clock than the estimated overhead (a slow link learned, a game down to
// its increment), the move is still sent and its answer awaited: Lichess
// decides whether it came in time. The overhead is only a reason not to
// retry. (A deadline of clock less overhead once cut such moves before
// they left, and the bot flagged with time on its clock.)
func TestMovePostedWhenTheOverheadExceedsTheClock(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(50)}, map[string]string{"PONDEROSA_MOVE_OVERHEAD": "3s"})
	h.srv.SetLatency(50 * time.Millisecond)
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Second, ClockIncrement: time.Second, Color: "white"})
	h.waitAccepted(id)
	h.waitFor("12 plies", 30*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 12 || g.Over() })
	if g, _ := h.srv.Game(id); g.Over() {
		t.Fatalf("game ended %s (winner %q) after %d plies; %s", g.Status, g.Winner, len(g.Moves), clockTrail(g))
	}
	if snap := h.svc.Snapshot(); snap.MoveErrors != 0 {
		t.Errorf("%d move errors:\n%s", snap.MoveErrors, h.logs.Grep("move not posted"))
	}
	h.srv.OpponentResign(id)
	h.waitOver(id, 10*time.Second)
}

// TestFailedMoveSearchedAgainOnTheSameClock: a move post that fails for
// good (500s past the client's retries) is searched again at once, and
// the new search's budget counts the time since the gameState arrived:
// the first search and the failed post are spent. (The retry once started
// from a fresh arrival time and planned with time already gone.)
func TestFailedMoveSearchedAgainOnTheSameClock(t *testing.T) {
	t.Parallel()
	const latency = 200 * time.Millisecond
	// Pondering off: a ponder hit plays without a search of its own, so
	// the move whose post fails must have come from a logged search.
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(50)}, map[string]string{"PONDEROSA_PONDER": "false"})
	h.srv.SetLatency(latency)
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 30 * time.Second, Color: "black"})
	h.waitAccepted(id)
	h.waitFor("4 plies", 30*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 4 || g.Over() })
	// Every attempt of the next post fails: the first try and the
	// client's three retries.
	h.srv.InjectFault(fakelichess.Fault{Method: "POST", Path: "/api/bot/game/" + id + "/move", Status: 500, Count: 4})
	h.waitFor("a failed move post", 30*time.Second, func() bool { return h.svc.Snapshot().MoveErrors > 0 })
	// The search after it is the first one logged after the failure, and
	// it is for the same ply as the search before the failure.
	var before, again string
	h.waitFor("the search after it", 30*time.Second, func() bool {
		failed := false
		for _, l := range strings.Split(h.logs.String(), "\n") {
			switch {
			case strings.Contains(l, `msg="move not posted"`):
				failed = true
			case strings.Contains(l, "msg=search ") && !failed:
				before = l
			case strings.Contains(l, "msg=search ") && failed:
				again = l
				return true
			}
		}
		return false
	})
	if fieldOf(before, "ply") != fieldOf(again, "ply") {
		t.Errorf("the search after the failed post is for another ply:\nbefore: %s\nafter:  %s", before, again)
	}
	waited, err := strconv.ParseFloat(fieldOf(again, "waited_ms"), 64)
	if err != nil {
		t.Fatalf("search line %q: %v", again, err)
	}
	if min := float64(3 * latency / time.Millisecond); waited < min {
		t.Errorf("the search after the failed post counts %.1f ms as spent since its gameState, want at least %.0f (four attempts of %v each): %s", waited, min, latency, again)
	}
	h.srv.OpponentResign(id)
	h.waitOver(id, 10*time.Second)
}

// fieldOf returns the value of key in a text log line ("" without it).
func fieldOf(line, key string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

func TestMatchmaking(t *testing.T) {
	t.Parallel()
	var answers atomic.Int32
	h := setup(t, fakelichess.Options{
		// The first bot challenged says "later", the next one accepts.
		AnswerChallenge: func(c fakelichess.ChallengeInfo) string {
			if answers.Add(1) == 1 {
				return "later"
			}
			return ""
		},
		Opponent: fakelichess.Slow(100*time.Millisecond, sparringEngine(100)),
	}, map[string]string{"PONDEROSA_MATCHMAKING": "true", "PONDEROSA_MATCHMAKING_IDLE": "1s",
		"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "1+0", "PONDEROSA_MATCHMAKING_RATING_DIFF": "0"})
	h.start()
	var game string
	h.waitFor("a matchmaking game", 30*time.Second, func() bool {
		for _, c := range h.srv.Challenges() {
			if !c.Incoming && c.Status == "accepted" {
				game = c.ID
				return true
			}
		}
		return false
	})
	var first fakelichess.ChallengeInfo
	for _, c := range h.srv.Challenges() {
		if !c.Incoming && c.Status == "declined" {
			first = c
		}
	}
	g, _ := h.srv.Game(game)
	if first.ID == "" || first.Opponent.ID == g.Opponent.ID {
		t.Errorf("after a decline by %q the bot challenged %q", first.Opponent.ID, g.Opponent.ID)
	}
	if first.Spec.ClockLimit != time.Minute || first.Spec.Rated {
		t.Errorf("challenge spec %+v", first.Spec)
	}
	h.waitFor("bot playing", 10*time.Second, func() bool { g, _ := h.srv.Game(game); return len(g.Moves) >= 2 })
	h.srv.OpponentResign(game)
	h.waitOver(game, 10*time.Second)
}

func TestResignWhenHopeless(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_RESIGN": "true", "PONDEROSA_RESIGN_MOVES": "2"})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white", Variant: "fromPosition",
		FEN: "4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1", Opponent: fakelichess.Scripted([]string{"a1a2", "b1b2", "a2a3"}, sparringEngine(100))})
	h.waitAccepted(id)
	g := h.waitOver(id, 30*time.Second)
	if g.Status != "resign" || g.Winner != "white" || len(g.Moves) > 6 {
		t.Errorf("two queens down: %s, winner %q after %d plies", g.Status, g.Winner, len(g.Moves))
	}
}
