package bot

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/live"
	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// TestMemoryAcrossRestart plays against the fake Lichess with the memory
// in a real SQLite file, stops the bot, starts a new one on the same file,
// and checks what the restart must not forget: the games against each
// opponent (what the per-opponent caps count), the bot-vs-bot quota
// window (no accept call walks into the same 429), the learned move
// overhead and the recent results.
func TestMemoryAcrossRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := setup(t, fakelichess.Options{BotGameQuota: 2, BotGameQuotaWindow: time.Hour},
		map[string]string{"PONDEROSA_PONDER": "false", "PONDEROSA_QUEUE": "0"})
	bob := fakelichess.ChallengeSpec{Challenger: fakelichess.Player{Name: "Bob", Title: "BOT", Rating: 2000},
		ClockLimit: time.Minute, Color: "white", Opponent: quietWhite()}
	accepts := func(id string) int { return h.srv.CountRequests("POST", "/api/challenge/"+id+"/accept") }

	db := h.startOnStore(dir)
	for range 2 {
		id := h.srv.Challenge(bob)
		h.waitAccepted(id)
		h.resignAfter(id, 8, 60*time.Second)
		h.waitOver(id, 10*time.Second)
	}
	waitMemory(t, db, "games recorded", 10*time.Second, func() bool { return db.GamesAgainst("bob", time.Time{}) == 2 })
	third := h.srv.Challenge(bob) // meets the quota: one accept call, then "later"
	h.waitFor("third answered", 10*time.Second, func() bool { st, _ := h.challengeStatus(third); return st != "created" })
	if st, reason := h.challengeStatus(third); st != "declined" || reason != ReasonLater || accepts(third) != 1 {
		t.Fatalf("challenge over the quota: %s %q after %d accept calls", st, reason, accepts(third))
	}
	overhead := h.svc.overhead.Overhead()
	if o, ok := db.Overhead(); !ok || o.Estimate != overhead || len(o.Samples) == 0 {
		t.Fatalf("overhead saved: %+v %v, learned %v", o, ok, overhead)
	}
	// A new process: a new Service on the reopened file.
	db = h.restartOnStore(dir)
	if n, s := db.GamesAgainst("BOB", time.Now().Add(-time.Hour)), db.StreakAgainst("bob"); n != 2 || s != 2 {
		t.Errorf("after the restart: %d games against bob in the last hour, %d in a row; want 2 and 2", n, s)
	}
	// (The samples are kept in microseconds.)
	if got := h.svc.overhead.Overhead(); (got - overhead).Abs() > 2*time.Microsecond {
		t.Errorf("overhead after the restart: %v, want %v", got, overhead)
	}
	snap := h.svc.Snapshot()
	if len(snap.Limits) != 1 || !strings.HasPrefix(snap.Limits[0], "bot-vs-bot games exhausted until") {
		t.Errorf("limits after the restart: %q", snap.Limits)
	}
	if len(snap.Recent) != 2 || snap.Recent[1].Result != "win" || snap.Recent[1].Opponent != "Bob" {
		t.Errorf("recent results after the restart: %+v", snap.Recent)
	}
	if o := snap.Opponents; len(o) != 1 || o[0].Key != "bob" || o[0].Name != "Bob" || o[0].Wins != 2 || o[0].Performance != 2400 {
		t.Errorf("opponents after the restart: %+v", o)
	}
	// The status page's table per opponent reads the same memory.
	var page strings.Builder
	if err := live.RenderPage(&page, h.svc.liveSnapshot()); err != nil || !strings.Contains(page.String(),
		`<td><a href="`+h.srv.URL()+`/@/bob">Bob</a></td><td>2</td><td>2</td><td>0</td><td>0</td><td>100%</td><td>2400</td>`) {
		t.Errorf("status page after the restart: no row for bob (%v)", err)
	}
	if snap.MemoryDegraded != "" {
		t.Errorf("memory degraded: %s", snap.MemoryDegraded)
	}
	// The quota window is honoured without asking Lichess again.
	id := h.srv.Challenge(bob)
	h.waitFor("bot challenge declined", 5*time.Second, func() bool { st, _ := h.challengeStatus(id); return st != "created" })
	if st, reason := h.challengeStatus(id); st != "declined" || reason != ReasonLater || accepts(id) != 0 {
		t.Errorf("bot challenge after the restart: %s %q, %d accept calls", st, reason, accepts(id))
	}
	g := db.RecentGames(1)[0]
	if g.Opponent != "bob" || g.OpponentTitle != "BOT" || !g.OpponentBot || g.OpponentRating != 2000 || g.Result != store.Win ||
		(g.Termination != "resign" && g.Termination != "mate") || g.Plies < 8 || g.Sources["engine"] == 0 || g.ThinkTotal <= 0 || g.PGN == "" {
		t.Errorf("game recorded: %+v", g)
	}
}

