package bot

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// TestJudgeOfferDraw: offers follow the accepting rule (level, late
// enough) and come at most once every PONDEROSA_DRAW_OFFER_EVERY of our
// moves.
func TestJudgeOfferDraw(t *testing.T) {
	env := map[string]string{"PONDEROSA_OFFER_DRAWS": "true", "PONDEROSA_DRAW_MOVES": "2",
		"PONDEROSA_DRAW_SCORE": "20", "PONDEROSA_DRAW_MIN_MOVE": "30", "PONDEROSA_DRAW_OFFER_EVERY": "10"}
	type step struct {
		score, move, ours int
		want              bool
	}
	cases := []struct {
		name  string
		env   map[string]string
		steps []step
	}{
		{"offers off", map[string]string{"PONDEROSA_OFFER_DRAWS": "false"},
			[]step{{0, 40, 1, false}, {0, 41, 2, false}, {0, 42, 3, false}}},
		{"too few level scores", nil, []step{{0, 40, 1, false}, {0, 41, 2, true}}},
		{"before the minimum move", nil, []step{{0, 28, 1, false}, {0, 29, 2, false}, {0, 30, 3, true}}},
		{"not level", nil, []step{{0, 40, 1, false}, {21, 41, 2, false}, {0, 42, 3, false}, {-20, 43, 4, true}}},
		{"once every ten moves", nil, []step{{0, 40, 1, false}, {0, 41, 2, true}, {0, 42, 3, false},
			{0, 50, 11, false}, {0, 51, 12, true}, {0, 52, 13, false}, {0, 61, 22, true}}},
		{"a later offer still waits its turn", nil, []step{{0, 40, 1, false}, {0, 41, 2, true},
			{300, 45, 6, false}, {0, 46, 7, false}, {0, 47, 8, false}, {0, 48, 12, true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := maps.Clone(env)
			maps.Copy(m, tc.env)
			j := judge{cfg: defaultConfig(t, m).Game}
			for i, s := range tc.steps {
				j.Record(s.score)
				if got := j.OfferDraw(s.move, s.ours); got != s.want {
					t.Errorf("step %d (score %d, move %d, our move %d): offer %v, want %v", i, s.score, s.move, s.ours, got, s.want)
				}
			}
		})
	}
}

// TestOfferDrawsOnTheFake plays games through the real client against the
// fake: no offers when they are off or the rule never holds, offers spaced
// by the setting when the opponent declines them, and a draw when it
// accepts.
func TestOfferDrawsOnTheFake(t *testing.T) {
	t.Parallel()
	level := map[string]string{"PONDEROSA_OFFER_DRAWS": "true", "PONDEROSA_DRAW_MIN_MOVE": "1",
		"PONDEROSA_DRAW_MOVES": "1", "PONDEROSA_DRAW_SCORE": "500", "PONDEROSA_DRAW_OFFER_EVERY": "10"}
	with := func(kv ...string) map[string]string {
		m := maps.Clone(level)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name         string
		env          map[string]string
		accept       bool
		botMoves     int // play on until the bot made this many moves, then the opponent resigns
		minOf, maxOf int // bounds on the bot's offers
		wantDraw     bool
	}{
		{"off", with("PONDEROSA_OFFER_DRAWS", "false"), false, 12, 0, 0, false},
		{"rule never holds", with("PONDEROSA_DRAW_MIN_MOVE", "500"), false, 12, 0, 0, false},
		// 12 moves with offers at most every 10: one or two offers.
		{"declined, spaced", level, false, 12, 1, 2, false},
		{"accepted", level, true, 0, 1, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := fakelichess.Options{}
			if tc.accept {
				opts.AcceptDraw = func(fakelichess.GameInfo) bool { return true }
			}
			h := setup(t, opts, tc.env)
			h.start()
			id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 6 * time.Second, ClockIncrement: 100 * time.Millisecond,
				Color: "white", Opponent: quietWhite()})
			h.waitAccepted(id)
			if tc.botMoves > 0 {
				h.resignAfter(id, 2*tc.botMoves, 60*time.Second)
			}
			g := h.waitOver(id, 30*time.Second)
			if g.BotOffers < tc.minOf || g.BotOffers > tc.maxOf {
				t.Errorf("bot offered %d draws in %d plies, want %d to %d", g.BotOffers, len(g.Moves), tc.minOf, tc.maxOf)
			}
			if (g.Status == "draw") != tc.wantDraw {
				t.Errorf("game ended %s, want a draw: %v", g.Status, tc.wantDraw)
			}
		})
	}
}

// TestClaimWhenOpponentLeaves: the bot claims the win when it can mate,
// and a draw (claim-draw) when it cannot.
func TestClaimWhenOpponentLeaves(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, fen, status, path string
		botWins                 bool
	}{
		// Black (the bot) has a rook: it claims the win.
		{"can mate", "4k3/8/8/8/8/8/3P4/r3K3 w - - 0 1", "timeout", "claim-victory", true},
		// Black (the bot) has a lone knight: it claims a draw.
		{"cannot mate", "4k3/8/8/8/8/8/3PP3/n3K3 w - - 0 1", "draw", "claim-draw", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t, fakelichess.Options{ClaimWinAfter: time.Second}, nil)
			h.start()
			id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white", Variant: "fromPosition",
				FEN: tc.fen, Opponent: fakelichess.Scripted([]string{"e1f2", "f2e1", "e1f2", "f2e1"}, sparringEngine(200))})
			h.waitAccepted(id)
			h.waitFor("moves", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 2 })
			if err := h.srv.OpponentLeave(id); err != nil {
				t.Fatal(err)
			}
			g := h.waitOver(id, 15*time.Second)
			if g.Status != tc.status || (g.Winner == g.BotColor) != tc.botWins {
				t.Errorf("opponent left: %s, winner %q (bot %s); want %s", g.Status, g.Winner, g.BotColor, tc.status)
			}
			if n := h.srv.CountRequests("POST", "/api/bot/game/"+id+"/"+tc.path); n == 0 {
				t.Errorf("no %s request", tc.path)
			}
		})
	}
}

