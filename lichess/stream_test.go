package lichess_test

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// rawServer serves fixed ndjson bodies, flushing line by line.
func rawServer(t *testing.T, bodies map[string][]string) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lines, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range lines {
			fmt.Fprintln(w, l)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(hs.Close)
	return hs
}

func rawClient(t *testing.T, url string) (*lichess.Client, *syncBuffer) {
	logs := &syncBuffer{}
	c := lichess.New(lichess.Options{BaseURL: url, Token: "lip_x", Logger: slog.New(slog.NewTextHandler(logs, nil)),
		EventIdleTimeout: time.Second, GameIdleTimeout: time.Second})
	t.Cleanup(c.Close)
	return c, logs
}

func TestMalformedLinesSkipped(t *testing.T) {
	hs := rawServer(t, map[string][]string{
		"/api/stream/event": {
			`{not json`,
			`{"type":"gameStart"}`,
			`{"type":"gameStart","game":{"gameId":5}}`,
			`{"type":"brandNewEvent","x":1}`,
			``,
			`{"type":"challenge","challenge":{"id":"abc","status":"created","challenger":{"id":"a","name":"A"},"variant":{"key":"standard"},"timeControl":{"type":"unlimited"},"newField":{"deep":[1,2]}},"alsoNew":true}`,
			`[]`,
			`{"type":"gameFinish","game":{"id":"legacy12","color":"white","status":"mate"}}`,
		},
		"/api/bot/game/stream/g1": {
			`{"type":"gameFull","id":"g1"}`,
			`{"type":"gameFull","id":"g1","variant":{"key":"standard"},"white":{"aiLevel":3},"black":{"id":"me"},"state":{"type":"gameState","moves":"","wtime":1,"btime":1,"winc":0,"binc":0,"status":"started"}}`,
			`{"type":"gameState","moves":"e2e4","status":31}`,
			`{"type":"chatLine","room":"player","username":"x","text":"hi"}`,
			`{"type":"gameState","moves":"e2e4","wtime":1,"btime":1,"winc":0,"binc":0,"status":"resign","winner":"black"}`,
		},
	})
	c, logs := rawClient(t, hs.URL)
	ctx := testCtx(t)

	events, errc := c.StreamEvents(ctx)
	var got []lichess.Event
	for ev := range events {
		got = append(got, ev)
	}
	if err := <-errc; !errors.Is(err, lichess.ErrStreamEnded) {
		t.Fatalf("end of event stream: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("events = %#v", got)
	}
	if ch, ok := got[0].(*lichess.ChallengeEvent); !ok || ch.Challenge.ID != "abc" || ch.Challenge.DestUser != nil {
		t.Fatalf("first event = %#v", got[0])
	}
	if gf, ok := got[1].(*lichess.GameFinishEvent); !ok || gf.Game.GameID != "legacy12" || gf.Game.Status.ID != 30 {
		t.Fatalf("second event = %#v", got[1])
	}
	if n := strings.Count(logs.String(), "skipping malformed"); n != 4 {
		t.Errorf("%d malformed lines logged, want 4:\n%s", n, logs)
	}

	gevents, gerrc := c.StreamGame(ctx, "g1")
	var types []string
	for ev := range gevents {
		types = append(types, fmt.Sprintf("%T", ev))
	}
	if err := <-gerrc; err != nil {
		t.Fatalf("game stream ended with %v after the final state", err)
	}
	if strings.Join(types, " ") != "*lichess.GameFull *lichess.ChatLine *lichess.GameStateEvent" {
		t.Fatalf("game events = %v", types)
	}
}

func TestStreamOpenErrors(t *testing.T) {
	hs := rawServer(t, map[string][]string{})
	c, _ := rawClient(t, hs.URL)
	ctx := testCtx(t)
	events, errc := c.WatchGame(ctx, "missing1")
	for range events {
	}
	var ae *lichess.APIError
	if err := <-errc; !errors.As(err, &ae) || ae.Status != 404 || !lichess.IsFatal(err) {
		t.Fatalf("watching a missing game: %v", err)
	}
}

// TestIdleBeforeHeaders: a server that accepts but never answers is caught
// by the same watchdog.
func TestIdleBeforeHeaders(t *testing.T) {
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(release) })
	c := lichess.New(lichess.Options{BaseURL: hs.URL, Token: "lip_x", EventIdleTimeout: 100 * time.Millisecond})
	t.Cleanup(c.Close)
	events, errc := c.StreamEvents(testCtx(t))
	for range events {
	}
	if err := <-errc; !errors.Is(err, lichess.ErrStreamIdle) {
		t.Fatalf("silent server: %v", err)
	}
}

// TestOverlongLine: a line beyond the 1 MB bound ends the stream with an
// error at once, even though the server keeps the connection alive.
func TestOverlongLine(t *testing.T) {
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintf(w, `{"type":"chatLine","text":"%s"}`+"\n", strings.Repeat("x", 2<<20))
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-release:
				return
			case <-time.After(20 * time.Millisecond):
				fmt.Fprintln(w)
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(release) })
	c, _ := rawClient(t, hs.URL)
	start := time.Now()
	events, errc := c.StreamGame(testCtx(t), "g1")
	for range events {
	}
	err := <-errc
	if err == nil || errors.Is(err, lichess.ErrStreamIdle) || lichess.IsFatal(err) {
		t.Fatalf("over-long line: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v to give up", d)
	}
}
