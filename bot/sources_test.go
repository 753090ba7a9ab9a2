package bot

import (
	"context"
	"fmt"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/movesource"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// endgame plays fen (White to move, the bot White) at 1+0 against the
// fake's engine and returns the game.
func endgame(t *testing.T, fen string, env map[string]string) (*harness, fakelichess.GameInfo) {
	return endgameWith(t, fen, env, nil)
}

// endgameWith is endgame with beforeRun applied to the Service.
func endgameWith(t *testing.T, fen string, env map[string]string, beforeRun func(*Service)) (*harness, fakelichess.GameInfo) {
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(2000)}, env)
	h.beforeRun = beforeRun
	h.start()
	g := h.play(fakelichess.ChallengeSpec{Variant: "fromPosition", FEN: fen, Color: "black",
		ClockLimit: time.Minute}, 90*time.Second)
	checkFair(t, g)
	if g.Status != "mate" || g.Winner != "white" {
		t.Fatalf("%s: %s, winner %q after %d plies\nlogs:\n%s", fen, g.Status, g.Winner, len(g.Moves), h.logs.String())
	}
	return h, g
}

// TestTablebaseEndgames: KQvK and KRvK from a fromPosition challenge at
// 1+0: the bot plays moves from the fake's tablebase (the engine
// wins the race now and then: a mate in one, an only move), which never
// got the token, and mate comes within the DTZ the tablebase gave at the
// start.
// With the tablebase host down, the engine alone still mates.
func TestTablebaseEndgames(t *testing.T) {
	t.Parallel()
	src := fakelichess.NewSources()
	t.Cleanup(src.Close)
	if err := src.Solve("KQvK", "KRvK"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ fen string }{
		{"8/8/8/3k4/8/8/8/2Q1K3 w - - 0 1"},
		{"8/8/8/3k4/8/8/8/R3K3 w - - 0 1"},
	} {
		src.SetFault("/standard", fakelichess.SourceFault{})
		before := len(src.Auth())
		dtz := tbDTZ(t, src.URL(), c.fen)
		h, g := endgame(t, c.fen, map[string]string{"PONDEROSA_TABLEBASE": "true", "PONDEROSA_TABLEBASE_URL": src.URL()})
		ours := (len(g.Moves) + 1) / 2
		// The first good answer wins: the engine may be faster near mate
		// (a mate in one found in microseconds) or with the only move.
		// On a loaded machine the engine wins more races.
		if n := tbMoves(h.logs.String()); n == 0 {
			t.Errorf("%s: %d of our %d moves from the tablebase\nlogs:\n%s", c.fen, n, ours, h.logs.String())
		}
		for _, a := range src.Auth()[before:] {
			if a != "" {
				t.Fatalf("the tablebase got Authorization %q", a)
			}
		}
		// The PGN says where each of our moves came from, and the metrics
		// count them by source.
		// Stopping the service waits for the game's runner, which wrote
		// the PGN before it ended.
		if err := h.stop(); err != nil {
			t.Fatal(err)
		}
		pgn, err := os.ReadFile(filepath.Join(h.cfg.PGNDir, g.ID+".pgn"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(pgn), "tablebase: win"); n != tbMoves(h.logs.String()) {
			t.Errorf("%d tablebase notes in the PGN for %d tablebase moves:\n%s", n, tbMoves(h.logs.String()), pgn)
		}
		var metrics strings.Builder
		h.svc.stats.writeMetrics(&metrics)
		if want := fmt.Sprintf(`ponderosa_moves_by_source_total{source="tablebase"} %d`, tbMoves(h.logs.String())); !strings.Contains(metrics.String(), want) {
			t.Errorf("metrics without %q:\n%s", want, metrics.String())
		}
		if len(g.Moves) > dtz {
			t.Errorf("%s: mate after %d plies, DTZ %d", c.fen, len(g.Moves), dtz)
		}
		t.Logf("%s: mate after %d plies (DTZ %d), %d tablebase requests", c.fen, len(g.Moves), dtz, src.Hits("/standard"))
		// The host down: the engine mates alone.
		src.SetFault("/standard", fakelichess.SourceFault{Status: 503})
		h2, g2 := endgame(t, c.fen, map[string]string{"PONDEROSA_TABLEBASE": "true", "PONDEROSA_TABLEBASE_URL": src.URL()})
		if tbMoves(h2.logs.String()) > 0 {
			t.Errorf("a tablebase move with the host down")
		}
		t.Logf("host down: mate after %d plies", len(g2.Moves))
	}
}

// tbDTZ asks the tablebase at base for the DTZ of fen.
func tbDTZ(t *testing.T, base, fen string) int {
	t.Helper()
	c := lichess.New(lichess.Options{BaseURL: base, CallTimeout: time.Minute})
	defer c.Close()
	tb, err := c.TablebaseLookup(context.Background(), "standard", fen)
	if err != nil || tb.DTZ == nil {
		t.Fatalf("tablebase %s: %+v %v", fen, tb, err)
	}
	return *tb.DTZ
}

// tbMoves counts the moves played from the tablebase in the logs.
func tbMoves(logs string) int {
	n := 0
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "msg=move ") && strings.Contains(l, "source=tablebase") {
			n++
		}
	}
	return n
}

