package movesource

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func query(t *testing.T, fen string, remaining time.Duration) Query {
	t.Helper()
	pos, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return Query{Pos: pos, Variant: "standard", Speed: "blitz", Remaining: remaining}
}

// TestTablebaseMatesKRvK plays the tablebase's choice for White and the
// tablebase's best defence for Black from a KRvK position: mate comes in
// exactly the DTM the first answer promised.
func TestTablebaseMatesKRvK(t *testing.T) {
	src := fakelichess.NewSources()
	defer src.Close()
	set := New(Options{LichessURL: "https://lichess.org", Token: "lip_secret", Sources: config.Sources{Tablebase: true, TablebaseURL: src.URL()}, MaxTimeout: 20 * time.Second})
	defer set.Close()
	g := board.NewGame(query(t, "8/8/8/3k4/8/8/8/R3K3 w - - 0 1", time.Hour).Pos)
	ctx := context.Background()
	plies, promised := 0, 0
	for {
		pos := g.Position()
		var ml board.MoveList
		pos.GenerateLegal(&ml)
		if ml.N == 0 {
			break
		}
		a, ok := set.Lookup(ctx, Query{Pos: pos, Variant: "standard", Remaining: time.Hour})
		if !ok || a.Source != Tablebase {
			t.Fatalf("ply %d: no tablebase answer", plies)
		}
		if plies == 0 {
			if a.Verdict != "win" {
				t.Fatalf("verdict %q", a.Verdict)
			}
			if _, err := fmt.Sscanf(a.Note, "win, DTM %d", &promised); err != nil {
				t.Fatalf("note %q: %v", a.Note, err)
			}
		}
		if err := g.Play(a.Move); err != nil {
			t.Fatal(err)
		}
		plies++
		if plies > 40 {
			t.Fatal("no mate in 40 plies")
		}
	}
	if p := g.Position(); !p.InCheck() {
		t.Fatal("stalemate, not mate")
	}
	for _, a := range src.Auth() {
		if a != "" {
			t.Fatalf("the tablebase host got the token: %q", a)
		}
	}
	if plies != promised+1 {
		t.Fatalf("mate in %d plies, the tablebase promised %d", plies, promised+1)
	}
}

// TestSlowAndBrokenSources: a source slower than its budget gives no
// answer within the budget; garbage and 5xx are ignored; three failures
// open the breaker, and the source is not asked again.
func TestSlowAndBrokenSources(t *testing.T) {
	src := fakelichess.NewSources()
	defer src.Close()
	set := New(Options{Sources: config.Sources{Tablebase: true, TablebaseURL: src.URL()}, MaxTimeout: 200 * time.Millisecond, BreakAfter: 3, BreakFor: time.Hour})
	defer set.Close()
	q := query(t, "8/8/8/3k4/8/8/8/R3K3 w - - 0 1", 60*time.Second)
	if d := set.Timeout(60 * time.Second); d != 200*time.Millisecond {
		t.Fatalf("timeout %v", d)
	}
	if d := set.Timeout(5 * time.Second); d != 0 {
		t.Fatalf("timeout below the minimum clock: %v", d)
	}
	if _, ok := set.Lookup(context.Background(), query(t, "8/8/8/3k4/8/8/8/R3K3 w - - 0 1", 5*time.Second)); ok || src.Hits("/standard") != 0 {
		t.Fatal("looked up below the minimum clock")
	}
	src.SetFault("/standard", fakelichess.SourceFault{Delay: 5 * time.Second})
	start := time.Now()
	if _, ok := set.Lookup(context.Background(), q); ok {
		t.Fatal("a 5 s answer within 200 ms")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("lookup took %v", d)
	}
	src.SetFault("/standard", fakelichess.SourceFault{Garbage: true})
	if _, ok := set.Lookup(context.Background(), q); ok {
		t.Fatal("garbage answered")
	}
	src.SetFault("/standard", fakelichess.SourceFault{Status: http.StatusBadGateway})
	if _, ok := set.Lookup(context.Background(), q); ok {
		t.Fatal("502 answered")
	}
	hits := src.Hits("/standard")
	src.SetFault("/standard", fakelichess.SourceFault{})
	if _, ok := set.Lookup(context.Background(), q); ok || src.Hits("/standard") != hits {
		t.Fatal("the breaker did not skip the source")
	}
}

