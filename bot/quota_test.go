package bot

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// TestDayInTheLife: a busy bot meets Lichess's daily bot-vs-bot quota (3
// games here, in a window of a few seconds instead of a day). Bot
// challenges keep coming while two games run. After the quota: the running
// games go on without a delayed move, exactly one accept call meets the
// quota, every later bot challenge is declined with "later" within a
// second without an accept call, the status says until when, a human's
// challenge is accepted and played, and after the reset bot challenges are
// accepted again.
func TestDayInTheLife(t *testing.T) {
	t.Parallel()
	const window = 8 * time.Second
	h := setup(t, fakelichess.Options{BotGameQuota: 3, BotGameQuotaWindow: window,
		Opponent: fakelichess.Slow(100*time.Millisecond, sparringEngine(300))},
		map[string]string{"PONDEROSA_MAX_GAMES": "4", "PONDEROSA_QUEUE": "0", "PONDEROSA_PONDER": "false"})
	h.start()
	n := 0
	bot := func() fakelichess.ChallengeSpec {
		n++
		return fakelichess.ChallengeSpec{Challenger: fakelichess.Player{Name: fmt.Sprintf("Bot%d", n), Title: "BOT", Rating: 2000},
			ClockLimit: time.Minute, Color: "white"}
	}
	accepts := func(id string) int { return h.srv.CountRequests("POST", "/api/challenge/"+id+"/accept") }

	// Three bot games: two keep running, the third ends at once.
	running := []string{h.srv.Challenge(bot()), h.srv.Challenge(bot())}
	for _, id := range running {
		h.waitAccepted(id)
	}
	third := h.srv.Challenge(bot())
	h.waitAccepted(third)
	h.waitFor("third game started", 10*time.Second, func() bool { _, ok := h.srv.Game(third); return ok })
	if err := h.srv.OpponentResign(third); err != nil {
		t.Fatal(err)
	}
	h.waitOver(third, 10*time.Second)

	// The fourth bot challenge meets the quota: one accept call, then "later".
	fourth := h.srv.Challenge(bot())
	h.waitFor("fourth answered", 10*time.Second, func() bool { st, _ := h.challengeStatus(fourth); return st != "created" })
	if st, reason := h.challengeStatus(fourth); st != "declined" || reason != ReasonLater || accepts(fourth) != 1 {
		t.Fatalf("challenge over the quota: %s %q after %d accept calls", st, reason, accepts(fourth))
	}
	movesAtQuota := map[string]int{}
	for _, id := range running {
		g, _ := h.srv.Game(id)
		movesAtQuota[id] = len(g.Moves)
	}

	// The status says until when, in the words of the issue.
	want := regexp.MustCompile(`^bot-vs-bot games exhausted until \d\d:\d\d$`)
	if l := h.svc.Snapshot().Limits; len(l) != 1 || !want.MatchString(l[0]) {
		t.Fatalf("status limits = %q", l)
	}
	if !strings.Contains(h.logs.String(), "bot-vs-bot games exhausted until") {
		t.Error("the log does not say the bot games are exhausted")
	}

	// More bot challenges: each declined with "later" within a second, no
	// accept call.
	for range 3 {
		id := h.srv.Challenge(bot())
		h.waitFor("bot challenge declined", time.Second, func() bool { st, _ := h.challengeStatus(id); return st != "created" })
		if st, reason := h.challengeStatus(id); st != "declined" || reason != ReasonLater || accepts(id) != 0 {
			t.Fatalf("bot challenge while exhausted: %s %q, %d accept calls", st, reason, accepts(id))
		}
	}

	// A human is accepted and played.
	human := h.srv.Challenge(fakelichess.ChallengeSpec{Challenger: fakelichess.Player{Name: "Carol"}, ClockLimit: time.Minute,
		Color: "white", Opponent: quietWhite()})
	h.waitAccepted(human)
	h.resignAfter(human, 4, 20*time.Second)

	// The running games went on, no move waited on a pause.
	for _, id := range running {
		h.waitFor("running game moves on", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= movesAtQuota[id]+2 })
	}
	snap := h.svc.Snapshot()
	if snap.MoveErrors != 0 || snap.Latency.Max > time.Second {
		t.Errorf("moves delayed: %d move errors, longest time added beyond the search %v", snap.MoveErrors, snap.Latency.Max)
	}

	// After the reset, bots are welcome again.
	h.waitFor("quota reset", window+10*time.Second, func() bool { return len(h.svc.Snapshot().Limits) == 0 })
	again := h.srv.Challenge(bot())
	h.waitAccepted(again)
	if accepts(again) != 1 {
		t.Errorf("%d accept calls after the reset", accepts(again))
	}
	for _, id := range append(running, again) {
		h.waitFor("game started", 10*time.Second, func() bool { _, ok := h.srv.Game(id); return ok })
		if err := h.srv.OpponentResign(id); err != nil {
			t.Fatal(err)
		}
		h.waitOver(id, 10*time.Second)
	}
	for _, g := range h.srv.Games() {
		if g.Status == "outoftime" {
			t.Errorf("game %s lost on time", g.ID)
		}
	}
}

