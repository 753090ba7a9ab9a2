package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// findBrowser returns a Chromium-family browser, skipping the test (or
// failing it under CI=true) when none is installed.
func findBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium browser installed (.ci/run installs Debian's chromium)")
	}
	t.Skip("no Chromium browser installed (apt-get install chromium): the status page's browser test is skipped")
	return ""
}

// cdp is a minimal client of the Chrome DevTools Protocol over the pipe
// that --remote-debugging-pipe opens (fd 3: commands in, fd 4: replies
// out; messages end with a NUL byte).
type cdp struct {
	w       io.WriteCloser
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpReply
	session string
	readErr error
	done    chan struct{}
}

type cdpReply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *cdp) read(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			for id, ch := range c.waiting {
				close(ch)
				delete(c.waiting, id)
			}
			c.mu.Unlock()
			return
		}
		var rep cdpReply
		if json.Unmarshal(msg[:len(msg)-1], &rep) != nil || rep.ID == 0 {
			continue // an event
		}
		c.mu.Lock()
		ch := c.waiting[rep.ID]
		delete(c.waiting, rep.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
	}
}

// call sends a command (in the attached page's session once there is one)
// and decodes its result into out.
func (c *cdp) call(ctx context.Context, method string, params, out any) error {
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return c.readErr
	}
	c.nextID++
	id := c.nextID
	ch := make(chan cdpReply, 1)
	c.waiting[id] = ch
	msg := map[string]any{"id": id, "method": method, "params": params}
	if c.session != "" {
		msg["sessionId"] = c.session
	}
	b, _ := json.Marshal(msg)
	_, err := c.w.Write(append(b, 0))
	c.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: browser gone", method)
		}
		if rep.Error != nil {
			return fmt.Errorf("%s: %s", method, rep.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(rep.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// startBrowser runs a headless browser with a blank page attached.
func startBrowser(t *testing.T, ctx context.Context, path string) *cdp {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{inR, outW}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	c := &cdp{w: inW, waiting: map[int]chan cdpReply{}, done: make(chan struct{})}
	go c.read(outR)
	t.Cleanup(func() {
		inW.Close() // the browser exits when its pipe closes
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		outR.Close()
		<-c.done
		if t.Failed() {
			t.Logf("browser stderr:\n%s", stderr.String())
		}
	})
	var target struct{ TargetID string }
	if err := c.call(ctx, "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatalf("%v\nbrowser stderr:\n%s", err, stderr.String())
	}
	var att struct{ SessionID string }
	if err := c.call(ctx, "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		t.Fatal(err)
	}
	c.session = att.SessionID
	return c
}

// eval evaluates a JavaScript expression in the page and decodes its
// JSON-encoded value into out.
func (c *cdp) eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := c.call(ctx, "Runtime.evaluate", map[string]any{"expression": "JSON.stringify(" + expr + ")", "returnByValue": true}, &res); err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return errors.New(res.ExceptionDetails.Text)
	}
	return json.Unmarshal([]byte(res.Result.Value), out)
}

// shownBoard is a board as the browser shows it.
type shownBoard struct {
	ID          string     `json:"id"`
	FEN         string     `json:"fen"`
	Orientation string     `json:"orientation"`
	Pieces      [][]string `json:"pieces"` // sprite id, x, y
	Marked      bool       `json:"marked"` // the page was not reloaded
}

// boardsJS reads the boards once the document is parsed (null before): a
// page still loading can hold a board's opening tag, with its FEN, before
// the pieces inside it have arrived.
const boardsJS = `document.readyState === "loading" ? null : [...document.querySelectorAll("article.game")].map(a => {
	const b = a.querySelector("svg.board");
	return {id: a.dataset.gameId, fen: b.dataset.fen, orientation: b.dataset.orientation,
		marked: window.__ponderosaMark === 1,
		pieces: [...b.querySelectorAll("use")].map(u => [u.getAttribute("href"), u.getAttribute("x"), u.getAttribute("y")])};
})`

// drawnPieces lists the pieces drawn for a position seen from one side, as
// the page's SVG places them.
func drawnPieces(t *testing.T, fen, orientation string) []string {
	pos, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("FEN %q: %v", fen, err)
	}
	var out []string
	for sq := board.Square(0); sq < 64; sq++ {
		p := pos.PieceAt(sq)
		if p == board.NoPiece {
			continue
		}
		file, rank := int(sq)%8, int(sq)/8
		x, y := file, 7-rank
		if orientation == "black" {
			x, y = 7-file, rank
		}
		letter := strings.ToLower(p.String())
		color := "w"
		if p.Color() == board.Black {
			color = "b"
		}
		out = append(out, fmt.Sprintf("#%s%s %d %d", color, letter, x*45, y*45))
	}
	sort.Strings(out)
	return out
}

