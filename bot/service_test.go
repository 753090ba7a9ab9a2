package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/time/rate"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/internal/testlog"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ponderosa-bot-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak: errors on successful test run:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// long reports whether the long variants of the tests should run.
func long() bool { return os.Getenv("PONDEROSA_LONG") == "1" }

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer = testlog.Buffer

// harness is a fake Lichess, the real client and a running Service.
type harness struct {
	t      *testing.T
	srv    *fakelichess.Server
	client *lichess.Client
	cfg    config.Config
	svc    *Service
	logs   *syncBuffer
	// statusLn, when set before start, serves the status page.
	statusLn net.Listener
	// store, when set before start, is the service's memory.
	store store.Store
	// beforeRun, when set before start, adjusts the Service before Run.
	beforeRun func(*Service)
	// infoLogs, when set before start, keeps the debug lines out of logs
	// (a test of hundreds of games measures the heap).
	infoLogs bool
	cancel   context.CancelFunc
	done     chan error
}

// setup starts a fake Lichess with opts; env adds settings to the bot's
// config. The service is not started: call h.start.
func setup(t *testing.T, opts fakelichess.Options, env map[string]string) *harness {
	t.Helper()
	srv := fakelichess.New(opts)
	t.Cleanup(srv.Close)
	h := &harness{t: t, srv: srv, logs: &syncBuffer{}}
	m := map[string]string{
		"LICHESS_URL":             srv.URL(),
		"LICHESS_TOKEN":           srv.Token(),
		"PONDEROSA_THREADS":       "1",
		"PONDEROSA_HASH_MB":       "4",
		"PONDEROSA_PGN_DIR":       t.TempDir(),
		"PONDEROSA_DRAIN_TIMEOUT": "20s",
		// Test games use sub-minute clocks, which Lichess calls ultraBullet.
		"PONDEROSA_SPEEDS": "ultraBullet,bullet,blitz,rapid,classical",
	}
	for k, v := range env {
		m[k] = v
	}
	cfg, err := config.Load(func(k string) string { return m[k] })
	if err != nil {
		t.Fatal(err)
	}
	h.cfg = cfg
	h.client = newTestClient(srv, cfg)
	t.Cleanup(h.client.Close)
	return h
}

func newTestClient(srv *fakelichess.Server, cfg config.Config) *lichess.Client {
	return lichess.New(lichess.Options{
		BaseURL: cfg.URL, Token: cfg.Token.Reveal(),
		// Many fast games at once: the fake has no request quota.
		Limiter:      rate.NewLimiter(rate.Inf, 1),
		ReconnectMin: 20 * time.Millisecond, ReconnectMax: 200 * time.Millisecond,
		RetryBackoff: 20 * time.Millisecond,
	})
}

// start runs a new Service until h.stop.
func (h *harness) start() {
	h.t.Helper()
	ready := make(chan struct{})
	level := slog.LevelDebug
	if h.infoLogs {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: level}))
	h.svc = newService(h.cfg, h.client, Options{Logger: log, Version: "ponderosa test",
		OnReady: func(*lichess.User) { close(ready) }, StatusListener: h.statusLn, Store: h.store})
	if h.beforeRun != nil {
		h.beforeRun(h.svc)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan error, 1)
	go func() { h.done <- h.svc.Run(ctx) }()
	// Stopped at the end even when it never gets ready (an external
	// engine's start-up check may still be running: its processes must go).
	h.t.Cleanup(func() { h.stop() })
	select {
	case <-ready:
	case err := <-h.done:
		h.cancel = nil
		cancel()
		h.t.Fatalf("service stopped at start: %v", err)
	case <-time.After(60 * time.Second):
		h.t.Fatal("service not ready")
	}
}

// stop cancels the service and waits for Run to return.
func (h *harness) stop() error {
	if h.cancel == nil {
		return nil
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		return err
	case <-time.After(60 * time.Second):
		h.t.Fatal("service did not stop")
	}
	return nil
}

// waitOver waits for a game to end.
func (h *harness) waitOver(id string, within time.Duration) fakelichess.GameInfo {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	g, err := h.srv.WaitGameOver(ctx, id)
	if err != nil {
		h.t.Fatalf("game %s not over: %v (state %+v)\nlogs:\n%s", id, err, g, h.logs.String())
	}
	return g
}