// TestAnonymousChallengers: a logged-out challenger is a human named
// "Anonymous" for the bot, declined only when PONDEROSA_ACCEPT_ANONYMOUS is
// false.
func TestAnonymousChallengers(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{Opponent: fakelichess.Slow(50*time.Millisecond, sparringEngine(200))},
		map[string]string{"PONDEROSA_ACCEPT_BOTS": "false", "PONDEROSA_GREETING": "Good luck, {opponent}!"})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{Anonymous: true, ClockLimit: time.Minute, Color: "white"})
	h.waitAccepted(id)
	h.waitFor("the bot moved", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 2 })
	if err := h.srv.OpponentResign(id); err != nil {
		t.Fatal(err)
	}
	h.waitOver(id, 10*time.Second)
	if !strings.Contains(h.logs.String(), "challenger=Anonymous") {
		t.Error("the log does not name the anonymous challenger")
	}
	if g, _ := h.srv.Game(id); !slices.ContainsFunc(g.BotChat, func(s string) bool { return strings.Contains(s, "Anonymous") }) {
		t.Errorf("the greeting does not name the anonymous opponent: %q", g.BotChat)
	}

	h2 := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_ACCEPT_ANONYMOUS": "false"})
	h2.start()
	id = h2.srv.Challenge(fakelichess.ChallengeSpec{Anonymous: true, ClockLimit: time.Minute})
	h2.waitFor("declined", 10*time.Second, func() bool { st, _ := h2.challengeStatus(id); return st != "created" })
	if st, reason := h2.challengeStatus(id); st != "declined" || reason != ReasonGeneric {
		t.Fatalf("anonymous with PONDEROSA_ACCEPT_ANONYMOUS=false: %s %q", st, reason)
	}
	human := h2.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	h2.waitAccepted(human)
}

// TestRateLimitedChat: a 429 on a game action (here the greeting) is
// retried within the game: Lichess did not post it, so posting again
// cannot double it. A 5xx is not retried (the client's rule for chat).
func TestRateLimitedChat(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{Opponent: fakelichess.Slow(50*time.Millisecond, sparringEngine(200))}, nil)
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	h.srv.InjectFault(fakelichess.Fault{Method: "POST", Path: "/api/bot/game/" + id + "/chat", Status: 429})
	h.waitAccepted(id)
	h.waitFor("greeting posted", 10*time.Second, func() bool {
		g, _ := h.srv.Game(id)
		return slices.ContainsFunc(g.BotChat, func(s string) bool { return strings.Contains(s, "Good luck") })
	})
	if n := h.srv.CountRequests("POST", "/api/bot/game/"+id+"/chat"); n < 2 {
		t.Errorf("%d chat requests: the 429 was not retried", n)
	}
	if err := h.srv.OpponentResign(id); err != nil {
		t.Fatal(err)
	}
	h.waitOver(id, 10*time.Second)
}

// TestMatchmakingLimits: matchmaking honours the opponent's limit (a 400
// with ratelimit.seconds: try that bot again after those seconds, not an
// hour later) and its own quota (a 429: no challenge until the reset).
func TestMatchmakingLimits(t *testing.T) {
	t.Parallel()
	const window = 4 * time.Second
	h := setup(t, fakelichess.Options{
		OnlineBots:   []fakelichess.Player{{ID: "fakebot1", Name: "FakeBot1", Title: "BOT", Rating: 1500}},
		BotGameQuota: 1, BotGameQuotaWindow: window,
		Opponent: fakelichess.Slow(50*time.Millisecond, sparringEngine(100)),
	}, map[string]string{"PONDEROSA_MATCHMAKING": "true", "PONDEROSA_MATCHMAKING_IDLE": "1s",
		"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "1+0", "PONDEROSA_MATCHMAKING_RATING_DIFF": "0"})
	h.srv.LimitOpponent("fakebot1", 3*time.Second)
	h.start()
	creates := func() []fakelichess.Request {
		var out []fakelichess.Request
		for _, r := range h.srv.Requests() {
			if r.Method == "POST" && r.Path == "/api/challenge/FakeBot1" {
				out = append(out, r)
			}
		}
		return out
	}
	accepted := func() []string {
		var ids []string
		for _, c := range h.srv.Challenges() {
			if !c.Incoming && c.Status == "accepted" {
				ids = append(ids, c.ID)
			}
		}
		return ids
	}
	h.waitFor("a game after the opponent's limit", 20*time.Second, func() bool { return len(accepted()) == 1 })
	cr := creates()
	if len(cr) != 2 || cr[0].Status != 400 || cr[1].Status != 200 {
		t.Fatalf("challenges: %+v", cr)
	}
	if gap := cr[1].Time.Sub(cr[0].Time); gap < 1500*time.Millisecond || gap > 10*time.Second {
		t.Errorf("challenged the limited bot again after %v, want the seconds it had left (about 2)", gap)
	}
	first := accepted()[0]
	h.waitFor("game started", 10*time.Second, func() bool { _, ok := h.srv.Game(first); return ok })
	if err := h.srv.OpponentResign(first); err != nil {
		t.Fatal(err)
	}
	h.waitOver(first, 10*time.Second)

	// Idle again: the next challenge meets our quota; then nothing until
	// the reset, then a game again.
	h.waitFor("the quota met", 20*time.Second, func() bool { c := creates(); return c[len(c)-1].Status == 429 })
	// The service reads the answer a moment after the fake wrote it: poll
	// its status (nothing on the fake changes meanwhile).
	h.poll("a limit in the status", 5*time.Second, func() bool { return len(h.svc.Snapshot().Limits) > 0 })
	if l := h.svc.Snapshot().Limits; len(l) != 1 || !strings.HasPrefix(l[0], "bot-vs-bot games exhausted until ") {
		t.Errorf("limits = %q", l)
	}
	met := len(creates())
	h.waitFor("a game after the reset", window+20*time.Second, func() bool { return len(accepted()) == 2 })
	if n := len(creates()); n != met+1 {
		t.Errorf("%d challenges while the quota was used up, want none", n-met-1)
	}
	second := accepted()[1]
	h.waitFor("game started", 10*time.Second, func() bool { _, ok := h.srv.Game(second); return ok })
	if err := h.srv.OpponentResign(second); err != nil {
		t.Fatal(err)
	}
	h.waitOver(second, 10*time.Second)
}