// TestRematchCap: rematches are accepted up to PONDEROSA_MAX_REMATCHES in
// a row per opponent, then declined with "later"; a fresh challenge from
// that opponent starts the count again, and other opponents count apart.
func TestRematchCap(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_MAX_REMATCHES": "2", "PONDEROSA_MAX_GAMES": "4"})
	h.start()
	alice, bob := fakelichess.Player{Name: "Alice"}, fakelichess.Player{Name: "Bob"}
	steps := []struct {
		name    string
		who     fakelichess.Player
		rematch bool
		accept  bool
	}{
		{"alice challenges", alice, false, true},
		{"alice rematch 1", alice, true, true},
		{"alice rematch 2", alice, true, true},
		{"alice rematch 3", alice, true, false},
		{"bob rematch 1", bob, true, true},
		{"alice again, anew", alice, false, true},
		{"alice rematch 1 again", alice, true, true},
	}
	for i, st := range steps {
		spec := fakelichess.ChallengeSpec{ClockLimit: 10 * time.Second, Challenger: st.who, Color: "white", Opponent: quietWhite()}
		if st.rematch {
			spec.RematchOf = fmt.Sprintf("game%04d", i)
		}
		id := h.srv.Challenge(spec)
		h.waitFor(st.name+" answered", 10*time.Second, func() bool { s, _ := h.challengeStatus(id); return s != "created" })
		status, reason := h.challengeStatus(id)
		switch {
		case st.accept && status != "accepted":
			t.Fatalf("%s: %s %q, want accepted", st.name, status, reason)
		case !st.accept && (status != "declined" || reason != ReasonLater):
			t.Fatalf("%s: %s %q, want declined later", st.name, status, reason)
		}
		if st.accept {
			// Two plies: a game resigned before them is an abort, which
			// the store does not count.
			h.waitFor(st.name+" moves", 20*time.Second, func() bool { g, ok := h.srv.Game(id); return ok && len(g.Moves) >= 2 })
			if err := h.srv.OpponentResign(id); err != nil {
				t.Fatal(err)
			}
			h.waitOver(id, 10*time.Second)
		}
	}
}

func TestChatMoreCommands(t *testing.T) {
	v := chatView{Me: "PonderBot", Opponent: "alice", Version: "ponderosa dev",
		PV: []string{"e4", "e5", "Nf3"}, Source: "book", Queue: "Playing 1 of 3 games; 2 challenges waiting."}
	cases := []struct {
		name, room, text, want string
		mod                    func(*chatView)
	}{
		{"help lists the commands", roomSpectator, "!help", "!pv", nil},
		{"pv to spectators", roomSpectator, "!pv", "Line: e4 e5 Nf3", nil},
		{"pv not to the opponent", roomPlayer, "!pv", "don't tell", nil},
		{"pv to the opponent when allowed", roomPlayer, "!pv", "e4 e5 Nf3", func(v *chatView) { v.EvalToOpponent = true }},
		{"pv pondering", roomSpectator, "!pv", "(pondering)", func(v *chatView) { v.Pondering = true }},
		{"pv before a search", roomSpectator, "!pv", "No line yet", func(v *chatView) { v.PV = nil }},
		{"queue", roomPlayer, "!queue", "1 of 3 games; 2 challenges", nil},
		{"source", roomPlayer, "!source", "came from: book", nil},
		{"source before a move", roomPlayer, "!source", "not moved", func(v *chatView) { v.Source = "" }},
	}
	for _, tc := range cases {
		w := v
		if tc.mod != nil {
			tc.mod(&w)
		}
		r, ok := chatReply(tc.room, "bob", tc.text, w)
		if !ok || !strings.Contains(r, tc.want) {
			t.Errorf("%s: %q %v, want it to contain %q", tc.name, r, ok, tc.want)
		}
	}
}

// TestChatQueueAndSource asks !queue, !source and !pv in a game on the
// fake, through the real client.
func TestChatQueueAndSource(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_CHAT_COOLDOWN": "0s", "PONDEROSA_CHAT_EVAL_OPPONENT": "true"})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "white", Opponent: quietWhite()})
	h.waitAccepted(id)
	h.waitFor("bot moved", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 4 })
	for _, cmd := range []string{"!queue", "!source", "!pv"} {
		if err := h.srv.OpponentSay(id, cmd); err != nil {
			t.Fatal(err)
		}
	}
	h.waitFor("answers", 10*time.Second, func() bool {
		g, _ := h.srv.Game(id)
		joined := strings.Join(g.BotChat, "\n")
		return strings.Contains(joined, "Playing 1 of 3 games; 0 challenges waiting.") &&
			strings.Contains(joined, "My last move came from: engine.") && strings.Contains(joined, "Line")
	})
	h.srv.OpponentResign(id)
	h.waitOver(id, 10*time.Second)
}
