package bot

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func TestParseUserList(t *testing.T) {
	cases := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"", nil, ""},
		{"# a list\nMallory\n\n  eve  # noisy\r\n", []string{"mallory", "eve"}, ""},
		{"alice\nnot a name\n", nil, `line 2: "not a name"`},
		{"x\n", nil, "line 1"},
	}
	for _, tc := range cases {
		got, err := ParseUserList([]byte(tc.in))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want one with %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: %v %v, want %v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseUserList(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/userlists/*.txt")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		names, err := ParseUserList(data)
		if err != nil {
			return
		}
		for _, n := range names {
			if n != strings.ToLower(n) || len(n) < 2 || len(n) > 30 {
				t.Fatalf("accepted %q", n)
			}
		}
	})
}

// challengeAnswer sends a challenge from name and returns its status and
// decline reason; an accepted game is played two plies and resigned by
// the opponent.
func (h *harness) challengeAnswer(name string) (string, string) {
	h.t.Helper()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white",
		Challenger: fakelichess.Player{Name: name}, Opponent: quietWhite()})
	h.waitFor(name+" answered", 10*time.Second, func() bool { s, _ := h.challengeStatus(id); return s != "created" })
	status, reason := h.challengeStatus(id)
	if status == "accepted" {
		h.waitFor(name+" moves", 20*time.Second, func() bool { g, ok := h.srv.Game(id); return ok && len(g.Moves) >= 2 })
		if err := h.srv.OpponentResign(id); err != nil {
			h.t.Fatal(err)
		}
		h.waitOver(id, 10*time.Second)
	}
	return status, reason
}

// TestUserListsFromURLs: a block list served by a test server is loaded
// at start; a failed refresh keeps it; the next good one replaces it. An
// allow list that never loads lets only PONDEROSA_ALLOW's users play.
func TestUserListsFromURLs(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	hits := make(chan int32, 100000) // each request's number, as it arrives
	waitHits := func(what string, n int32) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for requests.Load() < n {
			select {
			case <-hits:
			case <-timeout:
				t.Fatalf("%s: %d requests, want %d", what, requests.Load(), n)
			}
		}
	}
	release := make(chan struct{})
	block := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		select {
		case hits <- n:
		default:
		}
		switch n {
		case 1:
			w.Write([]byte("# misbehaving bots\nMallory\n"))
		case 2:
			http.Error(w, "down", http.StatusInternalServerError)
		case 3:
			<-release // the test looks while this refresh is in flight
			w.Write([]byte("eve\n"))
		default:
			w.Write([]byte("eve\n"))
		}
	}))
	t.Cleanup(block.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	}))
	t.Cleanup(down.Close)

	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_BLOCK_URL": block.URL + "/list.txt",
		"PONDEROSA_LIST_REFRESH": "100ms"})
	h.start()
	type step struct {
		name, who, status, reason string
		before                    func()
	}
	steps := []step{
		{"listed at start", "Mallory", "declined", ReasonGeneric, nil},
		{"not listed", "Alice", "accepted", "", nil},
		{"after a failed refresh", "Mallory", "declined", ReasonGeneric, func() {
			waitHits("refresh after the failed one", 3)
		}},
		{"new list: off it", "Mallory", "accepted", "", func() {
			close(release)
			waitHits("new list applied", 4) // refreshes run one after another
		}},
		{"new list: on it", "Eve", "declined", ReasonGeneric, nil},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		if status, reason := h.challengeAnswer(st.who); status != st.status || reason != st.reason {
			t.Errorf("%s: %s %s %q, want %s %q", st.name, st.who, status, reason, st.status, st.reason)
		}
	}

	h2 := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_ALLOW_URL": down.URL, "PONDEROSA_ALLOW": "dave"})
	h2.start()
	if status, reason := h2.challengeAnswer("Carol"); status != "declined" || reason != ReasonGeneric {
		t.Errorf("allow list never loaded: Carol %s %q, want declined generic", status, reason)
	}
	if status, _ := h2.challengeAnswer("Dave"); status != "accepted" {
		t.Errorf("allow list never loaded: Dave (in PONDEROSA_ALLOW) %s, want accepted", status)
	}
}

// TestOpponentCaps: games per opponent in 24 hours and in a row, counted
// in a real SQLite file, so that a restart keeps the count.
func TestOpponentCaps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_MAX_GAMES_IN_A_ROW": "2",
		"PONDEROSA_MAX_GAMES_PER_OPPONENT": "3", "PONDEROSA_PONDER": "false"})
	db := h.startOnStore(dir)
	steps := []struct {
		name, who, status string
	}{
		{"alice 1", "Alice", "accepted"},
		{"alice 2", "Alice", "accepted"},
		{"alice 3 in a row", "Alice", "declined"},
		{"bob breaks the run", "Bob", "accepted"},
		{"alice 3 today", "Alice", "accepted"},
		{"alice 4 today", "Alice", "declined"},
	}
	played := 0
	for _, st := range steps {
		status, reason := h.challengeAnswer(st.who)
		if status != st.status || (status == "declined" && reason != ReasonLater) {
			t.Fatalf("%s: %s %q, want %s", st.name, status, reason, st.status)
		}
		if status == "accepted" {
			played++
			n := played
			waitMemory(t, db, "game recorded", 10*time.Second, func() bool { return len(db.RecentGames(10)) == n })
		}
	}
	h.restartOnStore(dir)
	if status, reason := h.challengeAnswer("Alice"); status != "declined" || reason != ReasonLater {
		t.Errorf("after a restart: Alice %s %q, want declined later (3 games today)", status, reason)
	}
	if status, _ := h.challengeAnswer("Carol"); status != "accepted" {
		t.Errorf("after a restart: Carol %s, want accepted", status)
	}
}

// TestFairSlots: bots take at most PONDEROSA_MAX_BOT_GAMES of the slots
// (humans still get the others), ratings are bounded per speed, and bots
// must give an increment in bullet.
func TestFairSlots(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_MAX_GAMES": "2", "PONDEROSA_MAX_BOT_GAMES": "1",
		"PONDEROSA_QUEUE": "0", "PONDEROSA_RATING_BOUNDS": "blitz:1500-2000", "PONDEROSA_BOT_BULLET_INCREMENT": "true"})
	h.start()
	hold := fakelichess.Slow(time.Hour, fakelichess.RandomMover(1)) // a game that stays open until resigned
	player := func(name string, rating int, bot bool) fakelichess.Player {
		p := fakelichess.Player{Name: name, Rating: rating}
		if bot {
			p.Title = "BOT"
		}
		return p
	}
	blitz, bullet, bullet1 := 3*time.Minute, time.Minute, time.Minute
	var open []string // games held open, resigned at "free"
	steps := []struct {
		name        string
		who         fakelichess.Player
		clock, inc  time.Duration
		keep, free  bool // keep the game open; before the step, end the open games
		status, why string
	}{
		{"bot takes the bot slot", player("BotA", 1800, true), blitz, 0, true, false, "accepted", ""},
		{"second bot: later", player("BotB", 1800, true), blitz, 0, false, false, "declined", ReasonLater},
		{"human takes the other slot", player("Hugo", 1800, false), blitz, 0, true, false, "accepted", ""},
		{"bot slot free again", player("BotB", 1800, true), blitz, 0, false, true, "accepted", ""},
		{"blitz rating below", player("Low", 1400, false), blitz, 0, false, false, "declined", ReasonGeneric},
		{"blitz rating above", player("High", 2100, false), blitz, 0, false, false, "declined", ReasonGeneric},
		{"bullet has no bounds", player("High", 2100, false), bullet1, time.Second, false, false, "accepted", ""},
		{"bot bullet without increment", player("BotC", 1800, true), bullet, 0, false, false, "declined", ReasonTimeControl},
		{"bot bullet with increment", player("BotC", 1800, true), bullet1, time.Second, false, false, "accepted", ""},
		{"human bullet without increment", player("Hugo", 1800, false), bullet, 0, false, false, "accepted", ""},
	}
	end := func(id string) {
		if err := h.srv.OpponentResign(id); err != nil {
			t.Fatal(err)
		}
		h.waitOver(id, 10*time.Second)
	}
	// freed waits until the service runs at most n games: a slot frees when
	// the game's runner has ended (the fake knows a game is over before).
	freed := func(n int) {
		h.poll(fmt.Sprintf("at most %d games running", n), 10*time.Second, func() bool { return h.svc.activeGames() <= n })
	}
	for _, st := range steps {
		if st.free {
			for _, id := range open {
				end(id)
			}
			open = nil
			freed(0)
		}
		spec := fakelichess.ChallengeSpec{ClockLimit: st.clock, ClockIncrement: st.inc, Color: "white", Challenger: st.who, Opponent: hold}
		id := h.srv.Challenge(spec)
		h.waitFor(st.name+" answered", 10*time.Second, func() bool { s, _ := h.challengeStatus(id); return s != "created" })
		if status, reason := h.challengeStatus(id); status != st.status || reason != st.why {
			t.Fatalf("%s: %s %q, want %s %q", st.name, status, reason, st.status, st.why)
		}
		if st.status != "accepted" {
			continue
		}
		h.waitFor(st.name+" started", 10*time.Second, func() bool { _, ok := h.srv.Game(id); return ok })
		if st.keep {
			open = append(open, id)
		} else {
			end(id)
			freed(len(open))
		}
	}
	for _, id := range open {
		end(id)
	}
}

// TestCorrespondenceDays: days per move outside PONDEROSA_MIN_DAYS and
// PONDEROSA_MAX_DAYS are declined tooFast / tooSlow, through the client
// against the fake.
func TestCorrespondenceDays(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_CORRESPONDENCE": "true",
		"PONDEROSA_MIN_DAYS": "2", "PONDEROSA_MAX_DAYS": "7"})
	h.start()
	cases := []struct {
		days        int
		status, why string
	}{
		{1, "declined", ReasonTooFast},
		{2, "accepted", ""},
		{7, "accepted", ""},
		{14, "declined", ReasonTooSlow},
	}
	for _, tc := range cases {
		id := h.srv.Challenge(fakelichess.ChallengeSpec{Days: tc.days, Color: "white", Opponent: fakelichess.Slow(time.Hour, fakelichess.RandomMover(1))})
		h.waitFor("answered", 10*time.Second, func() bool { s, _ := h.challengeStatus(id); return s != "created" })
		if status, reason := h.challengeStatus(id); status != tc.status || reason != tc.why {
			t.Errorf("%d days: %s %q, want %s %q", tc.days, status, reason, tc.status, tc.why)
		}
		if tc.status == "accepted" {
			h.waitFor("started", 10*time.Second, func() bool { _, ok := h.srv.Game(id); return ok })
			if err := h.srv.OpponentResign(id); err != nil {
				t.Fatal(err)
			}
			h.waitOver(id, 10*time.Second)
		}
	}
}

// TestCapsCountOngoingGames: the per-opponent caps count the games still
// being played against the challenger, not only the finished ones, so two
// challenges from one opponent at once cannot pass a cap of one.
func TestCapsCountOngoingGames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  map[string]string
	}{
		{"per day", map[string]string{"PONDEROSA_MAX_GAMES_PER_OPPONENT": "1"}},
		{"in a row", map[string]string{"PONDEROSA_MAX_GAMES_IN_A_ROW": "1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.env["PONDEROSA_MAX_GAMES"] = "3"
			h := setup(t, fakelichess.Options{}, tc.env)
			h.start()
			hold := fakelichess.Slow(time.Hour, fakelichess.RandomMover(1))
			challenge := func(name string) string {
				id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 3 * time.Minute, Color: "white",
					Challenger: fakelichess.Player{Name: name}, Opponent: hold})
				h.waitFor(name+" answered", 10*time.Second, func() bool { s, _ := h.challengeStatus(id); return s != "created" })
				return id
			}
			first := challenge("Alice")
			if status, reason := h.challengeStatus(first); status != "accepted" {
				t.Fatalf("Alice's first: %s %q", status, reason)
			}
			h.waitFor("game started", 10*time.Second, func() bool { _, ok := h.srv.Game(first); return ok })
			second := challenge("Alice")
			if status, reason := h.challengeStatus(second); status != "declined" || reason != ReasonLater {
				t.Errorf("Alice's second while her first is played: %s %q, want declined later", status, reason)
			}
			if status, _ := h.challengeStatus(challenge("Bob")); status != "accepted" {
				t.Errorf("Bob meanwhile: %s, want accepted", status)
			}
			for _, g := range h.srv.Games() {
				if !g.Over() {
					h.srv.OpponentResign(g.ID)
					h.waitOver(g.ID, 10*time.Second)
				}
			}
		})
	}
}

// TestBotSlotsCountResumedGames: a game against a bot that was running
// when the service started (it arrives with gameStart on connect) takes a
// PONDEROSA_MAX_BOT_GAMES slot like one accepted in this run.
func TestBotSlotsCountResumedGames(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_MAX_GAMES": "3", "PONDEROSA_MAX_BOT_GAMES": "1",
		"PONDEROSA_SHUTDOWN": "leave"})
	h.start()
	hold := fakelichess.Slow(time.Hour, fakelichess.RandomMover(1))
	challenge := func(name string) (string, string, string) {
		p := fakelichess.Player{Name: name}
		if strings.HasPrefix(name, "Bot") {
			p.Title = "BOT"
		}
		id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 3 * time.Minute, Color: "white",
			Challenger: p, Opponent: hold})
		h.waitFor(name+" answered", 10*time.Second, func() bool { s, _ := h.challengeStatus(id); return s != "created" })
		status, reason := h.challengeStatus(id)
		return id, status, reason
	}
	id, status, _ := challenge("BotA")
	if status != "accepted" {
		t.Fatalf("BotA: %s", status)
	}
	h.waitFor("game started", 10*time.Second, func() bool { _, ok := h.srv.Game(id); return ok })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	h.client = newTestClient(h.srv, h.cfg)
	t.Cleanup(h.client.Close)
	h.start()
	// The service knows the opponent is a bot once the game's stream has
	// told it (gameStart has no title), when the game shows as live.
	live := func() bool {
		for _, g := range h.svc.Snapshot().Live {
			if g.ID == id {
				return true
			}
		}
		return false
	}
	h.poll("game "+id+" resumed", 10*time.Second, live)
	if _, status, reason := challenge("BotB"); status != "declined" || reason != ReasonLater {
		t.Errorf("BotB while a resumed bot game is played: %s %q, want declined later", status, reason)
	}
	human, status, _ := challenge("Hugo")
	if status != "accepted" {
		t.Errorf("a human meanwhile: %s, want accepted", status)
	}
	for _, g := range []string{id, human} {
		h.waitFor("game started", 10*time.Second, func() bool { _, ok := h.srv.Game(g); return ok })
		h.srv.OpponentResign(g)
		h.waitOver(g, 10*time.Second)
	}
}
