package bot

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// TestHealthFollowsTheEventStream: while the event stream is down and
// every reconnect fails, /healthz answers 503 with since when and why,
// ponderosa_up is 0 and /status says so; once it reconnects all is well
// again (issue 13: healthz said healthy through the outage).
func TestHealthFollowsTheEventStream(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, nil)
	h.start()
	defer h.stop()
	ts := httptest.NewServer(h.svc.stats.handler())
	defer ts.Close()
	get := func(path string) (int, string) { return httpGet(t, ts.URL+path) }
	// A challenge the bot declines went through the open stream.
	streamWorks := func() {
		id := h.srv.Challenge(fakelichess.ChallengeSpec{Variant: "atomic", ClockLimit: time.Minute})
		h.waitFor("challenge answered", 10*time.Second, func() bool { st, _ := h.challengeStatus(id); return st != "created" })
	}
	streamWorks()
	if !h.svc.Snapshot().Healthy {
		t.Fatalf("not healthy with the stream up: %+v", h.svc.Snapshot().EventStream)
	}
	if code, body := get("/healthz"); code != 200 {
		t.Fatalf("healthz with the stream up: %d %q", code, body)
	}

	h.srv.InjectFault(fakelichess.Fault{Path: "/api/stream/event", Status: 503, Count: 1000})
	opens := h.srv.CountRequests("GET", "/api/stream/event")
	h.srv.DropStreams()
	h.waitFor("failed reconnects", 10*time.Second, func() bool {
		return h.srv.CountRequests("GET", "/api/stream/event") >= opens+2 && !h.svc.Snapshot().Healthy
	})
	code, body := get("/healthz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "reconnecting since") || !strings.Contains(body, "503") {
		t.Errorf("healthz with the stream down: %d %q", code, body)
	}
	if _, m := get("/metrics"); !strings.Contains(m, "ponderosa_up 0\n") {
		t.Errorf("metrics with the stream down lack ponderosa_up 0")
	}
	if snap := h.svc.Snapshot(); snap.EventStream.Connected || snap.EventStream.Since.IsZero() || snap.EventStream.LastError == "" {
		t.Errorf("status with the stream down: %+v", snap.EventStream)
	}

	h.srv.ClearFaults()
	streamWorks()
	if !h.svc.Snapshot().Healthy {
		t.Errorf("not healthy after the reconnect: %+v", h.svc.Snapshot().EventStream)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("healthz after the reconnect: %d", code)
	}
}

// TestStatusDoesNotSortPerRequest: /status and /metrics reuse the latency
// summary instead of sorting 2 × 65536 samples for every request.
func TestStatusDoesNotSortPerRequest(t *testing.T) {
	s := newStats(nil)
	for i := range maxLatencySamples + 10 {
		s.addLatency(time.Duration(i), time.Duration(2*i))
	}
	ts := httptest.NewServer(s.handler())
	defer ts.Close()
	for range 50 {
		for _, p := range []string{"/status", "/metrics"} {
			resp, err := http.Get(ts.URL + p)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		s.addLatency(time.Millisecond, time.Millisecond) // new samples keep coming
	}
	s.mu.Lock()
	n := s.summaries
	s.mu.Unlock()
	if n > 2 {
		t.Errorf("100 requests sorted the samples %d times", n)
	}
	if lat, _ := s.Latency(); lat.Count < maxLatencySamples+10 || lat.Median == 0 {
		t.Errorf("summary %+v", lat)
	}
}

// TestStatusServerTimeouts: the status server bounds every phase of a
// connection (issue 13: no IdleTimeout or WriteTimeout): a client that
// never reads a large answer is cut off after the write deadline.
func TestStatusServerTimeouts(t *testing.T) {
	t.Parallel()
	srv := newStatusServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Errorf("status server limits: header %v write %v idle %v header bytes %d",
			srv.ReadHeaderTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
	// A handler writing far more than the socket buffers hold, to a client
	// that reads nothing: the write deadline ends it.
	ended := make(chan error, 1)
	big := newStatusServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 1<<20)
		for {
			if _, err := w.Write(chunk); err != nil {
				ended <- err
				return
			}
		}
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go big.Serve(ln)
	defer big.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case err := <-ended:
		t.Logf("write to a client that does not read ended: %v", err)
	case <-time.After(srv.WriteTimeout + 20*time.Second):
		t.Fatal("a client that never reads holds the handler past the write deadline")
	}
}

