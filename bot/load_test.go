package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestManyGames plays bullet games against the fake's engine opponent with
// 30 ms of latency on every request and every stream cut every few seconds:
// no game may be lost on time, no move may be illegal, and every move must
// be made (a missed move after a stream drop would end in a flag or an
// abort). The short version runs in CI; PONDEROSA_LONG=1 runs 200 games of
// 1+0 with 8 at once (PONDEROSA_LOAD_GAMES, PONDEROSA_LOAD_CONCURRENCY,
// PONDEROSA_LOAD_CLOCK and PONDEROSA_LOAD_INCREMENT override the numbers).
func TestManyGames(t *testing.T) {
	// The short version adds a small increment: CI runs it under the race
	// detector (several times slower) on two shared cores.
	games, conc, clock, inc := 4, 2, 15*time.Second, 200*time.Millisecond
	if long() {
		games, conc, clock, inc = 200, 8, time.Minute, 0
	}
	games = envInt("PONDEROSA_LOAD_GAMES", games)
	conc = envInt("PONDEROSA_LOAD_CONCURRENCY", conc)
	if d, err := time.ParseDuration(os.Getenv("PONDEROSA_LOAD_CLOCK")); err == nil {
		clock = d
	}
	if d, err := time.ParseDuration(os.Getenv("PONDEROSA_LOAD_INCREMENT")); err == nil {
		inc = d
	}
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(300), OpponentDelay: 5 * time.Millisecond},
		map[string]string{"PONDEROSA_MAX_GAMES": strconv.Itoa(conc), "PONDEROSA_QUEUE": strconv.Itoa(conc),
			"PONDEROSA_THREADS": "2", "PONDEROSA_LOG_LEVEL": "info"})
	h.srv.SetLatency(30 * time.Millisecond)
	h.start()

	stop := make(chan struct{})
	var drops atomic.Int32
	var bg sync.WaitGroup
	bg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Second):
				h.srv.DropStreams()
				drops.Add(1)
			}
		}
	})

	var mu sync.Mutex
	statuses := map[string]int{}
	var flags, aborted int
	next := atomic.Int32{}
	var players sync.WaitGroup
	start := time.Now()
	for range conc {
		players.Go(func() {
			for int(next.Add(1)) <= games && !t.Failed() {
				id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: clock, ClockIncrement: inc})
				ctxDeadline := 3*clock + time.Minute
				// Not h.waitFor and h.waitOver: they end the test with
				// t.Fatal, which only the test's goroutine may call.
				wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				err := h.srv.WaitUntil(wctx, func() bool { st, _ := h.challengeStatus(id); return st != "created" })
				cancel()
				if st, reason := h.challengeStatus(id); err != nil || st != "accepted" {
					t.Errorf("challenge %s %s %s (%v)", id, st, reason, err)
					return
				}
				wctx, cancel = context.WithTimeout(context.Background(), ctxDeadline)
				g, err := h.srv.WaitGameOver(wctx, id)
				cancel()
				if err != nil {
					t.Errorf("game %s not over: %v (state %+v)", id, err, g)
					return
				}
				mu.Lock()
				statuses[g.Status]++
				if g.Status == "outoftime" && g.Winner != g.BotColor {
					flags++
					t.Errorf("game %s lost on time after %d plies (clocks %v %v)\n%s", id, len(g.Moves), g.WTime, g.BTime, tailLines(h.logs.String(), id, 30))
				}
				if g.Status == "aborted" {
					aborted++
					t.Errorf("game %s aborted", id)
				}
				mu.Unlock()
			}
		})
	}
	players.Wait()
	close(stop)
	bg.Wait()
	elapsed := time.Since(start)
	h.stop()

	illegal := 0
	for _, r := range h.srv.Requests() {
		if r.Method == "POST" && strings.Contains(r.Path, "/move/") && r.Status == http.StatusBadRequest {
			illegal++
		}
	}
	if illegal > 0 {
		t.Errorf("%d moves rejected by the server\n%s", illegal, tailLines(h.logs.String(), "level=WARN", 20))
	}
	snap := h.svc.Snapshot()
	t.Logf("%d games (%d at once, %v+%v, 30ms latency) in %v: %v; %d stream drops; flags %d, aborted %d, rejected moves %d",
		games, conc, clock, inc, elapsed.Round(time.Second), statuses, drops.Load(), flags, aborted, illegal)
	t.Logf("moves %d; bot time beyond search: median %v p90 %v max %v; move round trip median %v max %v; learned overhead %v; ponder hits %d misses %d",
		snap.Moves, snap.Latency.Median, snap.Latency.P90, snap.Latency.Max, snap.RoundTrip.Median, snap.RoundTrip.Max,
		snap.Overhead, snap.PonderHit, snap.PonderMiss)
}

