package lichess

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func sourceSeeds(f interface{ Fatal(...any) }) map[string][]byte {
	out := map[string][]byte{}
	files, _ := filepath.Glob("testdata/sources/*.json")
	more, _ := filepath.Glob("testdata/sources/*.ndjson")
	files = append(files, more...)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

func TestDecodeSources(t *testing.T) {
	s := sourceSeeds(t)
	tb, err := DecodeTablebase(s["tablebase_win.json"])
	if err != nil || tb.Category != TBWin || len(tb.Moves) != 3 || !tb.Moves[0].Checkmate || tb.Moves[1].DTZ != nil {
		t.Fatalf("tablebase: %+v %v", tb, err)
	}
	ce, err := DecodeCloudEval(s["cloud_eval.json"])
	if err != nil || ce.Depth != 22 || ce.BestMove() != "e2e4" || *ce.PVs[1].CP != 18 {
		t.Fatalf("cloud: %+v %v", ce, err)
	}
	ex, err := DecodeExplorer(s["explorer_masters.json"])
	if err != nil || len(ex.Moves) != 3 || ex.Moves[1].Games() != 763 {
		t.Fatalf("explorer: %+v %v", ex, err)
	}
	db, err := DecodeChessDB(s["chessdb_queryall.json"])
	if err != nil || db.Status != "ok" || len(db.Moves) != 5 || db.Moves[0].Score != 35 || db.Moves[0].Rank != 2 || db.Moves[4].Known {
		t.Fatalf("chessdb: %+v %v", db, err)
	}
	for _, bad := range []string{`{}`, `{"status":"ok"}`, `{"status":"ok","moves":[{"uci":"e2e4","score":"x","rank":1}]}`,
		`{"status":"ok","moves":[{"uci":"e2","score":1,"rank":1}]}`, `{"status":"ok","moves":[{"uci":"e2e4","score":1,"rank":3}]}`, `unknown`} {
		if _, err := DecodeChessDB([]byte(bad)); err == nil {
			t.Errorf("chessdb accepted %q", bad)
		}
	}
	if db, err := DecodeChessDB([]byte(`{"status":"unknown"}`)); err != nil || db.Status != "unknown" {
		t.Errorf("chessdb unknown: %+v %v", db, err)
	}
	// The player database streams: the last complete line counts, a line
	// cut short at the end is left out, a bad complete line is an error.
	stream := s["explorer_player.ndjson"]
	for _, c := range []struct {
		body  string
		moves int
		ok    bool
	}{
		{string(stream), 2, true},
		{string(stream) + `{"white":1,"moves":[{"uci":"e2`, 2, true},
		{string(stream[:len(stream)/3]), 0, false},
		{strings.SplitAfter(string(stream), "\n")[0], 1, true},
		{string(stream) + "{]\n", 0, false},
		{"\n\n", 0, false},
	} {
		ex, err := DecodeExplorerStream([]byte(c.body))
		if (err == nil) != c.ok || err == nil && len(ex.Moves) != c.moves {
			t.Errorf("player stream %q: %+v %v", c.body, ex, err)
		}
	}
	for _, bad := range []string{``, `{}`, `[]`, `{"category":"win","moves":[{"uci":"e2"}]}`, `{"pvs":[{"moves":"e2e4"}]}`,
		`{"pvs":[{"moves":"","cp":1}]}`, `{"moves":[{"uci":"e2e4","white":-1}]}`, `<html>`} {
		if _, err := DecodeTablebase([]byte(bad)); err == nil && !strings.Contains(bad, "white") {
			t.Errorf("tablebase accepted %q", bad)
		}
		if _, err := DecodeCloudEval([]byte(bad)); err == nil {
			t.Errorf("cloud eval accepted %q", bad)
		}
		if _, err := DecodeExplorer([]byte(bad)); err == nil && bad != `{}` && !strings.Contains(bad, "category") && !strings.Contains(bad, "pvs") {
			t.Errorf("explorer accepted %q", bad)
		}
	}
}

func TestSourceToken(t *testing.T) {
	const tok = "lip_secret"
	for _, c := range []struct {
		lichess, source string
		want            string
	}{
		{"https://lichess.org", "https://lichess.org", tok},
		{"https://lichess.org", "https://explorer.lichess.ovh", tok},
		{"https://lichess.org", "https://explorer.lichess.org/", tok},
		{"https://lichess.org", "http://explorer.lichess.ovh", ""},
		{"https://lichess.org", "https://explorer.lichess.ovh:8443", ""},
		{"https://lichess.org", "https://tablebase.lichess.ovh", ""},
		{"https://lichess.org", "https://www.chessdb.cn", ""},
		{"https://lichess.org", "https://explorer.lichess.ovh.evil.example", ""},
		{"http://127.0.0.1:9000", "http://127.0.0.1:9000", tok},
		{"http://127.0.0.1:9000", "http://127.0.0.1:9001", ""},
		{"https://lichess.org", "http://lichess.org", ""},
		{"https://lichess.org", "::bad", ""},
	} {
		if got := SourceToken(c.lichess, c.source, tok); got != c.want {
			t.Errorf("SourceToken(%s, %s) = %q, want %q", c.lichess, c.source, got, c.want)
		}
	}
}

// TestSourcesOverHTTP: each lookup hits its path with its query; the token
// reaches the server only when SourceToken allows it; 404 is ErrNotKnown;
// a 429 pauses that endpoint only; garbage is a decode error.
func TestSourcesOverHTTP(t *testing.T) {
	s := sourceSeeds(t)
	var mu sync.Mutex
	var auths []string
	status := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		code := status[r.URL.Path]
		mu.Unlock()
		if code != 0 {
			w.WriteHeader(code)
			return
		}
		switch r.URL.Path {
		case "/standard":
			if r.URL.Query().Get("fen") == "" {
				w.WriteHeader(400)
				return
			}
			_, _ = w.Write(s["tablebase_win.json"])
		case "/api/cloud-eval":
			if r.URL.Query().Get("multiPv") != "2" {
				w.WriteHeader(400)
				return
			}
			_, _ = w.Write(s["cloud_eval.json"])
		case "/lichess":
			q := r.URL.Query()
			if q.Get("speeds") != "blitz,rapid" || q.Get("ratings") != "2000,2200" {
				w.WriteHeader(400)
				return
			}
			_, _ = w.Write(s["explorer_masters.json"])
		case "/masters":
			_, _ = w.Write([]byte(`{"white":`))
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	lichessURL := "https://lichess.org"
	c := New(Options{BaseURL: srv.URL, Token: SourceToken(lichessURL, srv.URL, "lip_secret"), Retries: -1})
	defer c.Close()
	if _, err := c.TablebaseLookup(ctx, "standard", "8/8/8/8/8/8/8/8 w - - 0 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CloudEvalLookup(ctx, "x", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExplorerLookup(ctx, ExplorerQuery{DB: "lichess", Speeds: []string{"blitz", "rapid"}, Ratings: []int{2000, 2200}}, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExplorerLookup(ctx, ExplorerQuery{DB: "masters"}, "x"); err == nil {
		t.Fatal("garbage answer decoded")
	}
	mu.Lock()
	for _, a := range auths {
		if a != "" {
			t.Errorf("a source off Lichess got Authorization %q", a)
		}
	}
	status["/api/cloud-eval"] = 404
	status["/standard"] = 429
	mu.Unlock()
	if _, err := c.CloudEvalLookup(ctx, "x", 2); !errors.Is(err, ErrNotKnown) {
		t.Fatalf("404: %v", err)
	}
	var rl *RateLimitError
	if _, err := c.TablebaseLookup(ctx, "standard", "x"); !errors.As(err, &rl) {
		t.Fatalf("429: %v", err)
	}
	if p := c.Pauses(); len(p) != 1 || p["GET /standard"].IsZero() {
		t.Fatalf("pauses after a 429: %v", p)
	}
	// The paused endpoint is not asked again (a deadline before the pause ends fails at once).
	dctx, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	if _, err := c.TablebaseLookup(dctx, "standard", "x"); !errors.As(err, &rl) {
		t.Fatalf("paused: %v", err)
	}
	// Same host as LICHESS_URL: the token goes.
	c2 := New(Options{BaseURL: srv.URL, Token: SourceToken(srv.URL, srv.URL, "lip_secret"), Retries: -1})
	defer c2.Close()
	mu.Lock()
	auths = nil
	delete(status, "/api/cloud-eval")
	mu.Unlock()
	if _, err := c2.CloudEvalLookup(ctx, "x", 2); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auths) != 1 || auths[0] != "Bearer lip_secret" {
		t.Fatalf("Lichess itself: %q", auths)
	}
}

func FuzzDecodeTablebase(f *testing.F) {
	for _, b := range sourceSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := DecodeTablebase(b)
		if (tb == nil) == (err == nil) {
			t.Fatal("answer and error")
		}
		if tb != nil {
			for _, m := range tb.Moves {
				_ = m.Category.Rank()
			}
		}
	})
}

