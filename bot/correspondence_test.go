package bot

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// botMoves counts the moves the bot has made in g.
func botMoves(g fakelichess.GameInfo) int {
	if g.BotColor == "white" {
		return (len(g.Moves) + 1) / 2
	}
	return len(g.Moves) / 2
}

// TestCorrespondenceVisits follows one correspondence game through its
// visits: opened for our move on gameStart, closed once it waits for the
// opponent (PONDEROSA_CORRESPONDENCE_DISCONNECT), nothing on the event
// stream when the opponent replies, opened again by a check-in, and
// opened once more to record the end when the opponent resigns while it
// is closed; the greeting is said once. Meanwhile
// PONDEROSA_MAX_CORRESPONDENCE_GAMES declines a second correspondence
// challenge with "later" while a real-time challenge takes the one
// real-time slot.
func TestCorrespondenceVisits(t *testing.T) {
	t.Parallel()
	opp, gate := gatedOpponent(fakelichess.RandomMover(7))
	h := setup(t, fakelichess.Options{Opponent: opp, OpponentDelay: time.Millisecond}, map[string]string{
		"PONDEROSA_CORRESPONDENCE": "true", "PONDEROSA_MAX_CORRESPONDENCE_GAMES": "1", "PONDEROSA_MAX_GAMES": "1",
		"PONDEROSA_CORRESPONDENCE_MOVE_TIME": "20ms", "PONDEROSA_CORRESPONDENCE_CHECKIN": "1s",
		"PONDEROSA_CORRESPONDENCE_DISCONNECT": "100ms", "PONDEROSA_PONDER": "false"})
	mem := store.NewMemory()
	h.store = mem
	h.start()
	streams := func(id string) int { return h.srv.CountRequests("GET", "/api/bot/game/stream/"+id) }
	game := func(id string) fakelichess.GameInfo { g, _ := h.srv.Game(id); return g }

	// Opened for our first move on gameStart, closed after it.
	id := h.srv.Challenge(fakelichess.ChallengeSpec{Days: 3, Color: "black", Challenger: fakelichess.Player{Name: "Carla"}})
	h.waitAccepted(id)
	h.waitFor("first move, then closed", 20*time.Second, func() bool {
		return len(game(id).Moves) == 1 && h.srv.GameStreams(id) == 0
	})

	if c := h.svc.Snapshot().Correspondence; c.Games != 1 || c.Open > 1 || c.Max != 1 || c.Slots != corrSlots(1) { // Open: the visit may still be ending
		t.Errorf("/status correspondence: %+v", c)
	}
	var metrics strings.Builder
	h.svc.stats.writeMetrics(&metrics)
	if !strings.Contains(metrics.String(), "\nponderosa_correspondence_games 1\n") {
		t.Errorf("metrics: %s", metrics.String())
	}

	// The correspondence limit is met: "later"; the real-time slot is
	// free all the same.
	second := h.srv.Challenge(fakelichess.ChallengeSpec{Days: 3})
	h.waitFor("second answered", 10*time.Second, func() bool { st, _ := h.challengeStatus(second); return st != "created" })
	if st, reason := h.challengeStatus(second); st != "declined" || reason != ReasonLater {
		t.Errorf("correspondence challenge over the limit: %s %q", st, reason)
	}
	rt := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 30 * time.Second, ClockIncrement: time.Second,
		Color: "black", Opponent: fakelichess.RandomMover(2)})
	h.waitAccepted(rt)
	h.resignAfter(rt, 4, 20*time.Second)
	checkFair(t, h.waitOver(rt, 10*time.Second))

	// The opponent replies: no event; the next check-in opens the game.
	if n := streams(id); n != 1 {
		t.Fatalf("%d streams of the game before the reply, want 1", n)
	}
	gate <- struct{}{}
	h.waitFor("second move, then closed", 20*time.Second, func() bool {
		return len(game(id).Moves) == 3 && h.srv.GameStreams(id) == 0
	})
	if n := streams(id); n != 2 {
		t.Errorf("%d streams of the game after the check-in, want 2", n)
	}
	if n := h.srv.CountRequests("GET", "/api/account/playing"); n < 2 {
		t.Errorf("%d check-ins", n)
	}

	// The opponent resigns while the game is closed: the bot opens it to
	// record the win.
	if err := h.srv.OpponentResign(id); err != nil {
		t.Fatal(err)
	}
	waitMemory(t, mem, "the win recorded", 20*time.Second, func() bool { return mem.GamesAgainst("carla", time.Time{}) == 1 })
	h.waitFor("goodbye", 10*time.Second, func() bool { return slices.Contains(game(id).BotChat, h.cfg.Chat.Goodbye) })
	greetings := 0
	for _, line := range game(id).BotChat {
		if strings.Contains(line, "Good luck") {
			greetings++
		}
	}
	if greetings != 1 {
		t.Errorf("chat of the game: %q", game(id).BotChat)
	}
	snap := h.svc.Snapshot()
	if len(snap.Recent) == 0 || snap.Recent[len(snap.Recent)-1].ID != id || snap.Recent[len(snap.Recent)-1].Result != "win" {
		t.Errorf("recent results: %+v", snap.Recent)
	}
	h.waitFor("every stream closed", 10*time.Second, func() bool { return h.srv.GameStreams(id) == 0 })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if c := h.svc.Snapshot().Correspondence; c.Games != 0 || c.Open != 0 {
		t.Errorf("/status correspondence after the end: %+v", c)
	}
}