// TestStatusEndpoint reads /healthz, /status and /metrics while a game runs.
func TestStatusEndpoint(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{Opponent: fakelichess.Slow(50*time.Millisecond, sparringEngine(200))}, nil)
	h.start()
	ts := httptest.NewServer(h.svc.stats.handler())
	defer ts.Close()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	h.waitAccepted(id)
	h.waitFor("moves", 20*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 4 })
	get := func(path string) (int, string) { return httpGet(t, ts.URL+path) }
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("healthz: %d %q", code, body)
	}
	_, body := get("/status")
	var snap Snapshot
	if err := json.Unmarshal([]byte(body), &snap); err != nil {
		t.Fatalf("status: %v\n%s", err, body)
	}
	if len(snap.Live) != 1 || snap.Live[0].ID != id || snap.Moves == 0 || snap.Latency.Count == 0 {
		t.Errorf("status: %s", body)
	}
	_, metrics := get("/metrics")
	for _, want := range []string{"ponderosa_up 1", "ponderosa_games_active 1", "ponderosa_moves_total ",
		`ponderosa_move_latency_seconds{quantile="0.5"}`, `ponderosa_challenges_total{decision="accept"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q:\n%s", want, metrics)
		}
	}
	if strings.Contains(body+metrics, h.srv.Token()) {
		t.Error("token in the status output")
	}
	h.srv.OpponentResign(id)
	h.waitOver(id, 10*time.Second)
	h.stop()
	if code, _ := get("/healthz"); code != http.StatusServiceUnavailable {
		t.Errorf("healthz after stop: %d", code)
	}
	_, body = get("/status")
	if !strings.Contains(body, `"result": "win"`) {
		t.Errorf("recent results after the game: %s", body)
	}
}

// httpGet returns the status and body of a GET of url.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestSearchPanicLogsItsStack makes a search panic inside the engine: the
// game is resigned, and the log shows the stack where the search panicked
// (the report func below), not only where the runner raised it again.
func TestSearchPanicLogsItsStack(t *testing.T) {
	h := setup(t, fakelichess.Options{Opponent: sparringEngine(200)}, nil)
	h.start()
	h.svc.searchInfo = func(engine.Info) { panic("injected search failure") }
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 20 * time.Second, Color: "black"})
	h.waitAccepted(id)
	// Resigning before the second move aborts the game.
	if g := h.waitOver(id, 30*time.Second); (g.Status != "resign" && g.Status != "aborted") || g.Winner == g.BotColor {
		t.Errorf("game: %s winner %q, want our resignation", g.Status, g.Winner)
	}
	h.waitFor("crash logged", 10*time.Second, func() bool { return strings.Contains(h.logs.String(), "game crashed") })
	logs := h.logs.String()
	for _, want := range []string{"injected search failure", "TestSearchPanicLogsItsStack.func1", "engine.(*worker)"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the crash log lacks %q:\n%s", want, logs)
		}
	}
}

// TestGamePanicIsolated makes one game panic: that game is resigned, the
// other game and the service carry on.
func TestGamePanicIsolated(t *testing.T) {
	h := setup(t, fakelichess.Options{Opponent: fakelichess.Slow(20*time.Millisecond, sparringEngine(200))}, nil)
	var victim atomic.Value
	victim.Store("")
	h.start()
	h.svc.beforeMove = func(id string, ply int) {
		if id == victim.Load().(string) && ply >= 2 {
			panic(fmt.Sprintf("injected failure in %s", id))
		}
	}
	a := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 20 * time.Second, Color: "black"})
	victim.Store(a)
	h.waitAccepted(a)
	b := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 8 * time.Second})
	h.waitAccepted(b)
	ga := h.waitOver(a, 30*time.Second)
	if ga.Status != "resign" || ga.Winner == ga.BotColor {
		t.Errorf("panicking game: %s winner %q", ga.Status, ga.Winner)
	}
	// The other game goes on, and the service still takes new games.
	h.waitFor("other game goes on", 30*time.Second, func() bool { g, _ := h.srv.Game(b); return len(g.Moves) >= 8 || g.Over() })
	if !strings.Contains(h.logs.String(), "game crashed") {
		t.Error("crash not logged")
	}
	c := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 5 * time.Second})
	h.waitAccepted(c)
	h.waitFor("new game played", 30*time.Second, func() bool { g, _ := h.srv.Game(c); return len(g.Moves) >= 4 || g.Over() })
	for _, id := range []string{b, c} {
		if g, _ := h.srv.Game(id); !g.Over() {
			h.srv.OpponentResign(id)
		}
		checkFair(t, h.waitOver(id, 30*time.Second))
	}
}

// tailLines returns the last n lines of logs that contain substr.
func tailLines(logs, substr string, n int) string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, "\n")
}

// BenchmarkGameLatency plays one game per iteration (10+0.1 against the
// fake's engine opponent, no injected latency) and reports the time the bot
// adds to a move beyond the search: median and maximum over all moves, and
// the move request's round trip. Run it with -benchtime=5x for five games.
func BenchmarkGameLatency(b *testing.B) {
	srv := fakelichess.New(fakelichess.Options{Opponent: sparringEngine(300), OpponentDelay: time.Millisecond})
	defer srv.Close()
	cfg := benchConfig(b, srv)
	client := newTestClient(srv, cfg)
	defer client.Close()
	ready := make(chan struct{})
	svc := newService(cfg, client, Options{OnReady: func(*lichess.User) { close(ready) }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	<-ready
	b.ResetTimer()
	for range b.N {
		id := srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 10 * time.Second, ClockIncrement: 100 * time.Millisecond})
		wctx, wcancel := context.WithTimeout(context.Background(), 2*time.Minute)
		g, err := srv.WaitGameOver(wctx, id)
		wcancel()
		if err != nil {
			b.Fatal(err)
		}
		if g.Status == "outoftime" && g.Winner != g.BotColor {
			b.Errorf("lost on time")
		}
	}
	b.StopTimer()
	cancel()
	<-done
	snap := svc.Snapshot()
	b.ReportMetric(float64(snap.Latency.Median.Microseconds()), "median-µs/move")
	b.ReportMetric(float64(snap.Latency.Max.Microseconds()), "max-µs/move")
	b.ReportMetric(float64(snap.RoundTrip.Median.Microseconds()), "post-rtt-µs")
	b.ReportMetric(float64(snap.Moves)/float64(b.N), "moves/game")
}

func benchConfig(b *testing.B, srv *fakelichess.Server) config.Config {
	m := map[string]string{"LICHESS_URL": srv.URL(), "LICHESS_TOKEN": srv.Token(), "PONDEROSA_THREADS": "1",
		"PONDEROSA_HASH_MB": "16", "PONDEROSA_PGN_DIR": "none", "PONDEROSA_SPEEDS": "ultraBullet,bullet",
		"PONDEROSA_GREETING": "none", "PONDEROSA_GREETING_SPECTATOR": "none"}
	cfg, err := config.Load(func(k string) string { return m[k] })
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}
