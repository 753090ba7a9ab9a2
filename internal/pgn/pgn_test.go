package pgn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func moves(t *testing.T, pos board.Position, uci ...string) []board.Move {
	t.Helper()
	var out []board.Move
	for _, u := range uci {
		m, err := pos.ParseUCIMove(u)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
		var next board.Position
		pos.MakeMove(m, &next)
		pos = next
	}
	return out
}

// TestWriteGame: tags escaped, a blank line, numbered SAN moves with their
// comments, the result and a blank line.
func TestWriteGame(t *testing.T) {
	start := board.StartPosition()
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Tag("White", `a "quoted" \ name`)
	err := w.Moves(start, moves(t, start, "e2e4", "e7e5", "g1f3"), func(i int) []string {
		if i == 1 {
			return []string{"{a", "note}"}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.End("*"); err != nil {
		t.Fatal(err)
	}
	want := `[White "a \"quoted\" \\ name"]` + "\n\n1. e4 e5 {a note} 2. Nf3 *\n\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestBlackFirstAndWrapping: a game from a Black move starts "N...", and
// long movetext breaks between words into lines of at most LineWidth,
// each as full as the next word allows.
func TestBlackFirstAndWrapping(t *testing.T) {
	start, err := board.ParseFEN("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	var ms []string
	for range 10 {
		ms = append(ms, "g8f6", "g1f3", "f6g8", "f3g1")
	}
	var b bytes.Buffer
	w := NewWriter(&b)
	long := func(int) []string { return []string{"{some", "comment", "words}"} }
	if err := w.Moves(start, moves(t, start, ms...), long); err != nil {
		t.Fatal(err)
	}
	if err := w.End("1/2-1/2"); err != nil {
		t.Fatal(err)
	}
	text := strings.TrimPrefix(b.String(), "\n")
	if !strings.HasPrefix(text, "1... Nf6 {some") {
		t.Errorf("first line %q", text[:20])
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n\n"), "\n")
	if len(lines) < 5 {
		t.Fatalf("%d lines: %q", len(lines), text)
	}
	for i, l := range lines {
		if len(l) > LineWidth {
			t.Errorf("line %d is %d characters: %q", i, len(l), l)
		}
		if i+1 < len(lines) {
			next := strings.Fields(lines[i+1])[0]
			if len(l)+1+len(next) <= LineWidth {
				t.Errorf("line %d (%d) ends before %q, which fits", i, len(l), next)
			}
		}
	}
	// 40 moves, "1..." and 20 White move numbers, 3 comment words a move,
	// the result: nothing lost or split by the wrapping.
	if n := len(strings.Fields(text)); n != 40+21+40*3+1 {
		t.Errorf("%d words, want %d", n, 40+21+40*3+1)
	}
}

// TestIllegalMove: an illegal move is an error naming it.
func TestIllegalMove(t *testing.T) {
	start := board.StartPosition()
	m := moves(t, start, "e2e4")[0]
	var b bytes.Buffer
	err := NewWriter(&b).Moves(start, []board.Move{m, m}, func(int) []string { return nil })
	if err == nil || !strings.Contains(err.Error(), "move 2") {
		t.Errorf("err = %v, want move 2 illegal", err)
	}
}
