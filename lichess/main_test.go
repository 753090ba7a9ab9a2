package lichess_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ponderosa-chess/ponderosa/internal/testlog"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer = testlog.Buffer

type env struct {
	srv *fakelichess.Server
	c   *lichess.Client
	log *syncBuffer
}

// setup starts a fake Lichess with fast keep-alives and a client with short
// timeouts; both are closed when the test ends.
func setup(t *testing.T, fo fakelichess.Options, co lichess.Options) *env {
	t.Helper()
	if fo.KeepAlive == 0 {
		fo.KeepAlive = 30 * time.Millisecond
	}
	if fo.Seed == 0 {
		fo.Seed = 7
	}
	srv := fakelichess.New(fo)
	logs := &syncBuffer{}
	co.BaseURL = srv.URL()
	if co.Token == "" {
		co.Token = srv.Token()
	}
	if co.UserAgent == "" {
		co.UserAgent = "ponderosa-test/0.1"
	}
	co.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&co.EventIdleTimeout, time.Second)
	def(&co.GameIdleTimeout, time.Second)
	def(&co.ReconnectMin, 5*time.Millisecond)
	def(&co.ReconnectMax, 50*time.Millisecond)
	def(&co.RetryBackoff, time.Millisecond)
	c := lichess.New(co)
	t.Cleanup(func() {
		srv.Close()
		c.Close()
	})
	return &env{srv: srv, c: c, log: logs}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// fakeClock is a manual clock for the 429 pause.
type fakeClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers map[chan struct{}]time.Time
	changed  chan struct{}
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Unix(1_800_000_000, 0), sleepers: map[chan struct{}]time.Time{}, changed: make(chan struct{})}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	if d <= 0 {
		c.mu.Unlock()
		return ctx.Err()
	}
	ch := make(chan struct{})
	c.sleepers[ch] = c.now.Add(d)
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.sleepers, ch)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves time forward and wakes the sleepers whose time has come.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for ch, until := range c.sleepers {
		if !until.After(c.now) {
			close(ch)
			delete(c.sleepers, ch)
		}
	}
}

// waitSleepers blocks until n goroutines sleep on the clock.
func (c *fakeClock) waitSleepers(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		k, ch := len(c.sleepers), c.changed
		c.mu.Unlock()
		if k >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %d sleepers (have %d)", n, k)
		}
	}
}