// TestSlowSourceNeverDelaysAMove: at 1+0, without pondering, a tablebase
// that answers after 5 s is asked for each move (each lookup would time
// out after at most 1.5 s), yet every move goes out in the engine's time:
// the bot's own time (bot_ms: all but the engine's search) stays under
// the shortest budget any lookup gets (10 s/40 = 250 ms), the quick moves
// near mate take milliseconds, not the lookup's timeout, and the game is
// won on the board.
// The lookups that time out would open the circuit breaker (3 failures in
// a row by default, issue 16) and the source would not be asked for the
// quick moves, where a wait would show: the test raises the threshold.
func TestSlowSourceNeverDelaysAMove(t *testing.T) {
	t.Parallel()
	const budget = 250 // ms: the shortest lookup budget (MinClock 10 s × 1/40)
	src := fakelichess.NewSources()
	t.Cleanup(src.Close)
	src.SetFault("/standard", fakelichess.SourceFault{Delay: 5 * time.Second})
	h, g := endgameWith(t, "8/8/8/3k4/8/8/8/2Q1K3 w - - 0 1", map[string]string{"PONDEROSA_TABLEBASE": "true",
		"PONDEROSA_TABLEBASE_URL": src.URL(), "PONDEROSA_PONDER": "false"},
		func(s *Service) { s.sourceOptions = func(o *movesource.Options) { o.BreakAfter = 1000 } })
	logs := h.logs.String()
	ours := (len(g.Moves) + 1) / 2
	if strings.Contains(logs, `msg="move source skipped for a while"`) {
		t.Fatalf("the breaker opened with its threshold raised\nlogs:\n%s", logs)
	}
	// A move the engine finds in microseconds may go out before its
	// lookup's request even reaches the host.
	if n := src.Hits("/standard"); n < ours/2 {
		t.Fatalf("the tablebase was asked %d times for %d moves\nlogs:\n%s", n, ours, logs)
	}
	if n := tbMoves(logs); n > 0 {
		t.Fatalf("%d tablebase moves from a source slower than its timeout", n)
	}
	quick := 0
	for _, l := range strings.Split(logs, "\n") {
		if !strings.Contains(l, "msg=move ") {
			continue
		}
		ms, bot := -1.0, -1.0
		if i := strings.Index(l, "search_ms="); i >= 0 {
			fmt.Sscanf(l[i+len("search_ms="):], "%g", &ms)
		}
		if i := strings.Index(l, "bot_ms="); i >= 0 {
			fmt.Sscanf(l[i+len("bot_ms="):], "%g", &bot)
		}
		if ms < 0 || bot < 0 || bot >= budget {
			t.Errorf("a move waited for the source (search_ms %g, bot_ms %g): %s", ms, bot, l)
		}
		if ms+bot < 500 {
			quick++
		}
	}
	if quick == 0 {
		t.Errorf("no move under 500 ms in %d plies: the moves waited for the source", len(g.Moves))
	}
	if t.Failed() {
		t.Logf("logs:\n%s", logs)
	}
	t.Logf("%d plies, %d quick moves, %d lookups", len(g.Moves), quick, src.Hits("/standard"))
}

