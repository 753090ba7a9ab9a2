package live

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// sample is a snapshot with two games (one from each side), challenges,
// results and latency samples.
func sample() Snapshot {
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	return Snapshot{
		At: at,
		Bot: BotView{Account: "PonderosaBot", Version: "ponderosa v1.2.3", Started: at.Add(-90 * time.Minute),
			Stream: "connected", StreamSince: at.Add(-89 * time.Minute), Running: 2, Queue: 1, MaxGames: 2,
			Challenges: []ChallengeView{
				{ID: "c3", Challenger: "Dave", Variant: "standard", TimeControl: "3 days", Decision: "decline", Reason: "timeControl", At: at.Add(-5 * time.Second)},
				{ID: "c2", Challenger: "SparringBot", Title: "BOT", Rating: 1900, Variant: "chess960", TimeControl: "1+1", Decision: "accept", At: at.Add(-2 * time.Minute)},
			},
			Results: []ResultView{{ID: "g0", URL: "https://lichess.org/g0", Opponent: "Alice", Color: "white", Result: "win", Status: "mate", Plies: 57, Ended: at.Add(-10 * time.Minute)}},
			Opponents: []OpponentView{{Name: "Alice", URL: "https://lichess.org/@/alice", Games: 3, Wins: 2, Losses: 1, Score: 2.0 / 3, Performance: 1783},
				{Name: "Stockfish level 3", Games: 1, Draws: 1, Score: 0.5}},
			Wins: 1,
			Moves: []MoveSample{{GameID: "g1", Ply: 1, Latency: 800 * time.Microsecond, RoundTrip: 2 * time.Millisecond, Overhead: 50 * time.Millisecond},
				{GameID: "g1", Ply: 3, Latency: 1200 * time.Microsecond, RoundTrip: 3 * time.Millisecond, Overhead: 40 * time.Millisecond}},
			Overhead:       40 * time.Millisecond,
			MemoryDegraded: "disk full",
			Quota:          []QuotaView{{Name: "bot-vs-bot games (daily)", Paused: at.Add(3 * time.Hour), Note: "used up"}},
		},
		Games: []GameView{
			{ID: "g1", URL: "https://lichess.org/g1", White: PlayerView{Name: "PonderosaBot", Title: "BOT", Rating: 2100},
				Black: PlayerView{Name: "Alice", Rating: 1650}, Color: "white", Variant: "standard", TimeControl: "1+1", Rated: true,
				FEN: "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", LastMove: "b8c6",
				Moves: []string{"e4", "e5", "Nf3", "Nc6"}, Timed: true, WhiteClock: 55 * time.Second, BlackClock: 58*time.Second + 300*time.Millisecond,
				ClockAt: at.Add(-time.Second), ClockRunning: true, WhiteToMove: true,
				Eval:   &EvalView{CP: 35, Depth: 14, Nodes: 1234567, NPS: 1400000, PV: []string{"Bb5", "a6", "Ba4"}},
				Source: "engine", PonderHits: 1},
			{ID: "g2", White: PlayerView{Name: "SparringBot", Title: "BOT", Rating: 1900}, Black: PlayerView{Name: "PonderosaBot", Title: "BOT"},
				Color: "black", Variant: "chess960", TimeControl: "1+1",
				FEN: "bbrnkqrn/pppppppp/8/8/8/8/PPPPPPPP/BBRNKQRN w KQkq - 0 1"},
		},
	}
}

