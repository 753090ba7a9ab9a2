package match

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testbin"
)

// ponderosa is the binary built once by TestMain (without the race
// detector: it is the opponent here, not the code under test).
var ponderosa string

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, testbin.Build{Pkg: "../../cmd/ponderosa", Out: &ponderosa}))
}

func uciEngine(name string) EngineSpec {
	return EngineSpec{Name: name, Argv: []string{ponderosa}, Options: [][2]string{{"Hash", "4"}}}
}

func runMatch(t *testing.T, cfg Config) (Result, []Opening, string) {
	t.Helper()
	var pgn, progress bytes.Buffer
	cfg.PGN, cfg.Progress = &pgn, &progress
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	var sum bytes.Buffer
	Summary(&sum, res, cfg.SPRT)
	t.Logf("\n%s%s", progress.String(), sum.String())
	games, err := ReadPGN(bytes.NewReader(pgn.Bytes()), "out.pgn")
	if err != nil {
		t.Fatalf("the PGN written does not read back: %v\n%s", err, pgn.String())
	}
	return res, games, pgn.String()
}

// TestSelfPlayUCI plays ponderosa against itself over UCI, node-limited,
// from two book openings with colours swapped.
func TestSelfPlayUCI(t *testing.T) {
	ops, err := LoadOpenings("testdata/8moves_sample.pgn")
	if err != nil {
		t.Fatal(err)
	}
	sprt := DefaultSPRT
	res, games, pgn := runMatch(t, Config{
		Engines:     [2]EngineSpec{uciEngine("A"), uciEngine("B")},
		TC:          TimeControl{Nodes: 3000},
		Games:       4,
		Openings:    ops[:2],
		Concurrency: 2,
		SPRT:        &sprt,
		Adjudicate:  Adjudication{ResignScore: 1000, ResignMoves: 3, DrawScore: 5, DrawMoves: 10, DrawAfter: 40},
	})
	s := res.Stats
	if s.Games() != 4 || s.Pairs() != 2 || len(games) != 4 {
		t.Fatalf("want 4 games in 2 pairs, got %+v and %d PGN games", s, len(games))
	}
	for _, bad := range []Termination{TermTime, TermIllegal, TermCrash, TermForfeit} {
		if res.Terminations[bad] > 0 {
			t.Errorf("%d games ended by %s", res.Terminations[bad], bad)
		}
	}
	// Every PGN game starts from its book opening: 16 book plies.
	if n := strings.Count(pgn, "{book}"); n != 4*16 {
		t.Errorf("%d book moves in the PGN, want 64", n)
	}
	for _, g := range games {
		if len(g.Moves) <= 16 {
			t.Errorf("%s: only %d plies", g.Source, len(g.Moves))
		}
	}
}

// TestCEGOAgainstUCI plays the CEGO engine side against the UCI one from
// a king-and-queen-versus-king position, both colours: the side with the
// queen must win every time, and the CEGO side may forfeit only when it
// has the bare king.
func TestCEGOAgainstUCI(t *testing.T) {
	start, err := board.ParseFEN("8/8/8/4k3/8/8/8/3QK3 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	res, games, pgn := runMatch(t, Config{
		Engines: [2]EngineSpec{
			{Name: "cego", Argv: []string{ponderosa, "cego", "--hash", "4"}, CEGO: true},
			uciEngine("uci"),
		},
		TC:       TimeControl{Base: 3 * time.Second, Inc: 30 * time.Millisecond},
		Margin:   200 * time.Millisecond,
		Games:    2,
		Openings: []Opening{{Start: start, Source: "KQK"}},
	})
	if res.Stats.Wins != 1 || res.Stats.Losses != 1 || len(games) != 2 {
		t.Fatalf("want one win each, got %+v\n%s", res.Stats, pgn)
	}
	if res.Terminations[TermTime]+res.Terminations[TermIllegal]+res.Terminations[TermCrash] > 0 {
		t.Errorf("terminations %v\n%s", res.Terminations, pgn)
	}
	if strings.Contains(pgn, `[White "cego"]`+"\n[Black \"uci\"]\n[Result \"1-0\"]") == false {
		t.Errorf("CEGO with the queen (White, game 1) did not win:\n%s", pgn)
	}
}

func TestMisbehavingEngines(t *testing.T) {
	cases := []struct {
		script string
		want   Termination
		tc     TimeControl
	}{
		{"testdata/illegal.sh", TermIllegal, TimeControl{Nodes: 500}},
		{"testdata/crash.sh", TermCrash, TimeControl{Nodes: 500}},
		{"testdata/hang.sh", TermTime, TimeControl{Base: time.Second}},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.script), func(t *testing.T) {
			res, games, pgn := runMatch(t, Config{
				Engines: [2]EngineSpec{uciEngine("ponderosa"), {Argv: []string{"sh", tc.script}}},
				TC:      tc.tc,
				Margin:  50 * time.Millisecond,
				Games:   2,
			})
			if res.Stats.Wins != 2 || len(games) != 2 {
				t.Fatalf("ponderosa should win both games: %+v\n%s", res.Stats, pgn)
			}
			if res.Terminations[tc.want] != 2 {
				t.Errorf("terminations %v, want 2× %s\n%s", res.Terminations, tc.want, pgn)
			}
		})
	}
}

