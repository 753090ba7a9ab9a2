package bot

import (
	"context"
	"fmt"
	"github.com/ponderosa-chess/ponderosa/internal/testbin"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// binDir holds the test helpers built by the tests (set by TestMain).
var binDir string

var relayBuild struct {
	once sync.Once
	path string
	err  error
}

// relayEngine builds the relay test engine (uci/client/testdata/relay):
// Ponderosa's engine behind a relay that injects one fault.
func relayEngine(t *testing.T) string {
	t.Helper()
	relayBuild.once.Do(func() {
		relayBuild.path = filepath.Join(binDir, "relay")
		out, err := exec.Command("go", "build", "-o", relayBuild.path, "../uci/client/testdata/relay").CombinedOutput()
		if err != nil {
			relayBuild.err = err
			t.Logf("%s", out)
		}
	})
	if relayBuild.err != nil {
		t.Fatalf("building the relay engine: %v", relayBuild.err)
	}
	return relayBuild.path
}

// engineGame plays one game of the bot with the external engine in env
// against the fake's sparring engine; the opponent resigns on its turn from resignPly if
// the game is still going. It checks that the game ended without a flag,
// an abort or a rejected move, and returns the game and the figures.
func engineGame(t *testing.T, env map[string]string, spec fakelichess.ChallengeSpec, resignPly int) (fakelichess.GameInfo, Snapshot, string) {
	t.Helper()
	env["PONDEROSA_LOG_LEVEL"] = "debug"
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(300), OpponentDelay: 5 * time.Millisecond}, env)
	h.start()
	id := h.srv.Challenge(spec)
	h.waitAccepted(id)
	ctx, cancel := context.WithTimeout(context.Background(), 3*(spec.ClockLimit+100*spec.ClockIncrement)+30*time.Second)
	defer cancel()
	err := h.srv.WaitUntil(ctx, func() bool {
		g, _ := h.srv.Game(id)
		return g.Status != "started" || len(g.Moves) >= resignPly
	})
	if err != nil {
		t.Fatalf("game %s did not reach ply %d: %v\n%s", id, resignPly, err, h.logs.String())
	}
	if g, _ := h.srv.Game(id); g.Status == "started" {
		h.srv.OpponentResignOnTurn(id) // never while our move may be on its way: every rejection counts
	}
	g := h.waitOver(id, 30*time.Second)
	if err := h.stop(); err != nil {
		t.Errorf("service: %v", err)
	}
	logs := h.logs.String()
	if g.Status == "outoftime" || g.Status == "aborted" || (g.Winner != "" && g.Winner != g.BotColor) {
		t.Errorf("game %s: %s, winner %q, bot %s after %d plies\n%s", id, g.Status, g.Winner, g.BotColor, len(g.Moves), tailLines(logs, id, 40))
	}
	for _, r := range h.srv.Requests() {
		if r.Method == "POST" && strings.Contains(r.Path, "/move/") && r.Status == http.StatusBadRequest {
			t.Errorf("a move was rejected: %s", r.Path)
		}
	}
	noEngineProcesses(t)
	return g, h.svc.Snapshot(), logs
}

// noEngineProcesses checks that no child process of the test is left
// (running or a zombie) once the service has stopped.
func noEngineProcesses(t *testing.T) {
	t.Helper()
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var left []string
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, pid := range strings.Fields(string(b)) {
			cmd, _ := os.ReadFile("/proc/" + pid + "/cmdline")
			c := strings.ReplaceAll(string(cmd), "\x00", " ")
			if strings.Contains(c, "relay") || strings.Contains(c, "/usr/games/") {
				left = append(left, pid+" "+c)
			}
		}
	}
	if len(left) > 0 {
		t.Errorf("engine processes left after the service stopped: %q", left)
	}
}

func uciEnv(cmd, options string) map[string]string {
	return map[string]string{"PONDEROSA_ENGINE": cmd, "PONDEROSA_ENGINE_OPTIONS": options}
}