// TestUnplayableStartPosition: a fromPosition challenge whose FEN the
// engine cannot set up is declined with "standard"; a game whose start
// position turns out unplayable anyway is aborted at once rather than left
// hanging (issue 13).
func TestUnplayableStartPosition(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, nil)
	h.start()
	defer h.stop()
	const crowded = "QQQQQQQQ/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/QQQQQQQQ/K6k b - - 0 1"
	id := h.srv.Challenge(fakelichess.ChallengeSpec{Variant: "fromPosition", FEN: crowded, ClockLimit: time.Minute})
	h.waitFor("challenge answered", 10*time.Second, func() bool { st, _ := h.challengeStatus(id); return st != "created" })
	if st, reason := h.challengeStatus(id); st != "declined" || reason != "standard" {
		t.Errorf("challenge with an unplayable FEN: %s %q, want declined standard", st, reason)
	}

	// An odd but legal set-up (more promoted pieces than missing pawns) is
	// played; one reported unplayable by the game stream is aborted.
	odd := h.srv.Challenge(fakelichess.ChallengeSpec{Variant: "fromPosition", FEN: "4k3/8/8/8/8/QQ1Q4/PPPPPPPP/4K3 w - - 0 1", ClockLimit: time.Minute})
	h.waitAccepted(odd)
	h.waitFor("a move in the odd set-up", 20*time.Second, func() bool { g, _ := h.srv.Game(odd); return len(g.Moves) > 0 })
	h.srv.OpponentResign(odd)

	bad := h.srv.Challenge(fakelichess.ChallengeSpec{Variant: "fromPosition", FEN: "4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", GameFEN: crowded, ClockLimit: time.Minute})
	h.waitAccepted(bad)
	g := h.waitOver(bad, 5*time.Second)
	if g.Status != "aborted" || h.srv.CountRequests("POST", "/api/bot/game/"+bad+"/abort") == 0 {
		t.Errorf("unplayable game: status %s, %d abort requests", g.Status, h.srv.CountRequests("POST", "/api/bot/game/"+bad+"/abort"))
	}
}

// TestMemoryBudgetCheckedAtStart: 64 games × 4096 MiB of hash (256 GiB)
// used to be accepted; the service refuses to start, saying why.
func TestMemoryBudgetCheckedAtStart(t *testing.T) {
	avail, ok := engine.AvailableMemory()
	if !ok {
		t.Skip("available memory cannot be measured here")
	}
	if avail > 64*engine.HashBytes(4096) {
		t.Skipf("%d MiB available: 64 games of 4096 MiB fit", avail>>20)
	}
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_MAX_GAMES": "64", "PONDEROSA_HASH_MB": "4096"})
	svc := newService(h.cfg, h.client, Options{})
	err := svc.Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "PONDEROSA_MAX_GAMES (64) × PONDEROSA_HASH_MB (4096 MiB)") || !errors.Is(err, engine.ErrNoMemory) {
		t.Errorf("Run = %v, want a refusal naming both settings", err)
	}
	if n := h.srv.CountRequests("GET", "/"); n != 0 {
		t.Errorf("%d requests before the refusal", n)
	}
}

// TestEnginePoolBoundsMemory: at most max full-size engines exist (in
// games and free); games beyond the limit (resumed, or started elsewhere)
// get a minimal hash table that is not kept.
func TestEnginePoolBoundsMemory(t *testing.T) {
	p := &enginePool{opts: botEngineOptions(4), max: 2}
	e1, f1 := p.get()
	_, f2 := p.get()
	e3, f3 := p.get()
	if !f1 || !f2 || f3 {
		t.Fatalf("full-size engines: %v %v %v, want the first two", f1, f2, f3)
	}
	if got := e3.Options().HashMB; got != engine.MinHashMB {
		t.Errorf("engine beyond the limit has %d MiB of hash, want %d", got, engine.MinHashMB)
	}
	p.put(e3, false)
	p.put(e1, true)
	if e4, f4 := p.get(); e4 != e1 || !f4 {
		t.Error("the free full-size engine was not reused")
	}
	if p.made != 2 || len(p.free) != 0 {
		t.Errorf("made %d, free %d", p.made, len(p.free))
	}
	p.discard(true)
	if _, f := p.get(); !f {
		t.Error("a discarded engine's place was not freed")
	}
}

// TestThreadsFollowGOMAXPROCS: with no thread count set, the bot uses the
// CPUs the process may use, not runtime.NumCPU (which ignores a
// container's CPU quota).
func TestThreadsFollowGOMAXPROCS(t *testing.T) {
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_THREADS": "0"})
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	if got := newService(h.cfg, h.client, Options{}).threads; got != 1 {
		t.Errorf("threads %d with GOMAXPROCS 1 (NumCPU %d)", got, runtime.NumCPU())
	}
}