// resignAfter waits until game id has at least plies moves, then resigns
// it for the opponent; a game the bot has won on the board by then (a
// mate) is left as it ended.
func (h *harness) resignAfter(id string, plies int, within time.Duration) {
	h.t.Helper()
	h.waitFor(fmt.Sprintf("%d plies of %s", plies, id), within, func() bool {
		g, ok := h.srv.Game(id)
		return ok && (len(g.Moves) >= plies || g.Over())
	})
	if err := h.srv.OpponentResign(id); err != nil {
		if g, _ := h.srv.Game(id); !g.Over() {
			h.t.Fatal(err)
		}
	}
}

// play sends a challenge, checks that the bot accepts it, and waits for
// the game to end.
func (h *harness) play(spec fakelichess.ChallengeSpec, within time.Duration) fakelichess.GameInfo {
	h.t.Helper()
	id := h.srv.Challenge(spec)
	h.waitAccepted(id)
	return h.waitOver(id, within)
}

// waitAccepted waits for the bot to accept challenge id.
func (h *harness) waitAccepted(id string) {
	h.t.Helper()
	h.waitFor("challenge answered", 10*time.Second, func() bool {
		st, _ := h.challengeStatus(id)
		return st != "created"
	})
	if st, reason := h.challengeStatus(id); st != "accepted" {
		h.t.Fatalf("challenge %s: %s %s", id, st, reason)
	}
}

// waitFor waits until cond holds.
func (h *harness) waitFor(what string, within time.Duration, cond func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	if err := h.srv.WaitUntil(ctx, cond); err != nil {
		h.t.Fatalf("%s: %v\nlogs:\n%s", what, err, h.logs.String())
	}
}

// poll waits for cond on the service's own state, which no change of the
// fake marks (WaitUntil cannot see it): it looks every 5 ms and fails the
// test after within.
func (h *harness) poll(what string, within time.Duration, cond func() bool) {
	h.t.Helper()
	for deadline := time.Now().Add(within); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: not within %v\nlogs:\n%s", what, within, h.logs.String())
		}
	}
}

// challengeStatus returns a challenge's status and decline reason.
func (h *harness) challengeStatus(id string) (string, string) {
	c, ok := h.srv.ChallengeState(id)
	if !ok {
		return "", ""
	}
	return c.Status, c.DeclineReason
}

// answeredChallenges returns the bot's own challenges that the opponent has
// answered (accepted or declined), in the order they were sent.
func (h *harness) answeredChallenges() []fakelichess.ChallengeInfo {
	var out []fakelichess.ChallengeInfo
	for _, c := range h.srv.Challenges() {
		if !c.Incoming && c.Status != "created" {
			out = append(out, c)
		}
	}
	return out
}

// checkFair fails when the bot lost on time or played an illegal move.
func checkFair(t *testing.T, g fakelichess.GameInfo) {
	t.Helper()
	if g.Status == "outoftime" && g.Winner != g.BotColor {
		t.Errorf("game %s: bot lost on time after %d moves (clocks %v/%v)", g.ID, len(g.Moves), g.WTime, g.BTime)
	}
	if g.Status == "aborted" {
		t.Errorf("game %s aborted", g.ID)
	}
}

func TestPlaysAGame(t *testing.T) {
	h := setup(t, fakelichess.Options{}, nil)
	h.start()
	g := h.play(fakelichess.ChallengeSpec{ClockLimit: 5 * time.Second, ClockIncrement: 100 * time.Millisecond}, 90*time.Second)
	checkFair(t, g)
	if len(g.Moves) < 2 {
		t.Errorf("only %d moves", len(g.Moves))
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	snap := h.svc.Snapshot()
	if snap.Moves == 0 || snap.Latency.Count == 0 {
		t.Errorf("no moves recorded: %+v", snap)
	}
	t.Logf("%d plies, %s %s; latency median %v max %v", len(g.Moves), g.Status, g.Winner, snap.Latency.Median, snap.Latency.Max)
	if !errors.Is(context.Canceled, context.Canceled) {
		t.Fatal()
	}
}

// sparringEngine is the fake's engine opponent at nodes per move.
func sparringEngine(nodes uint64) fakelichess.Opponent { return fakelichess.EngineOpponent(nodes) }
