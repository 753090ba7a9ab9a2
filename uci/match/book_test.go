package match

import (
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func TestLoadOpeningsEPD(t *testing.T) {
	ops, err := LoadOpenings("testdata/8mvs_sample.epd")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 20 {
		t.Fatalf("got %d openings, want 20", len(ops))
	}
	if got := ops[0].Start.FEN(); got != "r1bq1rk1/pp1nppbp/3p1np1/8/2PNP3/2N5/PP2BPPP/R1BQ1RK1 w - - 4 9" {
		t.Errorf("first FEN %s", got)
	}
	ops, err = ReadEPD(strings.NewReader("# comment\n\n4k3/8/8/8/8/8/4P3/4K3 b - - hmvc 7; fmvn 30; id \"x\";\n"), "x.epd")
	if err != nil || len(ops) != 1 || ops[0].Start.FEN() != "4k3/8/8/8/8/8/4P3/4K3 b - - 7 30" {
		t.Fatalf("EPD ops: %v %v", ops, err)
	}
	if _, err := ReadEPD(strings.NewReader("not a fen at all\n"), "bad.epd"); err == nil || !strings.Contains(err.Error(), "bad.epd:1") {
		t.Errorf("bad EPD error: %v", err)
	}
}

func TestLoadOpeningsPGN(t *testing.T) {
	ops, err := LoadOpenings("testdata/8moves_sample.pgn")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 10 {
		t.Fatalf("got %d openings, want 10", len(ops))
	}
	for _, o := range ops {
		if len(o.Moves) != 16 {
			t.Errorf("%s: %d plies, want 16", o.Source, len(o.Moves))
		}
		if _, err := o.Game(); err != nil {
			t.Error(err)
		}
	}
	g, _ := ops[0].Game()
	pos := g.Position()
	// 1. Nf3 d5 2. g3 c6 3. Bg2 Nf6 4. d3 Bg4 5. h3 Bh5 6. b3 e6 7. Bb2 Qa5+ 8. Qd2 Qxd2+
	if got := pos.FEN(); got != "rn2kb1r/pp3ppp/2p1pn2/3p3b/8/1P1P1NPP/PBPqPPB1/RN2K2R w KQkq - 0 9" {
		t.Errorf("after game 1: %s", got)
	}
}

func TestReadPGNTricky(t *testing.T) {
	ops, err := LoadOpenings("testdata/tricky.pgn")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 3 {
		t.Fatalf("got %d games, want 3", len(ops))
	}
	want := []string{
		"r1bqkb1r/1ppp1ppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 3 5",
		"8/8/4k3/4P3/8/8/8/4K3 w - - 1 3",
		"8/3k4/8/8/4P3/8/8/4K3 b - - 0 2",
	}
	for i, o := range ops {
		g, err := o.Game()
		if err != nil {
			t.Fatal(err)
		}
		p := g.Position()
		if p.FEN() != want[i] {
			t.Errorf("game %d: %s, want %s", i, p.FEN(), want[i])
		}
	}
	ops, err = ReadPGN(strings.NewReader("1. e4 {a comment\nover lines} e5\n2. Nf3 {x\ny}\n*\n"), "multi.pgn")
	if err != nil || len(ops) != 1 || len(ops[0].Moves) != 3 {
		t.Errorf("multi-line comments: %v, %v", ops, err)
	}
	if _, err := ReadPGN(strings.NewReader("1. e4 e5 2. Ke3 *"), "bad.pgn"); err == nil || !strings.Contains(err.Error(), "Ke3") {
		t.Errorf("illegal move error: %v", err)
	}
}

// FuzzReadPGN checks that the PGN reader never panics and that every
// opening it returns replays legally.
func FuzzReadPGN(f *testing.F) {
	f.Add("[Event \"x\"]\n\n1. e4 {c} e5 (1... c5) 2. Nf3 $1 *\n")
	f.Add("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n1. e4 Kd7 1-0")
	f.Add("1.d4 d5 2.c4 e6 {unterminated")
	f.Fuzz(func(t *testing.T, s string) {
		ops, err := ReadPGN(strings.NewReader(s), "fuzz.pgn")
		if err != nil {
			return
		}
		for _, o := range ops {
			g := board.NewGame(o.Start)
			for _, m := range o.Moves {
				if err := g.Play(m); err != nil {
					t.Fatalf("opening %s does not replay: %v", o.Source, err)
				}
			}
		}
	})
}
