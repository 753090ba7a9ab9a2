package bot

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// gatedOpponent plays one move per token sent on its channel.
func gatedOpponent(then fakelichess.Opponent) (fakelichess.Opponent, chan struct{}) {
	gate := make(chan struct{}, 1)
	return func(ctx context.Context, g *board.Game, left, inc time.Duration) board.Move {
		select {
		case <-gate:
		case <-ctx.Done():
		}
		return then(ctx, g, left, inc)
	}, gate
}

// statusHarness is a harness whose service serves the status page.
func statusHarness(t *testing.T, opts fakelichess.Options, env map[string]string) (*harness, string) {
	t.Helper()
	h := setup(t, opts, env)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.statusLn = ln
	return h, "http://" + ln.Addr().String()
}

// sseClient reads the update events of /events.
type sseClient struct {
	frames chan string
	cancel context.CancelFunc
	done   chan struct{}
	body   strings.Builder // everything received
}

func openEvents(t *testing.T, base string) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		cancel()
		t.Fatalf("/events: %d %q", resp.StatusCode, ct)
	}
	c := &sseClient{frames: make(chan string, 1024), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer close(c.frames)
		defer resp.Body.Close()
		rd := bufio.NewReader(resp.Body)
		var data []string
		for {
			line, err := rd.ReadString('\n')
			c.body.WriteString(line)
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			} else if line == "" && data != nil {
				select {
				case c.frames <- strings.Join(data, "\n"):
				default: // the test is not reading: keep the latest only
				}
				data = nil
			}
		}
	}()
	t.Cleanup(c.close)
	return c
}

func (c *sseClient) close() {
	c.cancel()
	<-c.done
}

var boardRE = regexp.MustCompile(`<article class="game" data-game-id="(\w+)">[\s\S]*?<svg class="board" data-fen="([^"]+)" data-orientation="(\w+)"`)

// boards maps game ids to the data-fen and orientation of their boards.
func boards(html string) map[string][2]string {
	out := map[string][2]string{}
	for _, m := range boardRE.FindAllStringSubmatch(html, -1) {
		out[m[1]] = [2]string{m[2], m[3]}
	}
	return out
}

// TestStatusPageBoards plays two games on the fake Lichess, one move at a
// time, and checks after each step that the page and its event stream
// show each game's current position from our side.
func TestStatusPageBoards(t *testing.T) {
	t.Parallel()
	oppW, gateW := gatedOpponent(sparringEngine(200))
	oppB, gateB := gatedOpponent(sparringEngine(200))
	h, base := statusHarness(t, fakelichess.Options{}, map[string]string{"PONDEROSA_MAX_GAMES": "2"})
	h.start()
	events := openEvents(t, base)
	// The challenger plays white in the first game, black in the second.
	idB := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 30 * time.Second, Color: "white", Opponent: oppW})
	h.waitAccepted(idB)
	idW := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: 30 * time.Second, Variant: "chess960", Color: "black", Opponent: oppB})
	h.waitAccepted(idW)
	ours := map[string]string{idW: "white", idB: "black"}
	gates := map[string]chan struct{}{idW: gateB, idB: gateW}

	var everything strings.Builder
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
		everything.Write(b)
		return string(b)
	}
	var lastFEN map[string]string
	for step := range 4 {
		// Stable: in both games the opponent is to move (and waits on its
		// gate), after at least step moves of ours.
		want := map[string]string{}
		h.waitFor(fmt.Sprintf("step %d: opponents to move", step), 30*time.Second, func() bool {
			for id, color := range ours {
				g, ok := h.srv.Game(id)
				plies := 2 * step
				if color == "white" {
					plies++
				}
				if !ok || g.FEN == "" || len(g.Moves) != plies {
					return false
				}
				pos, err := board.ParseFEN(g.FEN)
				if err != nil || pos.SideToMove().String() == color {
					return false
				}
				want[id] = g.FEN
			}
			return true
		})
		// The stream delivers a frame showing both positions.
		deadline := time.After(20 * time.Second)
		for ok := false; !ok; {
			select {
			case f, open := <-events.frames:
				if !open {
					t.Fatal("event stream ended")
				}
				everything.WriteString(f)
				got := boards(f)
				ok = got[idW][0] == want[idW] && got[idB][0] == want[idB]
			case <-deadline:
				t.Fatalf("step %d: no update showing %v", step, want)
			}
		}
		// The page itself (no JavaScript) shows them too, from our side,
		// with the last move highlighted.
		page := get("/")
		got := boards(page)
		for id, color := range ours {
			if got[id] != [2]string{want[id], color} {
				t.Errorf("step %d, game %s: board %v, want %s from %s's side", step, id, got[id], want[id], color)
			}
			if lastFEN != nil && lastFEN[id] == want[id] {
				t.Errorf("step %d, game %s: the position did not change", step, id)
			}
		}
		if step > 0 && strings.Count(page, " hi\"") < 4 {
			t.Errorf("step %d: last moves not highlighted", step)
		}
		lastFEN = want
		for _, g := range gates {
			g <- struct{}{}
		}
	}
	// /status carries the same views; nothing anywhere carries the token.
	var doc struct {
		Games []struct{ ID, FEN string } `json:"games"`
		Bot   struct {
			Challenges []struct{ Decision string } `json:"recent_challenges"`
		} `json:"bot"`
	}
	if err := json.Unmarshal([]byte(get("/status")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Games) != 2 || len(doc.Bot.Challenges) != 2 || doc.Bot.Challenges[0].Decision != "accept" {
		t.Errorf("/status: %+v", doc)
	}
	for _, p := range []string{"/metrics", "/healthz", "/assets/style.css", "/assets/app.js", "/assets/favicon.svg"} {
		get(p)
	}
	for _, id := range []string{idW, idB} {
		h.srv.OpponentResign(id)
		h.waitOver(id, 10*time.Second)
	}
	h.stop()
	events.close()
	everything.WriteString(events.body.String())
	if strings.Contains(everything.String(), h.srv.Token()) {
		t.Error("the token appears in a status page response")
	}
	if !strings.Contains(events.body.String(), "event: update") {
		t.Error("no update event received")
	}
}

