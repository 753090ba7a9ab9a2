package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// briefOpponent plays random moves and resigns after the third move of
// the game's sixth ply: short games in which the bot really moves.
func briefOpponent() fakelichess.Opponent {
	random := fakelichess.RandomMover(7)
	return func(ctx context.Context, g *board.Game, left, inc time.Duration) board.Move {
		if len(g.Moves()) >= 6 {
			return board.NoMove
		}
		return random(ctx, g, left, inc)
	}
}

// fastTourneys shortens the tournament manager's periods for tests.
func fastTourneys(s *Service) {
	s.tourneyTiming = &tourneyTimings{pairRefresh: 2 * time.Second, poll: 300 * time.Millisecond,
		retryMin: 100 * time.Millisecond, retryMax: time.Second}
}

// TestArenaOnTheFake is issue 17's arena: a "10 minute" arena on an
// accelerated clock. The bot joins, plays its pairings back to back while
// a challenge that would overload it is declined, and on shutdown (the
// cancel that SIGTERM does) withdraws: the fake records the withdraw and
// pairs it no more until the arena ends.
func TestArenaOnTheFake(t *testing.T) {
	t.Parallel()
	const id = "arena10m"
	h := setup(t, fakelichess.Options{}, map[string]string{
		"PONDEROSA_TOURNAMENTS": "arena:" + id, "PONDEROSA_MAX_GAMES": "1", "PONDEROSA_QUEUE": "0"})
	start := time.Now()
	h.srv.CreateArena(fakelichess.TournamentSpec{ID: id, Bots: true, Minutes: 10, Duration: 26 * time.Second,
		ClockLimit: 10 * time.Second, Opponent: briefOpponent(), PairDelay: 2 * time.Second})
	h.beforeRun = fastTourneys
	h.start()

	const want = 3
	h.poll("three arena games played", 24*time.Second, func() bool {
		info, _ := h.srv.Tournament(id)
		done := 0
		for _, g := range info.Games {
			if gi, _ := h.srv.Game(g); gi.Over() {
				done++
			}
		}
		// Between two pairings, the last game's goroutine gone (the
		// service's state: polled).
		return done >= want && info.Playing == "" && h.svc.activeGames() == 0
	})
	played := time.Since(start)
	info, _ := h.srv.Tournament(id)
	if info.Joins < 1 || !info.Joined {
		t.Fatalf("arena: %+v", info)
	}
	var prevEnd time.Time
	for i, gid := range info.Games[:want] {
		g, _ := h.srv.Game(gid)
		if g.TournamentID != id || g.Status != "resign" || g.Winner != g.BotColor || len(g.Moves) < 5 {
			t.Errorf("game %d: %+v", i, g)
		}
		if i > 0 && g.Started.Before(prevEnd) {
			t.Errorf("game %d started before the previous one ended", i)
		}
		prevEnd = g.Finished
	}
	if n := h.srv.CountRequests("POST", "/api/bot/game/"+info.Games[0]+"/abort"); n != 0 {
		t.Errorf("tried to abort a tournament game %d times", n)
	}
	if n := h.srv.CountRequests("POST", "/api/challenge/"); n != 0 {
		t.Errorf("%d challenge calls: a tournament game is no challenge", n)
	}

	// Between two pairings the arena keeps the only slot: a challenge is
	// declined, "later".
	c := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	h.waitFor("challenge answered", 10*time.Second, func() bool { st, _ := h.challengeStatus(c); return st != "created" })
	if st, reason := h.challengeStatus(c); st != "declined" || reason != "later" {
		t.Errorf("challenge while in the arena: %s %s", st, reason)
	}
	var metrics strings.Builder
	h.svc.writeTourneyMetrics(&metrics)
	if m := metrics.String(); !strings.Contains(m, `ponderosa_tournaments{state="joined"} 1`) && !strings.Contains(m, `ponderosa_tournaments{state="playing"} 1`) {
		t.Errorf("metrics:\n%s", metrics.String())
	}
	views := h.svc.liveSnapshot().Bot.Tournaments
	if len(views) != 1 || views[0].Tournament != "arena:"+id || (views[0].State != "joined" && views[0].State != "playing") {
		t.Errorf("status: %+v", views)
	}

	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	info, _ = h.srv.Tournament(id)
	if info.Withdraws != 1 || info.Joined {
		t.Fatalf("after shutdown: %+v\nlogs:\n%s", info, h.logs.String())
	}
	if v := h.svc.liveSnapshot().Bot.Tournaments; len(v) != 1 || v[0].State != "withdrawn" {
		t.Errorf("status after shutdown: %+v", v)
	}
	n := len(info.Games)
	// No pairing until the end of the arena (the fake pairs a joined free
	// bot within 50 ms).
	h.waitFor("arena over", 30*time.Second, func() bool {
		i, _ := h.srv.Tournament(id)
		return i.Finished || len(i.Games) > n
	})
	if info, _ := h.srv.Tournament(id); len(info.Games) != n || info.PairedAfterWithdraw != 0 {
		t.Errorf("paired after the withdraw: %+v", info)
	}
	t.Logf("%d arena games in %v; arena over after %v", n, played.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

// TestTournamentJoinErrors: each way a join fails, and what the bot does:
// a permanent refusal is reported and never retried; a 429 is waited out
// (Retry-After) and a pause retried with backoff, then joined.
func TestTournamentJoinErrors(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{Teams: []string{"ours"}}, map[string]string{
		"PONDEROSA_TOURNAMENTS": "arena:nobots,arena:secret:password=wrong,arena:battle,arena:limited,arena:paused,swiss:sw1:password=pw,arena:gone",
	})
	hour := time.Hour
	for _, sp := range []fakelichess.TournamentSpec{
		{ID: "nobots", StartsIn: hour},
		{ID: "secret", Bots: true, Password: "right", StartsIn: hour},
		{ID: "battle", Bots: true, Teams: []string{"ours", "theirs"}, StartsIn: hour},
		{ID: "limited", Bots: true, StartsIn: hour},
		{ID: "paused", Bots: true, StartsIn: hour},
	} {
		h.srv.CreateArena(sp)
	}
	h.srv.CreateSwiss(fakelichess.TournamentSpec{ID: "sw1", Bots: true, Password: "pw", StartsIn: hour})
	h.srv.InjectFault(fakelichess.Fault{Method: "POST", Path: "/api/tournament/limited/join", Status: 429,
		Body: `{"error":"Too many requests. Try again later."}`, RetryAfter: time.Second})
	h.srv.InjectFault(fakelichess.Fault{Method: "POST", Path: "/api/tournament/paused/join", Status: 400,
		Body: `{"error":"Your pause is not over yet"}`, Count: 2})
	h.beforeRun = fastTourneys
	h.start()

	want := map[string]struct{ state, err string }{
		"arena:nobots":  {"refused", "Bot players are not allowed"},
		"arena:secret":  {"refused", "Wrong entry code"},
		"arena:battle":  {"refused", "Missing team"},
		"arena:limited": {"joined", ""},
		"arena:paused":  {"joined", ""},
		"swiss:sw1":     {"joined", ""},
		"arena:gone":    {"refused", "This tournament no longer exists"},
	}
	settled := func() bool {
		views := h.svc.liveSnapshot().Bot.Tournaments
		for _, v := range views {
			if v.State != want[v.Tournament].state {
				return false
			}
		}
		return len(views) == len(want)
	}
	h.poll("every tournament joined or refused", 20*time.Second, settled)
	for _, v := range h.svc.liveSnapshot().Bot.Tournaments {
		if w := want[v.Tournament]; !strings.Contains(v.Error, w.err) || (w.err == "" && v.Error != "") {
			t.Errorf("%s: %q, want %q", v.Tournament, v.Error, w.err)
		}
		if strings.Contains(v.Error, "wrong") || strings.Contains(v.Error, "pw") {
			t.Errorf("%s: the error shows a password: %q", v.Tournament, v.Error)
		}
	}
	// Refusals are not retried.
	for _, id := range []string{"nobots", "secret", "battle", "gone"} {
		if n := h.srv.CountRequests("POST", "/api/tournament/"+id+"/join"); n > 1 {
			t.Errorf("%s: %d joins after a permanent refusal", id, n)
		}
	}
	// The 429 was waited out: the next join came after its Retry-After.
	var joins []time.Time
	for _, r := range h.srv.Requests() {
		if r.Path == "/api/tournament/limited/join" {
			joins = append(joins, r.Time)
		}
	}
	if len(joins) != 2 || joins[1].Sub(joins[0]) < 900*time.Millisecond {
		t.Errorf("joins of the rate-limited arena at %v", joins)
	}
	if n := h.srv.CountRequests("POST", "/api/tournament/paused/join"); n != 3 {
		t.Errorf("paused arena: %d joins, want 3 (two refusals, then joined)", n)
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	// Shutdown withdraws from the three joined, from nothing else.
	for id, n := range map[string]int{"limited": 1, "paused": 1, "nobots": 0, "secret": 0} {
		if got := h.srv.CountRequests("POST", "/api/tournament/"+id+"/withdraw"); got != n {
			t.Errorf("%s: %d withdraws, want %d", id, got, n)
		}
	}
	if got := h.srv.CountRequests("POST", "/api/swiss/sw1/withdraw"); got != 1 {
		t.Errorf("swiss: %d withdraws", got)
	}
}

// TestTournamentGameNeverAborted: an arena opponent who never moves is not
// aborted by the bot (Lichess refuses to abort tournament games); the
// game ends by Lichess's own first-move timeout.
func TestTournamentGameNeverAborted(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{FirstMoveTimeout: 7 * time.Second}, map[string]string{
		"PONDEROSA_TOURNAMENTS": "arena:silent", "PONDEROSA_ABORT_AFTER": "5s"})
	h.srv.CreateArena(fakelichess.TournamentSpec{ID: "silent", Bots: true, ClockLimit: time.Minute,
		Opponent: fakelichess.Slow(time.Hour, fakelichess.RandomMover(1))})
	h.beforeRun = fastTourneys
	h.start()
	var gid string
	h.waitFor("paired", 10*time.Second, func() bool {
		info, _ := h.srv.Tournament("silent")
		if len(info.Games) > 0 {
			gid = info.Games[0]
		}
		return gid != ""
	})
	g := h.waitOver(gid, 20*time.Second)
	if n := h.srv.CountRequests("POST", "/api/bot/game/"+gid+"/abort"); n != 0 || g.Status != "aborted" || len(g.Moves) != 1 {
		t.Errorf("silent arena opponent: %s after %d plies, %d abort requests", g.Status, len(g.Moves), n)
	}
}
