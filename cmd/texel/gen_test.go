package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval/tune"
	"github.com/ponderosa-chess/ponderosa/internal/testbin"
	"github.com/ponderosa-chess/ponderosa/uci/match"
)

// ponderosa is the engine binary built once by TestMain (without the race
// detector: it is the opponent here, not the code under test).
var ponderosa string

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, testbin.Build{Pkg: "../ponderosa", Out: &ponderosa}))
}

func TestQuietPositions(t *testing.T) {
	start := board.StartPosition()
	g := board.NewGame(start)
	var plies []match.PlyInfo
	var fens []string // the position before each ply
	for i, san := range []string{"e4", "d5", "exd5", "Qxd5", "Nc3", "Qe5+", "Be2", "Nf6", "d4", "Qf5"} {
		pos := g.Position()
		fens = append(fens, pos.FEN())
		if err := g.PlaySAN(san); err != nil {
			t.Fatal(err)
		}
		moves := g.Moves()
		pl := match.PlyInfo{Move: moves[len(moves)-1], Book: i < 2, HasScore: i >= 2, Score: 30}
		if san == "Nf6" {
			pl.Mate = 5 // a mate score: not a quiet position to learn from
			pl.Score = 100000 - 9
		}
		plies = append(plies, pl)
	}
	rec := match.GameRecord{Start: start, Plies: plies, Result: board.BlackWins, Termination: match.TermAdjudicated}
	// Book (e4, d5), captures (exd5, Qxd5), the move out of check (Be2) and
	// the mate score (Nf6) are left out.
	want := []string{fens[4] + " [0.0]", fens[5] + " [0.0]", fens[8] + " [0.0]", fens[9] + " [0.0]"}
	if got := quietPositions(rec); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("quiet positions:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rec.Termination = match.TermCrash
	if got := quietPositions(rec); got != nil {
		t.Errorf("a crashed game gives positions: %v", got)
	}
}

// TestGen plays two self-play games through a real engine process and
// reads back what gen appended.
func TestGen(t *testing.T) {
	out := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(out, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	err := cmdGen(ctx, []string{"-engine", ponderosa + " uci", "-openings", "testdata/openings.epd",
		"-games", "2", "-nodes", "1500", "-hash", "2", "-out", out}, &stdout)
	if err != nil {
		t.Fatalf("gen: %v\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "2 games, ") {
		t.Errorf("gen did not report two games:\n%s", stdout.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	if sc.Text() != "kept" {
		t.Fatalf("gen did not append: first line %q", sc.Text())
	}
	n := 0
	for sc.Scan() {
		fen, _, err := tune.ParseLine(sc.Text())
		if err != nil {
			t.Fatalf("line %d: %v", n+2, err)
		}
		pos, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatalf("line %d: %v", n+2, err)
		}
		if pos.InCheck() {
			t.Errorf("line %d: a position in check: %s", n+2, fen)
		}
		n++
	}
	if n < 20 {
		t.Errorf("two games gave %d quiet positions", n)
	}
}