// TestStatusPageManyReaders plays a game while 200 clients follow the
// event stream and one more never reads: the bot's time per move stays
// small and the stalled reader is dropped.
func TestStatusPageManyReaders(t *testing.T) {
	t.Parallel()
	// An opponent of 2000 nodes a move: one of 100 got mated in 21 plies by
	// the built-in network 3, before the 24 plies this test measures.
	h, base := statusHarness(t, fakelichess.Options{Opponent: fakelichess.Slow(30*time.Millisecond, sparringEngine(2000))}, nil)
	h.start()
	// The game starts when the readers are there (the moves wait on them).
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); wg.Wait() }()
	var mu sync.Mutex
	received := 0
	for range 200 {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer resp.Body.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := resp.Body.Read(buf)
				mu.Lock()
				received += n
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	// The stalled reader: a tiny receive window, and it never reads.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
	}}
	stalled, err := d.DialContext(ctx, "tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	fmt.Fprintf(stalled, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
	// Updates at the publisher's full rate (10 a second), as with many
	// games, whatever the game does.
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				h.svc.pub.notify()
			case <-ctx.Done():
				return
			}
		}
	})
	h.waitAccepted(id)
	wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
	defer wcancel()
	err = h.srv.WaitUntil(wctx, func() bool {
		g, _ := h.srv.Game(id)
		return len(g.Moves) >= 24 && h.svc.pub.hub.Subscribers() == 200 || g.Over()
	})
	g, _ := h.srv.Game(id)
	if err != nil || len(g.Moves) < 24 {
		t.Fatalf("after %d plies (game %s): %d readers dropped, %d subscribed: %v", len(g.Moves), g.Status,
			h.svc.pub.hub.Dropped(), h.svc.pub.hub.Subscribers(), err)
	}
	internal, _ := h.svc.stats.Latency()
	t.Logf("bot time per move beyond the search with 200 readers: median %v, p90 %v, max %v over %d moves; %d readers dropped",
		internal.Median, internal.P90, internal.Max, internal.Count, h.svc.pub.hub.Dropped())
	if internal.Median > 20*time.Millisecond || internal.Max > 500*time.Millisecond {
		t.Errorf("moves delayed by the readers: median %v, max %v", internal.Median, internal.Max)
	}
	// The stalled reader is gone: dropped by the hub when its buffer
	// filled, or cut off by the write deadline, whichever came first.
	if n := h.svc.pub.hub.Subscribers(); n != 200 {
		t.Errorf("%d subscribers: want only the stalled reader dropped", n)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !regexp.MustCompile(`\nponderosa_status_readers \d+\n[\s\S]*\nponderosa_status_readers_dropped_total \d+\n`).Match(metrics) ||
		!strings.Contains(string(metrics), "ponderosa_moves_total ") {
		t.Errorf("metrics:\n%s", metrics)
	}
	mu.Lock()
	if received < 200*10<<10 {
		t.Errorf("the readers received %d bytes in all", received)
	}
	mu.Unlock()
	h.srv.OpponentResign(id)
	h.waitOver(id, 10*time.Second)
	h.stop()
}

// TestStatusPageAuth serves the page behind basic auth: everything but
// /healthz needs the password from the file.
func TestStatusPageAuth(t *testing.T) {
	t.Parallel()
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("s3cret\n"), 0o600)
	h, base := statusHarness(t, fakelichess.Options{}, map[string]string{
		"PONDEROSA_STATUS_USER": "op", "PONDEROSA_STATUS_PASSWORD_FILE": pw})
	h.start()
	// Ready means the account was checked; /healthz is 200 only once the
	// client has the event stream's headers, a moment later. Nothing on the
	// fake marks that moment, so poll the client's own state.
	h.poll("event stream connected", 10*time.Second, func() bool { return h.svc.Snapshot().EventStream.Connected })
	try := func(path, user, pass string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		path, user, pass string
		want             int
	}{{"/", "", "", 401}, {"/status", "op", "s3cret\n", 401}, {"/", "op", "s3cret", 200}, {"/metrics", "op", "x", 401},
		{"/healthz", "", "", 200}, {"/events", "", "", 401}} {
		if got := try(c.path, c.user, c.pass); got != c.want {
			t.Errorf("%s as %q: %d, want %d", c.path, c.user, got, c.want)
		}
	}
	h.stop()
	if strings.Contains(h.logs.String(), "without authentication") {
		t.Error("warned about a missing auth on a loopback address with auth")
	}
}

func TestStatusPasswordFileErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	for _, path := range []string{filepath.Join(dir, "missing"), empty} {
		if _, err := readPassword(path); err == nil {
			t.Errorf("readPassword(%s) accepted", path)
		}
	}
}

// TestStatusPageWarnsWithoutAuth: on an address that is not a loopback
// one, a status page without basic auth is served with a warning in the
// log.
func TestStatusPageWarnsWithoutAuth(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, nil)
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skipf("cannot listen on all interfaces here: %v", err)
	}
	h.statusLn = ln
	h.start()
	h.stop()
	if !strings.Contains(h.logs.String(), "the status page is open to the network without authentication") {
		t.Errorf("no warning in the log:\n%s", h.logs.String())
	}
}