func TestRenderPage(t *testing.T) {
	var b bytes.Buffer
	if err := RenderPage(&b, sample()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if dir := os.Getenv("PONDEROSA_PAGE_OUT"); dir != "" {
		os.WriteFile(dir+"/page.html", b.Bytes(), 0o644)
	}
	fens := regexp.MustCompile(`<svg class="board" data-fen="([^"]*)" data-orientation="(\w+)"`).FindAllStringSubmatch(page, -1)
	if len(fens) != 2 {
		t.Fatalf("%d boards, want 2", len(fens))
	}
	for i, want := range sample().Games {
		if fens[i][1] != want.FEN {
			t.Errorf("board %d: data-fen %q, want %q", i, fens[i][1], want.FEN)
		}
		if fens[i][2] != want.Color {
			t.Errorf("board %d oriented for %s, want %s", i, fens[i][2], want.Color)
		}
	}
	for _, want := range []string{
		`class="lt hi" x="90" y="90"`, // c6 (last move's target) from White's side
		`class="dk hi" x="45" y="0"`,  // b8
		"BOT PonderosaBot", "1650", "&#43;0.35", "depth 14", "1.40 M nps", "Bb5 a6 Ba4", "engine", "ponder hits 1",
		`<a href="https://lichess.org/g1">g1 on Lichess</a>`, "decline <span class=\"reason\">(timeControl)</span>",
		`<a href="https://lichess.org/g0">Alice</a>`, "ponderosa v1.2.3", "stream connected", "up 1h30m",
		`data-ms="54000" data-run="1">0:54</span>`, // 55 s a second before the snapshot, running
		`data-ms="58300">0:58</span>`,
		"<td>bot-vs-bot games (daily)</td><td>used up</td><td class=\"ago\">for 3h00m</td>", "1 limit in force", `<span class="badge warn" title="disk full">memory not saved</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The pieces drawn are the FEN's: count them on the first board.
	board := page[strings.Index(page, `data-fen="r1bqkbnr`):]
	board = board[:strings.Index(board, "</svg>")]
	if n := strings.Count(board, "<use href=\"#"); n != 32 {
		t.Errorf("%d pieces drawn, want 32", n)
	}
	if !strings.Contains(board, `<use href="#bn" x="90" y="90"`) { // black knight on c6
		t.Errorf("no black knight on c6")
	}
	// Black's board is flipped: h1 at the top left.
	board2 := page[strings.Index(page, `data-fen="bbrnkqrn`):]
	if !strings.Contains(board2[:strings.Index(board2, "</svg>")], `<use href="#wn" x="0" y="0"`) {
		t.Errorf("flipped board: no white knight (h1) at the top left")
	}
	if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), "http://") || strings.Contains(page, "https://fonts") {
		// Only links to Lichess games are allowed (https), no asset URL.
		t.Errorf("page refers to an external http URL")
	}
	if strings.Count(page, `src="`)+strings.Count(page, `href="assets/`) != 3 {
		t.Errorf("assets: want app.js, style.css, favicon from assets/")
	}
}