func FuzzDecodeCloudEval(f *testing.F) {
	for _, b := range sourceSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCloudEval(b)
		if (c == nil) == (err == nil) {
			t.Fatal("answer and error")
		}
		if c != nil && len(c.BestMove()) < 4 {
			t.Fatal("short best move")
		}
	})
}

func FuzzDecodeExplorer(f *testing.F) {
	for _, b := range sourceSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := DecodeExplorer(b)
		if (e == nil) == (err == nil) {
			t.Fatal("answer and error")
		}
		if e != nil {
			for _, m := range e.Moves {
				if m.Games() < 0 {
					t.Fatal("negative games")
				}
			}
		}
	})
}

func FuzzDecodeExplorerStream(f *testing.F) {
	for _, b := range sourceSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := DecodeExplorerStream(b)
		if (e == nil) == (err == nil) {
			t.Fatal("answer and error")
		}
		if e != nil {
			for _, m := range e.Moves {
				if m.Games() < 0 || len(m.UCI) < 4 {
					t.Fatal("bad move")
				}
			}
		}
	})
}

func FuzzDecodeChessDB(f *testing.F) {
	for _, b := range sourceSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		db, err := DecodeChessDB(b)
		if (db == nil) == (err == nil) {
			t.Fatal("answer and error")
		}
		if db != nil {
			for _, m := range db.Moves {
				if len(m.UCI) < 4 || m.Rank < 0 || m.Rank > 2 {
					t.Fatal("bad move")
				}
			}
		}
	})
}