// TestExternalEnginesPlayGames: UCI engines (the relay, Debian's
// stockfish and ethereal-chess) and xboard engines (fairymax, phalanx)
// play whole games with pondering where supported: legal moves, no flag,
// every move from the engine (no fallback), its reports feeding !eval.
func TestExternalEnginesPlayGames(t *testing.T) {
	for _, tc := range []struct {
		name, path, proto, options string
		ponder                     bool
	}{
		{"relay", "", "uci", "Hash=4", true},
		{"stockfish", "/usr/games/stockfish", "uci", "Hash=16,Threads=1", true},
		{"ethereal", "/usr/games/ethereal-chess", "uci", "Hash=16", true},
		{"fairymax", "/usr/games/fairymax", "xboard", "Hash=8", false},
		{"phalanx", "/usr/games/phalanx", "xboard", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = relayEngine(t)
			} else {
				testbin.Need(t, path)
			}
			env := uciEnv(path, tc.options)
			env["PONDEROSA_ENGINE_PROTOCOL"] = tc.proto
			g, snap, logs := engineGame(t, env, fakelichess.ChallengeSpec{ClockLimit: 10 * time.Second,
				ClockIncrement: 100 * time.Millisecond, Color: "black", Challenger: fakelichess.Player{Name: "Alice", Rating: 1700}}, 50)
			// The embedded engine may play a first move while the process
			// tells a loaded machine's engine the game; never more.
			if len(snap.EngineFaults) > 0 || snap.FallbackMoves > 1 {
				t.Errorf("faults %v, fallback moves %d\n%s", snap.EngineFaults, snap.FallbackMoves, tailLines(logs, "", 60))
			}
			if n := strings.Count(logs, "msg=move "); n < 5 {
				t.Errorf("%d moves logged", n)
			}
			if tc.ponder && snap.PonderHit+snap.PonderMiss == 0 {
				t.Errorf("no ponder search in %d plies", len(g.Moves))
			}
			if n := strings.Count(logs, `msg="ponder hit"`); uint64(n) != snap.PonderHit {
				t.Errorf("%d ponder hits logged, %d counted", n, snap.PonderHit)
			}
			if !strings.Contains(logs, "score=") || strings.Count(logs, "depth=0") > strings.Count(logs, "msg=move ")/2 {
				t.Errorf("the engine's reports did not reach the move log\n%s", tailLines(logs, "msg=move", 10))
			}
			t.Logf("%s: %s in %d plies, ponder hits %d misses %d, bot time median %v", tc.name, g.Status, len(g.Moves),
				snap.PonderHit, snap.PonderMiss, snap.Latency.Median)
		})
	}
}

// TestExternalEngineFaults: the relay crashes, hangs, answers an illegal or
// a malformed move, or floods after two searches, in every process the
// bot starts: each fault is counted, the process killed and restarted, the
// embedded engine plays the moves in between, and the game goes on with no
// flag and no illegal move.
func TestExternalEngineFaults(t *testing.T) {
	relay := relayEngine(t)
	for _, tc := range []struct{ fault, kind string }{
		{"crash", "exit"},
		{"hang", "hang"},
		{"illegal", "illegal"},
		{"malformed", "malformed"},
		{"flood", "flood"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			env := uciEnv(relay+" -fault "+tc.fault+" -after 2", "Hash=4")
			_, snap, logs := engineGame(t, env, fakelichess.ChallengeSpec{ClockLimit: 10 * time.Second,
				ClockIncrement: 100 * time.Millisecond, Color: "white"}, 24)
			if snap.EngineFaults[tc.kind] == 0 || snap.FallbackMoves == 0 {
				t.Errorf("faults %v, fallback moves %d", snap.EngineFaults, snap.FallbackMoves)
			}
			if !strings.Contains(logs, "external engine restarted") || !strings.Contains(logs, "fault="+tc.kind) {
				t.Errorf("no restart or no fault logged\n%s", tailLines(logs, "level=WARN", 20))
			}
			t.Logf("faults %v, fallback moves %d", snap.EngineFaults, snap.FallbackMoves)
		})
	}
}

// TestExternalEngineStartFailure: an engine that fails at start stops the
// bot with its path, exit status and last standard error lines; an option
// the engine does not announce stops it naming the option.
func TestExternalEngineStartFailure(t *testing.T) {
	relay := relayEngine(t)
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{uciEnv(relay+" -fault die", ""), []string{"PONDEROSA_ENGINE", relay, "exit status 2", "nets/missing.pb"}},
		{uciEnv(relay, "Hash=4,Contempt=20"), []string{"PONDEROSA_ENGINE", `"Contempt"`}},
		{uciEnv(filepath.Join(binDir, "no-such-engine"), ""), []string{"no-such-engine"}},
	} {
		h := setup(t, fakelichess.Options{}, tc.env)
		svc := newService(h.cfg, h.client, Options{Logger: slog.New(slog.DiscardHandler)})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := svc.Run(ctx)
		cancel()
		if err == nil {
			t.Errorf("%v: the bot started", tc.env)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q does not say %q", err, w)
			}
		}
		if n := len(h.srv.Requests()); n > 1 {
			t.Errorf("%d requests to Lichess before the engine check failed", n)
		}
	}
}

