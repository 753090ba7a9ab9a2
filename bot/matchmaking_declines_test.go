package bot

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func tcOf(t *testing.T, s string) config.TimeControl {
	t.Helper()
	tc, err := config.ParseTimeControl(s)
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// TestDeclineBackoff: what each decline reason backs off, for how long,
// and which other offers it leaves open; the pauses double with the
// declines in a row up to their cap, a game forgets them, and the memory
// comes back from the store.
func TestDeclineBackoff(t *testing.T) {
	off := func(tc, variant string, rated bool) offer {
		return offer{tc: tcOf(t, tc), variant: variant, rated: rated}
	}
	sent := off("3+0", "standard", false)
	sent960 := off("3+0", "chess960", true)
	cases := []struct {
		reason  lichess.DeclineReason
		sent    offer
		scope   string
		first   time.Duration
		blocked []offer
		open    []offer
	}{
		{"later", sent, "", 10 * time.Minute, []offer{off("5+3", "chess960", true)}, nil},
		{"generic", sent, "", time.Hour, []offer{off("1+0", "standard", false)}, nil},
		{"onlyBot", sent, "", time.Hour, []offer{sent}, nil},
		{"noBot", sent, "", 7 * 24 * time.Hour, []offer{off("10+0", "standard", true)}, nil},
		{"timeControl", sent, "tc:3+0", 6 * time.Hour, []offer{off("3+0", "chess960", true)},
			[]offer{off("3+2", "standard", false), off("1+0", "standard", false)}},
		{"tooFast", sent, "faster:3+0", 6 * time.Hour, []offer{off("1+0", "standard", false), off("2+1", "standard", false)},
			[]offer{off("3+2", "standard", false), off("2d", "standard", false)}},
		{"toofast", sent, "faster:3+0", 6 * time.Hour, []offer{off("1+1", "standard", false)}, []offer{off("5+0", "standard", false)}},
		{"tooSlow", sent, "slower:3+0", 6 * time.Hour, []offer{off("3+2", "standard", false), off("1d", "standard", false)},
			[]offer{off("1+0", "standard", false), off("2+0", "chess960", false)}},
		{"variant", sent960, "variant:chess960", 6 * time.Hour, []offer{off("1+0", "chess960", false)},
			[]offer{off("3+0", "standard", true)}},
		{"standard", sent960, "variant:*", 6 * time.Hour, []offer{off("5+0", "chess960", true)}, []offer{off("3+0", "standard", true)}},
		{"standard", sent, "", time.Hour, []offer{off("5+0", "standard", true)}, nil}, // does not fit: generic
		{"rated", sent, "mode:casual", 6 * time.Hour, []offer{off("5+0", "chess960", false)}, []offer{off("3+0", "standard", true)}},
		{"casual", sent960, "mode:rated", 6 * time.Hour, []offer{off("5+0", "standard", true)}, []offer{off("3+0", "chess960", false)}},
		{"casual", sent, "", time.Hour, nil, nil}, // we sent casual: generic
	}
	now := time.Now()
	for _, tc := range cases {
		m := newMatchmaker(config.Matchmaking{}, store.NewMemory())
		b := backoffFor(tc.reason, tc.sent)
		until := m.backOff("bob", string(tc.reason), b, now)
		if b.scope != tc.scope || until.Sub(now) != tc.first {
			t.Errorf("%s to %s: scope %q for %v, want %q for %v", tc.reason, tc.sent, b.scope, until.Sub(now), tc.scope, tc.first)
		}
		for _, o := range append([]offer{tc.sent}, tc.blocked...) {
			if no, _ := m.blocked("bob", o, now); !no {
				t.Errorf("%s to %s: %s still offered", tc.reason, tc.sent, o)
			}
		}
		for _, o := range tc.open {
			if no, _ := m.blocked("bob", o, now); no {
				t.Errorf("%s to %s: %s backed off", tc.reason, tc.sent, o)
			}
		}
		if no, _ := m.blocked("carol", tc.sent, now); no {
			t.Errorf("%s: another opponent backed off", tc.reason)
		}
		if no, _ := m.blocked("bob", tc.sent, until); no {
			t.Errorf("%s: still backed off at the pause's end", tc.reason)
		}
	}

	// Declines in a row double the pause up to the cap; a game forgets
	// them; the store keeps them across a restart.
	mem := store.NewMemory()
	m := newMatchmaker(config.Matchmaking{}, mem)
	at := now
	for i, want := range []time.Duration{10 * time.Minute, 20 * time.Minute, 40 * time.Minute} {
		until := m.backOff("bob", "later", backoffLater, at)
		if got := until.Sub(at); got != want {
			t.Errorf("later #%d: pause %v, want %v", i+1, got, want)
		}
		at = until.Add(time.Minute)
	}
	if d := backoffLater.pause(20); d != 24*time.Hour {
		t.Errorf("20 laters in a row: %v, want the cap 24h", d)
	}
	if d := backoffGeneric.pause(64); d != 7*24*time.Hour {
		t.Errorf("64 generics in a row: %v, want the cap", d)
	}
	m.backOff("bob", "tooFast", backoffFor("tooFast", sent), at)
	restarted := newMatchmaker(config.Matchmaking{}, mem)
	restarted.restore(mem.Refusals(at))
	if until := restarted.backOff("bob", "later", backoffLater, at); until.Sub(at) != 80*time.Minute {
		t.Errorf("4th later after a restart: pause %v, want 80m", until.Sub(at))
	}
	if no, _ := restarted.blocked("bob", off("1+0", "standard", false), at.Add(3*time.Hour)); !no {
		t.Error("tooFast forgotten after a restart")
	}
	after := at.Add(3 * time.Hour)
	restarted.accepted("bob", after)
	if until := restarted.backOff("bob", "later", backoffLater, after); until.Sub(after) != 10*time.Minute {
		t.Errorf("later after a game: pause %v, want the first one again", until.Sub(after))
	}
	long := after.Add(store.RefusalMemory + time.Hour)
	if until := restarted.backOff("bob", "generic", backoffGeneric, long); until.Sub(long) != time.Hour {
		t.Errorf("generic after a quiet week: pause %v, want the first one", until.Sub(long))
	}
	restarted.leaveAlone("dave", "out of bot games", after.Add(time.Minute))
	if r := mem.Refusals(after); len(r) == 0 || r[0].Opponent != "bob" {
		t.Errorf("store: %+v", r)
	}
}

// TestMatchmakingDeclineReasons: for every Lichess decline reason, an
// online bot of the fake declines one of our challenges with it; after a
// restart (the memory is in a SQLite file) the next challenges avoid what
// it refused — that time control, the faster or slower ones, that
// variant, that mode, or the whole opponent — and the store holds the
// refusal. Through the real client against the fake.
func TestMatchmakingDeclineReasons(t *testing.T) {
	t.Parallel()
	est := func(c fakelichess.ChallengeInfo) time.Duration { return c.Spec.ClockLimit + 40*c.Spec.ClockIncrement }
	clock := func(c fakelichess.ChallengeInfo) string {
		return fmt.Sprintf("%d+%d", c.Spec.ClockLimit/time.Minute, c.Spec.ClockIncrement/time.Second)
	}
	mode := func(c fakelichess.ChallengeInfo) string {
		if c.Spec.Rated {
			return "rated"
		}
		return "casual"
	}
	anyOne := func(fakelichess.ChallengeInfo) bool { return true }
	type check func(declined, next fakelichess.ChallengeInfo) bool
	otherOpponent := func(d, n fakelichess.ChallengeInfo) bool { return n.Opponent.ID != d.Opponent.ID }
	cases := []struct {
		reason string
		fits   func(fakelichess.ChallengeInfo) bool // the challenge declined
		scope  func(fakelichess.ChallengeInfo) string
		avoids check
	}{
		{"later", anyOne, func(fakelichess.ChallengeInfo) string { return "" }, otherOpponent},
		{"generic", anyOne, func(fakelichess.ChallengeInfo) string { return "" }, otherOpponent},
		{"noBot", anyOne, func(fakelichess.ChallengeInfo) string { return "" }, otherOpponent},
		{"onlyBot", anyOne, func(fakelichess.ChallengeInfo) string { return "" }, otherOpponent},
		{"timeControl", anyOne, func(c fakelichess.ChallengeInfo) string { return "tc:" + clock(c) },
			func(d, n fakelichess.ChallengeInfo) bool { return clock(n) != clock(d) }},
		{"tooFast", func(c fakelichess.ChallengeInfo) bool { return c.Spec.ClockLimit == time.Minute },
			func(c fakelichess.ChallengeInfo) string { return "faster:" + clock(c) },
			func(d, n fakelichess.ChallengeInfo) bool { return est(n) > est(d) }},
		{"tooSlow", func(c fakelichess.ChallengeInfo) bool { return c.Spec.ClockLimit == 3*time.Minute },
			func(c fakelichess.ChallengeInfo) string { return "slower:" + clock(c) },
			func(d, n fakelichess.ChallengeInfo) bool { return est(n) < est(d) }},
		{"variant", anyOne, func(c fakelichess.ChallengeInfo) string { return "variant:" + c.Spec.Variant },
			func(d, n fakelichess.ChallengeInfo) bool { return n.Spec.Variant != d.Spec.Variant }},
		{"standard", func(c fakelichess.ChallengeInfo) bool { return c.Spec.Variant == "chess960" },
			func(fakelichess.ChallengeInfo) string { return "variant:*" },
			func(d, n fakelichess.ChallengeInfo) bool { return n.Spec.Variant == "standard" }},
		{"rated", func(c fakelichess.ChallengeInfo) bool { return !c.Spec.Rated },
			func(c fakelichess.ChallengeInfo) string { return "mode:" + mode(c) },
			func(d, n fakelichess.ChallengeInfo) bool { return n.Spec.Rated }},
		{"casual", func(c fakelichess.ChallengeInfo) bool { return c.Spec.Rated },
			func(c fakelichess.ChallengeInfo) string { return "mode:" + mode(c) },
			func(d, n fakelichess.ChallengeInfo) bool { return !n.Spec.Rated }},
	}
	for _, tc := range cases {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			bots := []fakelichess.Player{{ID: "fakebot1", Name: "FakeBot1", Title: "BOT", Rating: 1500}}
			whole := tc.scope(fakelichess.ChallengeInfo{}) == ""
			if whole {
				bots = append(bots, fakelichess.Player{ID: "fakebot2", Name: "FakeBot2", Title: "BOT", Rating: 1500})
			}
			var declined atomic.Bool
			h := setup(t, fakelichess.Options{
				OnlineBots: bots,
				AnswerChallenge: func(c fakelichess.ChallengeInfo) string {
					if tc.fits(c) && declined.CompareAndSwap(false, true) {
						return tc.reason
					}
					return ""
				},
				Opponent: fakelichess.Slow(time.Hour, fakelichess.RandomMover(1)),
			}, map[string]string{"PONDEROSA_MATCHMAKING": "true", "PONDEROSA_MATCHMAKING_IDLE": "1s",
				"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "1+0*3,3+0", "PONDEROSA_MATCHMAKING_VARIANTS": "standard,chess960",
				"PONDEROSA_MATCHMAKING_RATED": "both", "PONDEROSA_MATCHMAKING_RATING_DIFF": "0"})
			dir := t.TempDir()
			db := h.startOnStore(dir)
			// endGames resigns the games our challenges started, so that
			// the bot is idle again and challenges anew.
			endGames := func() {
				for _, g := range h.srv.Games() {
					if !g.Over() {
						h.srv.OpponentResign(g.ID)
					}
				}
			}
			var first fakelichess.ChallengeInfo
			h.waitFor("a decline", 60*time.Second, func() bool {
				endGames()
				for _, c := range h.answeredChallenges() {
					if c.Status == "declined" {
						first = c
						return true
					}
				}
				return false
			})
			seen := len(h.answeredChallenges())
			want := tc.scope(first)
			refused := func() bool {
				for _, r := range db.Refusals(time.Now()) {
					if r.Opponent == first.Opponent.ID && r.Scope == want && lichess.DeclineReason(r.Reason).Is(lichess.DeclineReason(tc.reason)) &&
						r.Strikes == 1 && r.Until.After(time.Now()) {
						return true
					}
				}
				return false
			}
			waitMemory(t, db, "the decline remembered", 10*time.Second, refused)
			if err := h.stop(); err != nil {
				t.Fatal(err)
			}
			db.Close()
			h.client = newTestClient(h.srv, h.cfg)
			t.Cleanup(h.client.Close)
			db = h.startOnStore(dir)
			const followUps = 3
			h.waitFor("challenges after the restart", 60*time.Second, func() bool {
				endGames()
				return len(h.answeredChallenges()) >= seen+followUps
			})
			for _, n := range h.answeredChallenges()[seen:] {
				if n.Opponent.ID == first.Opponent.ID || whole {
					if !tc.avoids(first, n) {
						t.Errorf("after %q to %s %s %s: challenged %s with %s %s %s", tc.reason, first.Opponent.ID, clock(first), first.Spec.Variant,
							n.Opponent.ID, clock(n), n.Spec.Variant, mode(n))
					}
				}
			}
			if !refused() {
				t.Errorf("store after %q and a restart: %+v, want a running refusal of %s in scope %q", tc.reason, db.Refusals(time.Now()), first.Opponent.ID, want)
			}
			endGames()
		})
	}
}
