package board

import (
	"strings"
	"testing"
)

func playAll(t *testing.T, g *Game, moves string) {
	t.Helper()
	for _, s := range strings.Fields(moves) {
		if err := g.PlayUCI(s); err != nil {
			t.Fatalf("PlayUCI(%q): %v", s, err)
		}
	}
}

func TestGameThreefold(t *testing.T) {
	g := NewGame(StartPosition())
	playAll(t, g, "g1f3 g8f6 f3g1 f6g8") // start position, second time
	if o := g.Outcome(); o != (Outcome{Ongoing, NoReason}) {
		t.Fatalf("after one repetition: %v", o)
	}
	if g.Repetitions() != 1 {
		t.Errorf("Repetitions() = %d, want 1", g.Repetitions())
	}
	playAll(t, g, "g1f3 g8f6 f3g1")
	if o := g.Outcome(); o.Result != Ongoing {
		t.Fatalf("before the third occurrence: %v", o)
	}
	playAll(t, g, "f6g8") // third time
	if o := g.Outcome(); o != (Outcome{Draw, Threefold}) {
		t.Errorf("Outcome() = %v, want threefold draw", o)
	}
	if len(g.Keys()) != len(g.Moves())+1 || g.Keys()[0] != g.Keys()[len(g.Keys())-1] {
		t.Errorf("Keys() has %d entries for %d moves", len(g.Keys()), len(g.Moves()))
	}
}

func TestGameRepetitionNeedsSameRights(t *testing.T) {
	// The king walks away and back: same placement, but castling rights
	// are gone, so it is a different position.
	g := NewGame(mustFEN(t, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"))
	playAll(t, g, "e1f1 e8f8 f1e1 f8e8 e1f1 e8f8 f1e1 f8e8")
	if g.Repetitions() != 1 {
		t.Errorf("Repetitions() = %d, want 1 (the first occurrence had castling rights)", g.Repetitions())
	}
	if o := g.Outcome(); o.Result != Ongoing {
		t.Errorf("Outcome() = %v, want ongoing", o)
	}
	playAll(t, g, "e1f1 e8f8 f1e1 f8e8")
	if o := g.Outcome(); o != (Outcome{Draw, Threefold}) {
		t.Errorf("Outcome() = %v, want threefold", o)
	}
}

func TestGameFiftyMove(t *testing.T) {
	g := NewGame(mustFEN(t, "4k3/8/8/8/8/8/8/R3K3 w - - 98 80"))
	playAll(t, g, "a1a2")
	if o := g.Outcome(); o.Result != Ongoing {
		t.Fatalf("at 99 half-moves: %v", o)
	}
	playAll(t, g, "e8d8")
	if o := g.Outcome(); o != (Outcome{Draw, FiftyMove}) {
		t.Errorf("Outcome() = %v, want fifty-move draw", o)
	}
	// Checkmate on the hundredth half-move counts as mate.
	g = NewGame(mustFEN(t, "k7/8/1K6/8/8/8/8/7R w - - 99 80"))
	playAll(t, g, "h1h8")
	if o := g.Outcome(); o != (Outcome{WhiteWins, Checkmate}) {
		t.Errorf("mate on move 100: Outcome() = %v", o)
	}
}

func TestGameCheckmateAndStalemate(t *testing.T) {
	g := NewGame(StartPosition())
	playAll(t, g, "f2f3 e7e5 g2g4 d8h4")
	if o := g.Outcome(); o != (Outcome{BlackWins, Checkmate}) || o.Result.String() != "0-1" {
		t.Errorf("fool's mate: Outcome() = %v", o)
	}
	g = NewGame(mustFEN(t, "7k/8/6Q1/8/8/8/8/K7 b - - 0 1"))
	if o := g.Outcome(); o != (Outcome{Draw, Stalemate}) {
		t.Errorf("stalemate: Outcome() = %v", o)
	}
	g = NewGame(mustFEN(t, "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1"))
	playAll(t, g, "f7g7")
	if o := g.Outcome(); o != (Outcome{WhiteWins, Checkmate}) || o.Reason.String() != "checkmate" {
		t.Errorf("Qg7#: Outcome() = %v", o)
	}
}

func TestInsufficientMaterial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fen  string
		want bool
	}{
		{"4k3/8/8/8/8/8/8/4K3 w - - 0 1", true},
		{"4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true},
		{"4k3/8/8/8/8/8/8/4KB2 w - - 0 1", true},
		{"4kb2/8/8/8/8/8/8/4K3 w - - 0 1", true},
		{"4k1b1/8/8/8/8/8/8/3BK3 w - - 0 1", true}, // g8 and d1: both light squares
		{"4kb2/8/8/8/8/8/8/3BK3 w - - 0 1", false}, // f8 dark, d1 light
		{"4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", false}, // two knights can mate with help
		{"4kn2/8/8/8/8/8/8/4KB2 w - - 0 1", false},
		{"4k3/8/8/8/8/8/8/4K2R w - - 0 1", false},
		{"4k3/p7/8/8/8/8/8/4K3 w - - 0 1", false},
		{"4k3/8/8/8/8/8/8/3QK3 w - - 0 1", false},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		if got := p.InsufficientMaterial(); got != tc.want {
			t.Errorf("%s: InsufficientMaterial() = %v, want %v", tc.fen, got, tc.want)
		}
	}
	g := NewGame(mustFEN(t, "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1"))
	playAll(t, g, "e1d2")
	if o := g.Outcome(); o != (Outcome{Draw, Insufficient}) {
		t.Errorf("after Kxd2: Outcome() = %v", o)
	}
}

func TestGamePlayAndClone(t *testing.T) {
	g := NewGame(StartPosition())
	if err := g.PlayUCI("e2e5"); err == nil {
		t.Error("PlayUCI accepted an illegal move")
	}
	if err := g.Play(NewMove(E2, E5)); err == nil {
		t.Error("Play accepted an illegal move")
	}
	if err := g.Play(NoMove); err == nil {
		t.Error("Play accepted NoMove")
	}
	if err := g.PlaySAN("e4"); err != nil {
		t.Fatal(err)
	}
	c := g.Clone()
	playAll(t, c, "e7e5")
	if len(g.Moves()) != 1 || len(c.Moves()) != 2 || len(g.Keys()) != 2 {
		t.Error("Clone shares state with the original")
	}
	if p := g.Position(); p.FEN() != "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1" {
		t.Errorf("Position() = %s", p.FEN())
	}
	if s := g.Start(); s.FEN() != StartFEN {
		t.Errorf("Start() = %s", s.FEN())
	}
	if p := c.Position(); p.Key() != c.Keys()[2] {
		t.Error("last key is not the current position's")
	}
}

func TestGameSANMoves(t *testing.T) {
	g := NewGame(StartPosition())
	playAll(t, g, "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1 f6e4")
	want := "e4 e5 Nf3 Nc6 Bc4 Nf6 O-O Nxe4"
	if got := strings.Join(g.SANMoves(), " "); got != want {
		t.Errorf("SANMoves() = %q, want %q", got, want)
	}
}

func TestParseMoveEitherNotation(t *testing.T) {
	p := StartPosition()
	for _, s := range []string{"g1f3", "Nf3"} {
		if m, err := p.ParseMove(s); err != nil || m != NewMove(G1, F3) {
			t.Errorf("ParseMove(%q) = %s, %v", s, m, err)
		}
	}
	if _, err := p.ParseMove("Nf4"); err == nil || !strings.Contains(err.Error(), "neither a legal UCI nor SAN move") {
		t.Errorf("ParseMove(Nf4) error = %v", err)
	}
}