// TestStockfish plays ponderosa against Debian's stockfish (node-limited,
// so the games are quick). CI installs stockfish; elsewhere the test skips
// when it is missing.
func TestStockfish(t *testing.T) {
	sf := testbin.Need(t, "/usr/games/stockfish")
	ops, err := LoadOpenings("testdata/8mvs_sample.epd")
	if err != nil {
		t.Fatal(err)
	}
	res, games, _ := runMatch(t, Config{
		Engines: [2]EngineSpec{
			uciEngine("ponderosa"),
			{Name: "stockfish", Argv: []string{sf}, Options: [][2]string{{"Hash", "4"}, {"Threads", "1"}}},
		},
		TC:       TimeControl{Nodes: 2000},
		Games:    2,
		Openings: ops[:1],
	})
	if res.Stats.Games() != 2 || len(games) != 2 {
		t.Fatalf("want 2 games, got %+v", res.Stats)
	}
	for _, bad := range []Termination{TermTime, TermIllegal, TermCrash} {
		if res.Terminations[bad] > 0 {
			t.Errorf("%d games ended by %s", res.Terminations[bad], bad)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	cases := map[string][]string{
		"/usr/games/stockfish":         {"/usr/games/stockfish"},
		"  ./ponderosa   cego ":        {"./ponderosa", "cego"},
		`"my engine" --opt 'a b' c\ d`: {"my engine", "--opt", "a b", "c d"},
		`x "" y`:                       {"x", "", "y"},
	}
	for in, want := range cases {
		got, err := SplitCommand(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "  ", `"open`, `'open`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted", bad)
		}
	}
	spec, err := ParseEngineSpec("cego:./ponderosa cego")
	if err != nil || !spec.CEGO || len(spec.Argv) != 2 {
		t.Errorf("ParseEngineSpec: %+v %v", spec, err)
	}
}

func TestParseTC(t *testing.T) {
	cases := map[string]TimeControl{
		"10+0.1": {Base: 10 * time.Second, Inc: 100 * time.Millisecond},
		"40":     {Base: 40 * time.Second},
		"0.5+0":  {Base: 500 * time.Millisecond},
		"inf":    {},
	}
	for in, want := range cases {
		got, err := ParseTC(in)
		if err != nil || got != want {
			t.Errorf("ParseTC(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"x", "-1+0", "10+x", "10+-1", "0"} {
		if _, err := ParseTC(bad); err == nil {
			t.Errorf("ParseTC(%q) accepted", bad)
		}
	}
	if s := (TimeControl{Base: 10 * time.Second, Inc: 100 * time.Millisecond}).String(); s != "10+0.1" {
		t.Errorf("String() = %q", s)
	}
}

func TestRulesHelpers(t *testing.T) {
	mustFEN := func(s string) board.Position {
		p, err := board.ParseFEN(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := mustFEN("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
	if !hasMateInOne(&p) {
		t.Error("Ra8# not found")
	}
	p = mustFEN(board.StartFEN)
	if hasMateInOne(&p) {
		t.Error("mate in one in the start position")
	}
	p = mustFEN("8/8/8/4k3/8/8/8/2NBK3 w - - 0 1")
	if !canMate(&p, board.White) || canMate(&p, board.Black) {
		t.Error("canMate: B+N can mate, a bare king cannot")
	}
	p = mustFEN("8/8/8/4k3/8/8/8/3BK3 w - - 0 1")
	if canMate(&p, board.White) {
		t.Error("canMate: a lone bishop cannot mate")
	}
	if got := formatClock(83*time.Minute + 9612*time.Millisecond); got != "[%clk 1:23:09.6]" {
		t.Errorf("formatClock = %q", got)
	}
}

// fuzzing reports whether this test binary runs a fuzz target (or is one
// of its workers), where building the ponderosa binary would only cost time.

// TestChess960Match plays Chess960 positions with castling rights: the
// runner must switch UCI_Chess960 on and exchange king-takes-rook castling.
func TestChess960Match(t *testing.T) {
	ops, err := LoadOpenings("testdata/chess960_sample.epd")
	if err != nil {
		t.Fatal(err)
	}
	if !ops[0].Start.Chess960 {
		t.Fatal("Shredder-FEN opening not marked Chess960")
	}
	res, games, pgn := runMatch(t, Config{
		Engines:  [2]EngineSpec{uciEngine("A"), uciEngine("B")},
		TC:       TimeControl{Nodes: 2000},
		Games:    2,
		Openings: ops[:1],
	})
	if res.Stats.Games() != 2 || len(games) != 2 || !strings.Contains(pgn, `[Variant "Chess960"]`) {
		t.Fatalf("%+v\n%s", res.Stats, pgn)
	}
	for _, bad := range []Termination{TermTime, TermIllegal, TermCrash} {
		if res.Terminations[bad] > 0 {
			t.Errorf("%d games ended by %s\n%s", res.Terminations[bad], bad, pgn)
		}
	}
}