// waitMemory waits until cond holds, looking again at every change of m.
func waitMemory(t *testing.T, m interface{ Changed() <-chan struct{} }, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		ch := m.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("%s: not within %v", what, within)
		}
	}
}

// TestMemoryDegraded: a bot whose database could not be opened plays on in
// memory, and /healthz and /status say so.
func TestMemoryDegraded(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_PONDER": "false"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.statusLn = ln
	mem := store.Fallback(errors.New("open ponderosa-data/ponderosa.db: read-only file system"))
	h.store = mem
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{Challenger: fakelichess.Player{Name: "Carol", Rating: 1500},
		ClockLimit: time.Minute, Color: "white", Opponent: quietWhite()})
	h.waitAccepted(id)
	h.resignAfter(id, 4, 60*time.Second)
	h.waitOver(id, 10*time.Second)
	waitMemory(t, mem, "the game in memory", 10*time.Second, func() bool { return mem.GamesAgainst("carol", time.Time{}) == 1 })
	// The game came through the event stream: it is connected, and the
	// bot is healthy but degraded.
	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %s %q", resp.Status, body)
	}
	if want := "degraded: in memory only (nothing is saved): open ponderosa-data/ponderosa.db: read-only file system\n"; body != want {
		t.Errorf("healthz: %q, want %q", body, want)
	}
	if d := h.svc.Snapshot().MemoryDegraded; !strings.Contains(d, "read-only file system") {
		t.Errorf("status memory_degraded: %q", d)
	}
}

// TestRematchCapAcrossRestart: the rematches in a row that the cap counts
// come from the store, so a restart does not hand an opponent a fresh
// allowance: two rematches, a restart, and the third is declined "later";
// a fresh game with that opponent then starts the count again.
func TestRematchCapAcrossRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_MAX_REMATCHES": "2", "PONDEROSA_MAX_GAMES": "4"})
	alice := fakelichess.Player{Name: "Alice"}
	play := func(name string, rematch, accept bool) {
		t.Helper()
		spec := fakelichess.ChallengeSpec{ClockLimit: time.Minute, Challenger: alice, Color: "white",
			Opponent: fakelichess.Slow(time.Hour, fakelichess.RandomMover(1))}
		if rematch {
			spec.RematchOf = "earlier"
		}
		id := h.srv.Challenge(spec)
		h.waitFor(name+" answered", 10*time.Second, func() bool { s, _ := h.challengeStatus(id); return s != "created" })
		status, reason := h.challengeStatus(id)
		switch {
		case accept && status != "accepted":
			t.Fatalf("%s: %s %q, want accepted", name, status, reason)
		case !accept && (status != "declined" || reason != ReasonLater):
			t.Fatalf("%s: %s %q, want declined later", name, status, reason)
		}
		if accept {
			h.waitFor(name+" started", 10*time.Second, func() bool { _, ok := h.srv.Game(id); return ok })
			if err := h.srv.OpponentResign(id); err != nil {
				t.Fatal(err)
			}
			h.waitOver(id, 10*time.Second)
			waitMemory(t, h.store.(*store.DB), name+" recorded", 10*time.Second, func() bool {
				g := h.store.RecentGames(1)
				return len(g) == 1 && g[0].ID == id
			})
		}
	}

	h.startOnStore(dir)
	play("alice challenges", false, true)
	play("alice rematch 1", true, true)
	play("alice rematch 2", true, true)
	db := h.restartOnStore(dir)
	if n := db.RematchStreak("alice"); n != 2 {
		t.Errorf("rematches in a row read back: %d, want 2", n)
	}
	play("alice rematch 3, after the restart", true, false)
	play("alice again, anew", false, true)
	play("alice rematch 1 again", true, true)
}

// startOnStore opens the SQLite store in dir (closed when the test ends,
// after the service: cleanups run last first) and starts the service on it.
func (h *harness) startOnStore(dir string) *store.DB {
	h.t.Helper()
	db, err := store.Open(dir, store.Options{HistoryDays: 365})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { db.Close() })
	h.store = db
	h.start()
	return db
}

// restartOnStore does what a new process would: it stops the service,
// closes its store, and starts a new service on the store reopened from dir.
func (h *harness) restartOnStore(dir string) *store.DB {
	h.t.Helper()
	if err := h.stop(); err != nil {
		h.t.Fatal(err)
	}
	if err := h.store.(*store.DB).Close(); err != nil {
		h.t.Fatal(err)
	}
	return h.startOnStore(dir)
}