// TestBulletWithStockfish plays games at once with Stockfish behind the
// bot and 30 ms of latency on every request: no flag, and the bot's own
// time per move (event received → position and go sent, bestmove read →
// move request sent) has a median under 1 ms (checked in the long run).
// CI plays 4 games of
// 15+0.2 (under the race detector on two shared cores, like TestManyGames);
// PONDEROSA_LONG=1 plays 4 whole games of 1+0 (PONDEROSA_LOAD_CLOCK and
// PONDEROSA_LOAD_INCREMENT override).
func TestBulletWithStockfish(t *testing.T) {
	sf := testbin.Need(t, "/usr/games/stockfish")
	games, clock, inc := 4, 15*time.Second, 200*time.Millisecond
	if long() {
		clock, inc = time.Minute, 0
	}
	if d, err := time.ParseDuration(os.Getenv("PONDEROSA_LOAD_INCREMENT")); err == nil {
		inc = d
	}
	if d, err := time.ParseDuration(os.Getenv("PONDEROSA_LOAD_CLOCK")); err == nil {
		clock = d
	}
	env := uciEnv(sf, "Hash=16,Threads=1")
	env["PONDEROSA_MAX_GAMES"] = strconv.Itoa(games)
	env["PONDEROSA_THREADS"] = "2"
	env["PONDEROSA_LOG_LEVEL"] = "info"
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(300), OpponentDelay: 5 * time.Millisecond}, env)
	h.srv.SetLatency(30 * time.Millisecond)
	h.start()
	// The processes start ahead of the games, as a bot that has been up
	// for a moment has them.
	h.poll(fmt.Sprintf("%d spare engine processes", games), time.Minute, func() bool { return len(h.svc.spares.c) >= games })
	var ids []string
	for i := range games {
		color := "white"
		if i%2 == 1 {
			color = "black"
		}
		ids = append(ids, h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: clock, ClockIncrement: inc, Color: color}))
	}
	for _, id := range ids {
		h.waitAccepted(id)
	}
	// The short version ends games that drag on past 100 plies (the
	// opponent resigns), to keep CI quick.
	resignAt := 100
	if long() {
		resignAt = 1 << 30
	}
	var games2 []fakelichess.GameInfo
	for _, id := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), 3*clock+time.Minute)
		err := h.srv.WaitUntil(ctx, func() bool {
			g, _ := h.srv.Game(id)
			return g.Status != "started" || len(g.Moves) >= resignAt
		})
		cancel()
		if err != nil {
			t.Fatalf("game %s: %v", id, err)
		}
		if g, _ := h.srv.Game(id); g.Status == "started" {
			h.srv.OpponentResignOnTurn(id)
		}
		games2 = append(games2, h.waitOver(id, 30*time.Second))
	}
	h.stop()
	for _, g := range games2 {
		if g.Status == "outoftime" && g.Winner != g.BotColor {
			t.Errorf("game %s lost on time after %d plies; %s\nits log:\n%s", g.ID, len(g.Moves), clockTrail(g), h.logs.Grep(g.ID))
		}
		if g.Status == "aborted" {
			t.Errorf("game %s aborted", g.ID)
		}
	}
	snap := h.svc.Snapshot()
	// No fault is injected here: a move post that failed is a move the
	// bot gave up on (once, a deadline cut their answers under load).
	if snap.MoveErrors != 0 {
		t.Errorf("%d move posts failed:\n%s", snap.MoveErrors, h.logs.Grep("move not posted"))
	}
	// The figures are the long run's to judge (no race detector, a machine
	// to itself); CI's two shared cores under -race can starve Stockfish
	// past its stop deadline (a fault the game survives) and slow the bot.
	if long() {
		if len(snap.EngineFaults) > 0 {
			t.Errorf("engine faults %v", snap.EngineFaults)
		}
		if snap.Latency.Median >= time.Millisecond {
			t.Errorf("bot time per move: median %v, want under 1 ms", snap.Latency.Median)
		}
	}
	for _, r := range h.srv.Requests() {
		if r.Method == "POST" && strings.Contains(r.Path, "/move/") && r.Status == http.StatusBadRequest {
			t.Errorf("a move was rejected: %s", r.Path)
		}
	}
	var ends []string
	for _, g := range games2 {
		ends = append(ends, fmt.Sprintf("%s %s/%s %d plies", g.Status, g.Winner, g.BotColor, len(g.Moves)))
		t.Logf("game %s: %s", g.ID, clockTrail(g))
	}
	t.Logf("%d games of %v+%v at once with Stockfish, 30 ms latency: %v; %d moves posted; bot time per move median %v p90 %v max %v; move round trip median %v; flags %d; faults %v, fallback moves %d",
		games, clock, inc, ends, snap.Moves, snap.Latency.Median, snap.Latency.P90, snap.Latency.Max, snap.RoundTrip.Median, snap.FlagLosses, snap.EngineFaults, snap.FallbackMoves)
}

// clockTrail says where a game's time went: each move's cost on its
// mover's clock, the bot's moves marked with a star (counted from White's
// first move: games from the starting position).
func clockTrail(g fakelichess.GameInfo) string {
	var b strings.Builder
	b.WriteString("clock per move (bot's starred):")
	for i, d := range g.Spent {
		star := ""
		if (i%2 == 0) == (g.BotColor == "white") {
			star = "*"
		}
		fmt.Fprintf(&b, " %d.%s%s", i+1, star, d.Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "; left white %v black %v", g.WTime, g.BTime)
	return b.String()
}
