package nnuedata

import (
	"errors"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

const pgnGames = `[Event "ponderosa match"]
[White "a"]
[Black "b"]
[Result "0-1"]

1. e4 {+0.30/12 0.5s [%clk 0:00:09.5]} f6 {-0.90/11 0.4s} 2. Qh5+ {+1.20/3}
g6 {-1.30/12} 3. Nf3 {+M9/20} Nh6 4. d4 {+2.00/14 0.3s} Nf7 {-2.10/15
0.2s [%clk 0:00:07.0]} 5. Qxg6 {+3.00/15} hxg6 {-4/15} 0-1

[Event "unfinished"]
[White "a"]
[Black "b"]

1. d4 {+0.10/10} d5 {-0.10/10} *
`

func readPGN(t *testing.T, text string, opt PGNOptions) ([]Record, PGNStats) {
	t.Helper()
	var recs []Record
	st, err := FromPGN(strings.NewReader(text), "test.pgn", opt, func(r *Record) error {
		recs = append(recs, *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs, st
}

// TestFromPGN: the quiet positions of a finished game with their scores
// (White's view) and its result; not the mover in check, a mate score, a
// move with no score, or a capture; nothing from an unfinished game.
func TestFromPGN(t *testing.T) {
	recs, st := readPGN(t, pgnGames, PGNOptions{})
	if st != (PGNStats{Games: 1, Unfinished: 1, Positions: 5}) {
		t.Errorf("stats %+v", st)
	}
	// The positions before 1. e4, 1... f6, 2. Qh5+, 4. d4 and 4... Nf7.
	g := board.NewGame(board.StartPosition())
	var want []string
	for i, san := range strings.Fields("e4 f6 Qh5+ g6 Nf3 Nh6 d4 Nf7") {
		if i == 0 || i == 1 || i == 2 || i == 6 || i == 7 {
			pos := g.Position()
			rec := FromPosition(&pos, 0, BlackWin)
			want = append(want, rec.FEN())
		}
		if err := g.PlaySAN(san); err != nil {
			t.Fatal(err)
		}
	}
	scores := []int16{30, 90, 120, 200, 210}
	if len(recs) != len(scores) {
		t.Fatalf("%d records, want %d", len(recs), len(scores))
	}
	for i, r := range recs {
		if r.FEN() != want[i] || r.Score != scores[i] || r.Result != BlackWin {
			t.Errorf("record %d: %s score %d result %d, want %s score %d result %d", i, r.FEN(), r.Score, r.Result, want[i], scores[i], BlackWin)
		}
	}

	if recs, _ := readPGN(t, pgnGames, PGNOptions{MinDepth: 10}); len(recs) != 4 {
		t.Errorf("depth at least 10: %d records, want 4 (not 2. Qh5+ at depth 3)", len(recs))
	}
	recs, _ = readPGN(t, pgnGames, PGNOptions{Players: []string{"b", "c"}})
	if len(recs) != 2 || recs[0].Score != 90 || recs[1].Score != 210 || recs[0].STM != board.Black {
		t.Errorf("Black's moves only: %+v", recs)
	}
}

// TestFromPGNErrors: an illegal move or a bad FEN tag names the game; the
// callback's error stops the reading and comes back.
func TestFromPGNErrors(t *testing.T) {
	for _, text := range []string{
		"[White \"a\"]\n\n1. e4 {+0.1/5} e4 1-0\n",
		"[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 1-0\n",
	} {
		_, err := FromPGN(strings.NewReader(text), "bad.pgn", PGNOptions{}, func(*Record) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "bad.pgn:1") {
			t.Errorf("%q: err %v, want one naming bad.pgn:1", text, err)
		}
	}
	stop := errors.New("full")
	n := 0
	_, err := FromPGN(strings.NewReader(pgnGames), "test.pgn", PGNOptions{}, func(*Record) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d records", err, n)
	}
}

func TestParseScore(t *testing.T) {
	for _, c := range []struct {
		in                  string
		cp, depth           int
		mate, whiteView, ok bool
	}{
		{"+0.72/17 0.892s [%clk 0:00:09.2]", 72, 17, false, false, true},
		{"-1.05/9", -105, 9, false, false, true},
		{"+0.00", 0, 0, false, false, true},
		{"-12/30", -1200, 30, false, false, true},
		{"+M3/20", 0, 20, true, false, true},
		{"-M2", 0, 0, true, false, true},
		{"[%clk 0:01:00] [%eval 0.35,18] engine", 35, 18, false, true, true},
		{"[%eval -1.5,36] cloud: 12 lines", -150, 36, false, true, true},
		{"[%eval 0.17] [%clk 0:00:30]", 17, 0, false, true, true},
		{"[%eval #-3,20] engine", 0, 20, true, true, true},
		{"[%eval #4]", 0, 0, true, true, true},
		{"", 0, 0, false, false, false},
		{"book", 0, 0, false, false, false},
		{"[%clk 0:01:00] tablebase: win, DTM 13", 0, 0, false, false, false},
		{"0.5/3", 0, 0, false, false, false},
		{"+1e3/4", 0, 0, false, false, false},
		{"+Inf/4", 0, 0, false, false, false},
		{"+0.3/-2", 0, 0, false, false, false},
		{"+0.3/x", 0, 0, false, false, false},
		{"+M-3/2", 0, 0, false, false, false},
		{"+M/2", 0, 0, false, false, false},
		{"+5000.0/2", 0, 0, false, false, false},
		{"[%eval 0.35,18", 0, 0, false, false, false},
		{"[%eval +0.35,18]", 0, 0, false, false, false},
		{"[%eval #,3]", 0, 0, false, false, false},
		{"[%eval 0.35,deep]", 0, 0, false, false, false},
		{"White wins by adjudication", 0, 0, false, false, false},
	} {
		cp, depth, mate, whiteView, ok := parseScore(c.in)
		if cp != c.cp || depth != c.depth || mate != c.mate || whiteView != c.whiteView || ok != c.ok {
			t.Errorf("parseScore(%q) = %d, %d, %v, %v, %v; want %d, %d, %v, %v, %v", c.in, cp, depth, mate, whiteView, ok,
				c.cp, c.depth, c.mate, c.whiteView, c.ok)
		}
	}
}

// TestFromPGNEvalCommands: the bot's and Lichess's [%eval] is White's point
// of view whoever moved; a move without one gives nothing.
func TestFromPGNEvalCommands(t *testing.T) {
	text := `[White "ponderosa"]
[Black "someone"]
[Result "1/2-1/2"]

1. e4 { [%clk 0:01:00] [%eval 0.35,18] engine } 1... e5 { [%clk 0:01:00] [%eval 0.30,17] engine }
2. Nf3 { [%clk 0:00:59] book } 2... Nc6 { [%clk 0:00:58] [%eval -0.10,20] cloud: 3 lines } 1/2-1/2
`
	recs, st := readPGN(t, text, PGNOptions{})
	if st.Positions != 3 || len(recs) != 3 {
		t.Fatalf("%+v: %d records, want 3", st, len(recs))
	}
	for i, want := range []int16{35, 30, -10} {
		if recs[i].Score != want || recs[i].Result != DrawGame {
			t.Errorf("record %d: score %d result %d, want %d (White's view) and a draw", i, recs[i].Score, recs[i].Result, want)
		}
	}
	if recs[1].STM != board.Black {
		t.Errorf("record 1: %s to move, want Black", recs[1].STM)
	}
}

// FuzzFromPGN: any text is read or refused, never a panic, and every
// record taken encodes and decodes.
func FuzzFromPGN(f *testing.F) {
	f.Add(pgnGames)
	f.Add("[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. O-O {+9.99/99} 1-0")
	f.Add("1. e4 {+M/} e5 {-0./1} 2. Nf3 {+./2} Nc6 {[%eval #-,] [%eval 1.0,2]} 1/2-1/2")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = FromPGN(strings.NewReader(s), "fuzz", PGNOptions{}, func(r *Record) error {
			var b [RecordSize]byte
			r.Encode(b[:])
			var back Record
			if err := back.Decode(b[:]); err != nil {
				t.Fatalf("record of %q does not decode: %v", s, err)
			}
			return nil
		})
	})
}