// TestTablebaseVerdicts: the bot offers, accepts or resigns on the
// tablebase's verdict when its settings allow, from positions where the
// score rules would not (move 1, below PONDEROSA_DRAW_MIN_MOVE): a bare
// king against king and queen is a loss (resigned with PONDEROSA_RESIGN,
// at its second move: Lichess aborts a game resigned before both sides
// moved); with the halfmove clock at 90 it is a blessed loss, a draw under
// the fifty-move rule (a draw offered, never resigned); and a lost position
// with resignation off takes the opponent's draw offer.
func TestTablebaseVerdicts(t *testing.T) {
	t.Parallel()
	src := fakelichess.NewSources()
	t.Cleanup(src.Close)
	if err := src.Solve("KQvK"); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"PONDEROSA_TABLEBASE": "true", "PONDEROSA_TABLEBASE_URL": src.URL(), "PONDEROSA_PONDER": "false"}
	cases := []struct {
		name, fen   string
		env         map[string]string
		offerDraw   bool // the opponent offers a draw once the bot has played a tablebase move
		status, who string
		offers      bool // the bot offered a draw
	}{
		{"loss resigned", "q7/8/8/3k4/8/8/8/4K3 w - - 0 1", map[string]string{"PONDEROSA_RESIGN": "true"}, false, "resign", "black", false},
		{"blessed loss offered", "4k3/8/8/8/8/8/8/Q3K3 w - - 90 60",
			map[string]string{"PONDEROSA_RESIGN": "true", "PONDEROSA_OFFER_DRAWS": "true"}, false, "draw", "", true},
		{"loss accepts a draw", "q7/8/8/3k4/8/8/8/4K3 w - - 0 1", nil, true, "draw", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := maps.Clone(base)
			maps.Copy(env, tc.env)
			h := setup(t, fakelichess.Options{Opponent: sparringEngine(2000),
				AcceptDraw: func(fakelichess.GameInfo) bool { return true }}, env)
			h.start()
			// The bot plays the side to move, but Black when White has the
			// queen (an offer before ply 2 is ignored, as Lichess does).
			color := "black"
			if strings.Contains(tc.fen, "Q") {
				color = "white"
			}
			id := h.srv.Challenge(fakelichess.ChallengeSpec{Variant: "fromPosition", FEN: tc.fen, Color: color, ClockLimit: time.Minute})
			h.waitAccepted(id)
			if tc.offerDraw {
				h.waitFor("a tablebase move", 30*time.Second, func() bool {
					g, _ := h.srv.Game(id)
					return tbMoves(h.logs.String()) > 0 && len(g.Moves) >= 2
				})
				if err := h.srv.OpponentOfferDraw(id); err != nil {
					t.Fatal(err)
				}
			}
			g := h.waitOver(id, 60*time.Second)
			if g.Status != tc.status || g.Winner != tc.who {
				t.Fatalf("%s: %s, winner %q after %d plies, want %s %q\nlogs:\n%s", tc.fen, g.Status, g.Winner, len(g.Moves),
					tc.status, tc.who, h.logs.String())
			}
			switch {
			case tc.offerDraw:
				// The bot accepts with draw/yes (which becomes an offer of
				// its own when its move has declined the opponent's first,
				// as on Lichess: the fake opponent then accepts it).
				if h.srv.CountRequests("POST", "/api/bot/game/"+id+"/draw/yes") == 0 {
					t.Errorf("the opponent's offer was not accepted")
				}
			case (g.BotOffers > 0) != tc.offers:
				t.Errorf("the bot offered %d draws", g.BotOffers)
			}
			if tc.status == "resign" && !strings.Contains(h.logs.String(), "tablebase=loss") {
				t.Errorf("resigned without the tablebase's verdict\nlogs:\n%s", h.logs.String())
			}
		})
	}
}
