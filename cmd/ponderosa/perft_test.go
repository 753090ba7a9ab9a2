package main

import (
	"errors"
	"strings"
	"testing"
)

func TestPerftStartPosition(t *testing.T) {
	out, errOut, err := runCmd(t, "", "perft", "--depth", "2")
	if err != nil {
		t.Fatalf("perft: %v (stderr %q)", err, errOut)
	}
	want := `a2a3: 20
b2b3: 20
c2c3: 20
d2d3: 20
e2e3: 20
f2f3: 20
g2g3: 20
h2h3: 20
a2a4: 20
b2b4: 20
c2c4: 20
d2d4: 20
e2e4: 20
f2f4: 20
g2g4: 20
h2h4: 20
b1a3: 20
b1c3: 20
g1f3: 20
g1h3: 20

Nodes searched: 400
`
	if got := sortedPerft(out); got != sortedPerft(want) {
		t.Errorf("perft --depth 2 printed:\n%s\nwant (in any move order):\n%s", out, want)
	}
	if !strings.HasSuffix(out, "\n\nNodes searched: 400\n") {
		t.Errorf("output does not end with the node count line: %q", out)
	}
}

// sortedPerft sorts the move lines of a perft output so the comparison does
// not depend on generation order.
func sortedPerft(s string) string {
	moves, rest, _ := strings.Cut(s, "\n\n")
	lines := strings.Split(moves, "\n")
	slicesSort(lines)
	return strings.Join(lines, "\n") + "\n\n" + rest
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestPerftChess960Castling(t *testing.T) {
	// A Chess960 position where castling is legal: the UCI move is king
	// takes rook.
	fen := "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
	out, errOut, err := runCmd(t, "", "perft", "--depth", "3", "--fen", fen)
	if err != nil {
		t.Fatalf("perft: %v (stderr %q)", err, errOut)
	}
	if !strings.HasSuffix(out, "\nNodes searched: 12189\n") {
		t.Errorf("perft --depth 3 of %s printed:\n%s", fen, out)
	}
	fen = "1rk4r/8/8/8/8/8/8/1RK4R w HBhb - 0 1"
	out, _, err = runCmd(t, "", "perft", "--depth", "1", "--fen", fen)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "c1h1: 1\n") || !strings.Contains(out, "c1b1: 1\n") {
		t.Errorf("no king-takes-rook castling line in:\n%s", out)
	}
}

func TestPerftStandardCastlingNotation(t *testing.T) {
	fen := "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
	out, _, err := runCmd(t, "", "perft", "--depth", "1", "--fen", fen)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "e1g1: 1\n") || !strings.Contains(out, "e1c1: 1\n") || !strings.HasSuffix(out, "Nodes searched: 26\n") {
		t.Errorf("perft --depth 1 printed:\n%s", out)
	}
	out, _, err = runCmd(t, "", "perft", "--depth", "1", "--fen", fen, "--chess960")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "e1h1: 1\n") || !strings.Contains(out, "e1a1: 1\n") {
		t.Errorf("perft --chess960 --depth 1 printed:\n%s", out)
	}
}

func TestPerftBadInput(t *testing.T) {
	_, _, err := runCmd(t, "", "perft")
	if !errors.Is(err, errUsage) {
		t.Errorf("perft without --depth: err = %v, want usage error", err)
	}
	_, _, err = runCmd(t, "", "perft", "--depth", "2", "--fen", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
	if err == nil || !strings.Contains(err.Error(), "fen: rank 6 has 9 files") {
		t.Errorf("bad FEN: err = %v", err)
	}
}