// TestStatusPageInBrowser runs the sandbox and looks at its status page
// in a real headless browser: the boards show the games' positions (the
// pieces drawn, not just the attribute), they change as moves are played
// without a reload, and a screenshot is saved as a test artifact.
func TestStatusPageInBrowser(t *testing.T) {
	browser := findBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"PONDEROSA_THREADS": "1", "PONDEROSA_HASH_MB": "4", "PONDEROSA_PGN_DIR": "none", "PONDEROSA_SHUTDOWN": "leave"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	type started struct {
		url string
		srv *fakelichess.Server
	}
	ready := make(chan started, 1)
	sctx, stopSandbox := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := runSandbox(sctx, cfg, sandboxOptions{Games: 2, Clock: time.Minute, Increment: time.Second,
			StatusAddr: "127.0.0.1:0", Version: "ponderosa browser-test",
			started: func(url string, srv *fakelichess.Server) { ready <- started{url, srv} }})
		done <- err
	}()
	defer func() {
		stopSandbox()
		if err := <-done; err != nil {
			t.Errorf("sandbox: %v", err)
		}
	}()
	var st started
	select {
	case st = <-ready:
	case err := <-done:
		t.Fatalf("sandbox ended early: %v", err)
	}
	c := startBrowser(t, ctx, browser)
	if err := c.call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 1000, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		t.Fatal(err)
	}
	// Wait for both games to be under way, then load the page.
	if err := st.srv.WaitUntil(ctx, func() bool {
		gs := st.srv.Games()
		return len(gs) == 2 && len(gs[0].Moves) >= 2 && len(gs[1].Moves) >= 2
	}); err != nil {
		t.Fatalf("games did not start: %v", err)
	}
	if err := c.call(ctx, "Page.navigate", map[string]any{"url": st.url}, nil); err != nil {
		t.Fatal(err)
	}

	// check polls the browser until every board shows, in its FEN and in
	// its drawn pieces, the current position of its game on the fake
	// Lichess, with no reload of the page; it returns the positions.
	check := func(what string, differentFrom map[string]string) map[string]string {
		t.Helper()
		var last []shownBoard
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if err := c.eval(ctx, boardsJS, &last); err != nil {
				continue // the page is loading
			}
			if len(last) != 2 {
				continue
			}
			fens := map[string]string{}
			ok := true
			for _, b := range last {
				g, found := st.srv.Game(b.ID)
				if !found || g.FEN != b.FEN || b.Orientation != g.BotColor || b.FEN == differentFrom[b.ID] || differentFrom != nil && !b.Marked {
					ok = false
					break
				}
				var drawn []string
				for _, p := range b.Pieces {
					drawn = append(drawn, strings.Join(p, " "))
				}
				sort.Strings(drawn)
				if want := drawnPieces(t, b.FEN, b.Orientation); strings.Join(drawn, ",") != strings.Join(want, ",") {
					t.Fatalf("%s: game %s shows pieces\n%v\nfor FEN %s, want\n%v", what, b.ID, drawn, b.FEN, want)
				}
				fens[b.ID] = b.FEN
			}
			if ok {
				return fens
			}
		}
		t.Fatalf("%s: the browser shows %+v", what, last)
		return nil
	}
	first := check("after loading", nil)
	var mark int
	if err := c.eval(ctx, "window.__ponderosaMark = 1", &mark); err != nil {
		t.Fatal(err)
	}
	later := check("as moves are played", first)
	t.Logf("positions shown: %v, then %v", first, later)

	var shot struct{ Data string }
	if err := c.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(png) < 1000 {
		t.Fatalf("screenshot: %d bytes, %v", len(png), err)
	}
	dir := os.Getenv("PONDEROSA_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "ponderosa-test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "status-page.png")
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)
}