func TestParsePlacement(t *testing.T) {
	for _, bad := range []string{"", "8/8/8/8/8/8/8", "9/8/8/8/8/8/8/8", "8/8/8/8/8/8/8/7", "8/8/8/8/8/8/8/7x", "ppppppppp/8/8/8/8/8/8/8", "4k3/8/8/8/8/8/8/4K31"} {
		if _, err := parsePlacement(bad); err == nil {
			t.Errorf("parsePlacement(%q) accepted", bad)
		}
	}
	p, err := parsePlacement("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
	if err != nil || p[4] != 'K' || p[7] != 'R' || p[60] != 'k' {
		t.Errorf("placement %q, err %v", p, err)
	}
}

func FuzzParsePlacement(f *testing.F) {
	f.Add("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
	f.Add("8/8/8/8/8/8/8/8")
	f.Fuzz(func(t *testing.T, fen string) {
		p, err := parsePlacement(fen)
		if err != nil {
			return
		}
		g := GameView{FEN: fen}
		if m := boardOf(g); m.Err != "" || len(m.Squares) != 64 {
			t.Fatalf("board of an accepted FEN: %v", m.Err)
		}
		_ = p
	})
}

func TestMoveRows(t *testing.T) {
	g := GameView{FEN: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", Moves: []string{"e4", "e5"}}
	if got := fmt.Sprint(moveRows(g)); got != "[{1 e4 e5}]" {
		t.Errorf("rows %s", got)
	}
	// A game from a position with Black to move at move 10.
	g = GameView{FEN: "4k3/8/8/8/8/8/8/4K3 w - - 3 12", Moves: []string{"Kd7", "Kd1", "Ke7", "Ke1", "Kd7"}}
	if got := fmt.Sprint(moveRows(g)); got != "[{9 … Kd7} {10 Kd1 Ke7} {11 Ke1 Kd7}]" {
		t.Errorf("rows %s", got)
	}
}

func TestClockText(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0:00.0", 9*time.Second + 450*time.Millisecond: "0:09.4",
		75 * time.Second: "1:15", 3*time.Hour + 5*time.Second: "3:00:05", -time.Second: "0:00.0"} {
		if got := clockText(d); got != want {
			t.Errorf("clockText(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestEncodeFrame(t *testing.T) {
	f, err := EncodeFrame(sample())
	if err != nil {
		t.Fatal(err)
	}
	s := string(f)
	if !strings.HasPrefix(s, "event: update\ndata: ") || !strings.HasSuffix(s, "\n\n") || strings.Count(s, "\n\n") != 1 {
		t.Fatalf("not one SSE message: %.80q ... %q", s, s[len(s)-20:])
	}
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n\n"), "\n") {
		if line != "event: update" && !strings.HasPrefix(line, "data: ") {
			t.Fatalf("bad line %q", line)
		}
	}
}

func TestHubDropsSlowSubscriber(t *testing.T) {
	h := NewHub(4)
	fast, slow := h.Subscribe(), h.Subscribe()
	var got [][]byte
	var wg sync.WaitGroup
	wg.Go(func() {
		for f := range fast.C {
			got = append(got, f)
		}
	})
	for i := range 100 {
		h.Publish([]byte{byte(i)}) // never blocks, whatever slow does
		if i%4 == 3 {
			waitFor(t, func() bool { return len(fast.C) == 0 })
		}
	}
	n := 0
	for range slow.C { // closed after its 4 buffered frames
		n++
	}
	if n != 4 {
		t.Errorf("slow subscriber got %d frames before being dropped, want 4", n)
	}
	if h.Dropped() != 1 || h.Subscribers() != 1 {
		t.Errorf("dropped %d, subscribers %d", h.Dropped(), h.Subscribers())
	}
	h.Unsubscribe(slow) // a no-op after a drop
	h.Close()
	wg.Wait()
	if len(got) != 100 {
		t.Errorf("fast subscriber got %d frames, want 100", len(got))
	}
	late := h.Subscribe()
	if _, ok := <-late.C; ok {
		t.Errorf("subscriber of a closed hub got a frame")
	}
}

// waitFor polls cond (the hub has no event to wait on for a reader's
// progress); it fails the test after 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestHandler(t *testing.T) {
	hub := NewHub(0)
	snap := sample()
	srv := httptest.NewServer(Handler(HandlerOptions{Snapshot: func() Snapshot { return snap }, Hub: hub}))
	defer srv.Close()
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := get("/")
	if resp.StatusCode != 200 || !strings.Contains(body, `data-fen="`+snap.Games[0].FEN+`"`) ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("/: %d %v", resp.StatusCode, resp.Header)
	}
	// The results per opponent, as a table.
	for _, want := range []string{"<h2>Results by opponent</h2>",
		`<tr><td><a href="https://lichess.org/@/alice">Alice</a></td><td>3</td><td>2</td><td>0</td><td>1</td><td>67%</td><td>1783</td></tr>`,
		`<tr><td>Stockfish level 3</td><td>1</td><td>0</td><td>1</td><td>0</td><td>50%</td><td>–</td></tr>`} {
		if !strings.Contains(body, want) {
			t.Errorf("/ lacks %s", want)
		}
	}
	empty := sample()
	empty.Bot.Opponents = nil
	var b strings.Builder
	if err := RenderPage(&b, empty); err != nil || !strings.Contains(b.String(), "No finished game remembered yet.") {
		t.Errorf("page with no opponents: %v", err)
	}
	for path, ctype := range map[string]string{"/assets/style.css": "text/css", "/assets/app.js": "text/javascript", "/assets/favicon.svg": "image/svg+xml"} {
		if resp, _ := get(path); resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), ctype) {
			t.Errorf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	for _, path := range []string{"/assets/page.html.tmpl", "/assets/", "/nothing"} {
		if resp, _ := get(path); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", path, resp.StatusCode)
		}
	}

	// /events: the latest frame at once, then each new one.
	hub.Publish([]byte("event: update\ndata: one\n\n"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	rd := bufio.NewReader(resp.Body)
	next := func() string {
		t.Helper()
		var data []string
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			line = strings.TrimSuffix(line, "\n")
			if line == "" && len(data) > 0 {
				return strings.Join(data, "\n")
			}
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
	}
	if got := next(); got != "one" {
		t.Errorf("first event %q, want the latest frame", got)
	}
	waitFor(t, func() bool { return hub.Subscribers() == 1 })
	hub.Publish([]byte("event: update\ndata: two\n\n"))
	if got := next(); got != "two" {
		t.Errorf("second event %q", got)
	}
	hub.Close()
	if _, err := io.ReadAll(rd); err != nil {
		t.Errorf("stream did not end cleanly after the hub closed: %v", err)
	}
}

func TestBasicAuth(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret page") })
	srv := httptest.NewServer(BasicAuth(ok, "op", "pw", func(r *http.Request) bool { return r.URL.Path == "/healthz" }))
	defer srv.Close()
	try := func(path, user, pass string) int {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
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
	}{{"/", "", "", 401}, {"/", "op", "bad", 401}, {"/", "bad", "pw", 401}, {"/", "op", "pw", 200}, {"/healthz", "", "", 200}, {"/events", "", "", 401}} {
		if got := try(c.path, c.user, c.pass); got != c.want {
			t.Errorf("%s as %q:%q: %d, want %d", c.path, c.user, c.pass, got, c.want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "[::1]:80": true, "localhost:1": true, "127.1.2.3:0": true,
		"0.0.0.0:8080": false, ":8080": false, "192.168.1.2:80": false, "example.com:80": false, "bad": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}