// TestCorrespondenceAtScale (issue 17): 200 correspondence games at once
// on the fake with an accelerated clock (a day of game time lasts
// corrDay), each with a day per move. Every game gets at least two moves of
// the bot (one learnt from gameStart or a check-in, the next from a
// check-in: Lichess sends no event when the opponent moves) and, after a
// restart (a new Service on the same fake and store), one more: no game
// is lost on time, so every move came before its deadline. Goroutines and
// heap stay flat (bounds a goroutine or an engine per game would break),
// and a real-time challenge is accepted and played meanwhile with one
// real-time slot.
func TestCorrespondenceAtScale(t *testing.T) {
	games := envInt("PONDEROSA_CORR_GAMES", 200)
	const corrDay = 60 * time.Second
	h := setup(t, fakelichess.Options{DayLength: corrDay, Opponent: fakelichess.RandomMover(11), OpponentDelay: time.Millisecond}, map[string]string{
		"PONDEROSA_CORRESPONDENCE": "true", "PONDEROSA_MAX_CORRESPONDENCE_GAMES": "200", "PONDEROSA_MAX_GAMES": "1",
		"PONDEROSA_CORRESPONDENCE_MOVE_TIME": "10ms", "PONDEROSA_CORRESPONDENCE_CHECKIN": "1s",
		"PONDEROSA_CORRESPONDENCE_DISCONNECT": "200ms", "PONDEROSA_PONDER": "false",
		// 16 threads: corrSlots gives 8 games open at once. The test's
		// visits wait on the network and the scheduler more than on the
		// CPU; each search takes one thread (fairThreads).
		"PONDEROSA_THREADS": "16", "PONDEROSA_HASH_MB": "1",
		"PONDEROSA_GREETING": "none", "PONDEROSA_GREETING_SPECTATOR": "none",
		"PONDEROSA_GOODBYE": "none", "PONDEROSA_GOODBYE_SPECTATOR": "none"})
	mem := store.NewMemory()
	h.store = mem
	h.infoLogs = true
	h.start()
	begin := time.Now()
	goroutines0, heap0 := h.settled()

	ids := make([]string, games)
	for i := range ids {
		ids[i] = h.srv.Challenge(fakelichess.ChallengeSpec{Days: 1, Color: []string{"white", "black"}[i%2]})
	}
	// A real-time challenge while they start: the one real-time slot is
	// free.
	rt := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 30 * time.Second, ClockIncrement: time.Second, Opponent: fakelichess.RandomMover(3)})
	h.waitFor("real-time challenge answered", 60*time.Second, func() bool { st, _ := h.challengeStatus(rt); return st != "created" })
	h.waitAccepted(rt)
	for _, id := range ids {
		h.waitAccepted(id)
	}
	// allMoved waits until the bot has made n moves in every game still
	// going, and checks that none was lost on time.
	allMoved := func(what string, n func(id string) int) {
		t.Helper()
		h.waitFor(what, 120*time.Second, func() bool {
			for _, id := range ids {
				if g, _ := h.srv.Game(id); !g.Over() && botMoves(g) < n(id) {
					return false
				}
			}
			return true
		})
		for _, id := range ids {
			g, _ := h.srv.Game(id)
			if g.Over() {
				checkFair(t, g)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	// The real-time game is played: two moves of the bot, then the
	// opponent resigns (unless the game has ended already).
	h.waitFor("real-time moves", 60*time.Second, func() bool { g, _ := h.srv.Game(rt); return botMoves(g) >= 2 || g.Over() })
	if err := h.srv.OpponentResign(rt); err != nil {
		if g, _ := h.srv.Game(rt); !g.Over() {
			t.Fatal(err)
		}
	}
	checkFair(t, h.waitOver(rt, 10*time.Second))
	allMoved("every game's first move", func(string) int { return 1 })
	goroutines1, heap1 := h.settled()
	allMoved("every game's second move", func(string) int { return 2 })
	goroutines2, heap2 := h.settled()
	round := time.Since(begin)
	t.Logf("%d games: two moves each in %v; goroutines %d before, %d and %d while they run; heap %.1f MiB before, %.1f and %.1f MiB",
		games, round.Round(time.Millisecond), goroutines0, goroutines1, goroutines2, mib(heap0), mib(heap1), mib(heap2))
	// A goroutine per game would add 200; so would a game's stream or
	// runner left behind. Each of the corrSlots(16) = 8 open games has a
	// dozen (its runner, stream, connection on both sides, search...).
	if bound := 15*corrSlots(16) + 20; goroutines1-goroutines0 > bound || goroutines2-goroutines0 > bound {
		t.Errorf("goroutines grew from %d to %d and %d with %d games", goroutines0, goroutines1, goroutines2, games)
	}
	// The engines are a fixed cost: here about 60 MiB (nine 1 MiB hash
	// tables, and some 25 search workers of 2 MiB, most of them the
	// real-time game's 16 threads). An engine per game would be 200 × 3
	// MiB; a runner, stream or board kept per visit would grow the heap
	// from one round of moves to the next.
	if grew := int64(heap2) - int64(heap0); grew > 100<<20 {
		t.Errorf("heap grew %.1f MiB with %d games", mib(uint64(grew)), games)
	}
	if d := int64(heap2) - int64(heap1); d > 4<<20 {
		t.Errorf("heap grew %.1f MiB between the first and second moves", mib(uint64(d)))
	}

	// A restart: a new Service on the same fake and store resumes every
	// game (gameStart events on connect, and the check-in).
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if n := h.svc.corrOpen(); n != 0 {
		t.Errorf("%d correspondence games open after the stop", n)
	}
	before := map[string]int{}
	for _, id := range ids {
		g, _ := h.srv.Game(id)
		before[id] = botMoves(g)
	}
	checkins := h.srv.CountRequests("GET", "/api/account/playing")
	restart := time.Now()
	h.start()
	allMoved("a move in every game after the restart", func(id string) int { return before[id] + 1 })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	least, over := 24*time.Hour, 0
	for _, id := range ids {
		g, _ := h.srv.Game(id)
		if g.BotLeastLeft >= 0 && g.BotLeastLeft < least {
			least = g.BotLeastLeft
		}
		if g.Over() {
			over++
		}
	}
	t.Logf("after the restart every game had a move in %v (%d check-ins before, %d in all; %d games over); closest to a deadline: %v of game time left of 24h (%v of real time)",
		time.Since(restart).Round(time.Millisecond), checkins, h.srv.CountRequests("GET", "/api/account/playing"), over,
		least.Round(time.Second), time.Duration(float64(least)*float64(corrDay)/float64(24*time.Hour)).Round(time.Millisecond))
}

// settled returns the goroutine count and the live heap as the GC it runs
// marks it (/gc/heap/live: what the other goroutines allocate meanwhile
// is not in it), less the test's log buffer, which grows with every line
// (the info level keeps it small).
func (h *harness) settled() (int, uint64) {
	logs := uint64(len(h.logs.String()))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	live := sample[0].Value.Uint64()
	return runtime.NumGoroutine(), live - min(logs, live)
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