// TestCloudAndExplorer: the cloud's move when deep enough (404 and a
// shallow answer give none), the explorer's most played or best scoring
// move with enough games, within its plies; the tablebase and the
// explorer off Lichess never get the token.
func TestCloudAndExplorer(t *testing.T) {
	src := fakelichess.NewSources()
	defer src.Close()
	cloudJSON, err := os.ReadFile("testdata/cloud_eval.json")
	if err != nil {
		t.Fatal(err)
	}
	explorerJSON, err := os.ReadFile("testdata/explorer_masters.json")
	if err != nil {
		t.Fatal(err)
	}
	start := query(t, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", time.Minute)
	src.SetCloudEval(start.Pos.FEN(), cloudJSON)
	src.SetExplorer("masters", start.Pos.FEN(), explorerJSON)
	ctx := context.Background()
	cloudOnly := func(depth int) *Set {
		return New(Options{LichessURL: "https://lichess.org", Token: "lip_secret", Sources: config.Sources{Cloud: true, CloudURL: src.URL(), CloudMinDepth: depth}})
	}
	set := cloudOnly(20)
	defer set.Close()
	if a, ok := set.Lookup(ctx, start); !ok || a.Source != Cloud || start.Pos.UCI(a.Move) != "e2e4" {
		t.Fatalf("cloud: %+v %v", a, ok)
	}
	deep := cloudOnly(30)
	defer deep.Close()
	if _, ok := deep.Lookup(ctx, start); ok {
		t.Fatal("a depth 22 answer below a minimum of 30")
	}
	other := query(t, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", time.Minute)
	if _, ok := set.Lookup(ctx, other); ok {
		t.Fatal("404 gave a move")
	}
	explore := func(byScore bool, minGames int64) *Set {
		return New(Options{LichessURL: "https://lichess.org", Token: "lip_secret", Sources: config.Sources{Explorer: true, ExplorerURL: src.URL(),
			ExplorerDB: "masters", ExplorerMinGames: minGames, ExplorerMaxPly: 10, ExplorerByScore: byScore}})
	}
	for _, c := range []struct {
		byScore  bool
		minGames int64
		want     string
	}{{false, 1, "d2d4"}, {true, 1, "d2d4"}, {false, 600, "d2d4"}} {
		s := explore(c.byScore, c.minGames)
		a, ok := s.Lookup(ctx, start)
		s.Close()
		if !ok || a.Source != Explorer || start.Pos.UCI(a.Move) != c.want {
			t.Errorf("explorer by score %v min %d: %+v %v, want %s", c.byScore, c.minGames, a, ok, c.want)
		}
	}
	late := start
	late.Ply = 10
	s := explore(false, 1)
	defer s.Close()
	if _, ok := s.Lookup(ctx, late); ok {
		t.Fatal("explorer past its plies")
	}
	for _, a := range src.Auth() {
		if a != "" {
			t.Fatalf("a loopback source that is not LICHESS_URL got %q", a)
		}
	}
}

// TestExplorerPlayerAndFilters: the player database gets the player, our
// colour, the modes and the speeds (the game's when none is set), and its
// streamed answer's last line counts; the lichess database gets the
// rating groups and the speeds set; neither gets the token off Lichess.
func TestExplorerPlayerAndFilters(t *testing.T) {
	src := fakelichess.NewSources()
	defer src.Close()
	stream, err := os.ReadFile("testdata/explorer_player.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	white := query(t, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", time.Minute)
	src.SetExplorer("player", white.Pos.FEN(), stream)
	player := New(Options{LichessURL: "https://lichess.org", Token: "lip_secret", Sources: config.Sources{Explorer: true,
		ExplorerURL: src.URL(), ExplorerDB: "player", ExplorerPlayer: "alice", ExplorerModes: []string{"rated"},
		ExplorerMinGames: 1, ExplorerMaxPly: 10}})
	defer player.Close()
	// The first line has only e4; the last, complete one has d4 with more
	// games.
	if a, ok := player.Lookup(ctx, white); !ok || white.Pos.UCI(a.Move) != "d2d4" || a.Source != Explorer {
		t.Fatalf("player database: %+v %v", a, ok)
	}
	q := src.LastQuery("/player")
	if q.Get("player") != "alice" || q.Get("color") != "white" || q.Get("modes") != "rated" || q.Get("speeds") != "blitz" || q.Has("ratings") {
		t.Errorf("player query %v", q)
	}
	black := query(t, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", time.Minute)
	if _, ok := player.Lookup(ctx, black); ok {
		t.Error("a move from an empty answer")
	}
	if q := src.LastQuery("/player"); q.Get("color") != "black" {
		t.Errorf("player query for Black %v", q)
	}
	lichessDB := New(Options{LichessURL: "https://lichess.org", Token: "lip_secret", Sources: config.Sources{Explorer: true,
		ExplorerURL: src.URL(), ExplorerDB: "lichess", ExplorerRatings: []int{1600, 1800}, ExplorerSpeeds: []string{"bullet", "blitz"},
		ExplorerMinGames: 1, ExplorerMaxPly: 10}})
	defer lichessDB.Close()
	lichessDB.Lookup(ctx, white)
	if q := src.LastQuery("/lichess"); q.Get("ratings") != "1600,1800" || q.Get("speeds") != "bullet,blitz" || q.Has("player") {
		t.Errorf("lichess query %v", q)
	}
	for _, a := range src.Auth() {
		if a != "" {
			t.Fatalf("a loopback source that is not LICHESS_URL got %q", a)
		}
	}
}

// TestChessDB: ChessDB's best scored move ranked best or good is played,
// with its score; "unknown" is no failure and no move; ChessDB never gets
// the token, not even at LICHESS_URL's own address.
func TestChessDB(t *testing.T) {
	src := fakelichess.NewSources()
	defer src.Close()
	body, err := os.ReadFile("testdata/chessdb_queryall.json")
	if err != nil {
		t.Fatal(err)
	}
	start := query(t, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", time.Minute)
	src.SetChessDB(start.Pos.FEN(), body)
	// LICHESS_URL is the fake's own address: any other source would get
	// the token there.
	set := New(Options{LichessURL: src.URL(), Token: "lip_secret", Sources: config.Sources{ChessDB: true, ChessDBURL: src.URL()}})
	defer set.Close()
	ctx := context.Background()
	a, ok := set.Lookup(ctx, start)
	if !ok || a.Source != ChessDB || start.Pos.UCI(a.Move) != "e2e4" || a.Eval == nil || a.Eval.CP != 35 {
		t.Fatalf("chessdb: %+v %v", a, ok)
	}
	if q := src.LastQuery("/cdb.php"); q.Get("action") != "queryall" || q.Get("json") != "1" || q.Get("board") != start.Pos.FEN() {
		t.Errorf("query %v", q)
	}
	other := query(t, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", time.Minute)
	if _, ok := set.Lookup(ctx, other); ok {
		t.Error("a move for an unknown position")
	}
	for _, a := range src.Auth() {
		if a != "" {
			t.Fatalf("ChessDB got Authorization %q", a)
		}
	}
	// Only moves ranked best or good, with a known score, count.
	if _, ok := ChooseChessDB(&lichess.ChessDB{Status: "ok", Moves: []lichess.ChessDBMove{{UCI: "a2a3", Rank: 0, Known: true, Score: 90},
		{UCI: "h2h4", Rank: 2}}}); ok {
		t.Error("chose a move ranked ? or with an unknown score")
	}
}

// TestChooseExplorer: popularity and score pick different moves; the
// minimum number of games rules moves out; Black's score counts for Black.
func TestChooseExplorer(t *testing.T) {
	ex := &lichess.Explorer{Moves: []lichess.ExplorerMove{
		{UCI: "e2e4", White: 400, Draws: 200, Black: 400}, // 1000 games, 0.5 for White
		{UCI: "d2d4", White: 70, Draws: 20, Black: 10},    // 100 games, 0.8 for White
		{UCI: "c2c4", White: 0, Draws: 0, Black: 5},       // 5 games, 1.0 for Black
	}}
	for _, c := range []struct {
		white    bool
		min      int64
		byScore  bool
		want     int
		wantNone bool
	}{
		{true, 1, false, 0, false}, {true, 1, true, 1, false}, {true, 200, true, 0, false},
		{false, 1, true, 2, false}, {false, 10, true, 0, false}, {true, 2000, false, 0, true},
	} {
		i, ok := ChooseExplorer(ex, c.white, c.min, c.byScore)
		if ok == c.wantNone || (ok && i != c.want) {
			t.Errorf("%+v: %d %v", c, i, ok)
		}
	}
}
