package bot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/movesource"
	"github.com/ponderosa-chess/ponderosa/bot/movesource/polyglottest"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// bookLine is a book entry: the position after moves (UCI, from the
// start, or from fen when set), the book move and its weight.
type bookLine struct {
	after, move string
	weight      uint16
	fen         string
}

// writeBook writes a small Polyglot book of lines into a temporary file.
func writeBook(t *testing.T, name string, lines []bookLine) string {
	t.Helper()
	var entries []polyglottest.Entry
	for _, l := range lines {
		start := board.StartPosition()
		if l.fen != "" {
			var err error
			if start, err = board.ParseFEN(l.fen); err != nil {
				t.Fatal(err)
			}
		}
		g := board.NewGame(start)
		for _, m := range strings.Fields(l.after) {
			if err := g.PlayUCI(m); err != nil {
				t.Fatal(err)
			}
		}
		pos := g.Position()
		entries = append(entries, polyglottest.Entry{Key: movesource.PolyglotKey(&pos), Move: polyglottest.Move(l.move), Weight: l.weight})
	}
	return polyglottest.Write(t, name, entries)
}

// TestBookInGame: PONDEROSA_BOOK alone, the single-book form.
func TestBookInGame(t *testing.T) {
	t.Parallel()
	path := writeBook(t, "book.bin", []bookLine{{"", "g1f3", 1, ""}})
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_BOOK": path})
	h.start()
	id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black"})
	h.waitAccepted(id)
	h.waitFor("first move", 10*time.Second, func() bool { g, _ := h.srv.Game(id); return len(g.Moves) >= 1 })
	if g, _ := h.srv.Game(id); g.Moves[0] != "g1f3" {
		t.Errorf("first move %s, want the book's g1f3", g.Moves[0])
	}
	h.srv.OpponentResign(id)
	h.waitOver(id, 10*time.Second)
	// The "book move" line is written before the move is posted.
	if !strings.Contains(h.logs.String(), "move=g1f3 source=book:book ") {
		t.Errorf("no book move logged with source=book:book\nlogs:\n%s", h.logs.String())
	}
}

// TestBookPerSpeed: a bullet book and a blitz book with different moves,
// then PONDEROSA_BOOK as the last resort: a bullet game plays the bullet
// book's line, a blitz game the blitz book's, and each move says which
// book it came from.
func TestBookPerSpeed(t *testing.T) {
	t.Parallel()
	bullet := writeBook(t, "bullet.bin", []bookLine{{"", "e2e4", 1, ""}, {"e2e4 e7e5", "g1f3", 1, ""}})
	blitz := writeBook(t, "blitz.bin", []bookLine{{"", "d2d4", 3, ""}, {"", "c2c4", 2, ""}, {"d2d4 d7d5", "c2c4", 1, ""}})
	general := writeBook(t, "general.bin", []bookLine{{"", "b1c3", 1, ""}, {"e2e4 e7e5", "b1c3", 1, ""}, {"d2d4 d7d5", "b1c3", 1, ""}})
	h := setup(t, fakelichess.Options{}, map[string]string{
		"PONDEROSA_BOOKS": bullet + ":speeds=bullet:max_ply=4 ; " + blitz + ":speeds=blitz:select=best:name=blitz5",
		"PONDEROSA_BOOK":  general,
	})
	h.start()
	for _, c := range []struct {
		clock time.Duration
		reply string
		want  [2]string
		book  string
	}{
		{time.Minute, "e7e5", [2]string{"e2e4", "g1f3"}, "book:bullet"},
		{3 * time.Minute, "d7d5", [2]string{"d2d4", "c2c4"}, "book:blitz5"},
	} {
		id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: c.clock, Color: "black",
			Opponent: fakelichess.Scripted([]string{c.reply}, nil)})
		h.waitAccepted(id)
		g := h.waitOver(id, 30*time.Second)
		if len(g.Moves) < 3 || g.Moves[0] != c.want[0] || g.Moves[2] != c.want[1] {
			t.Errorf("%v game: moves %v, want %s %s from %s", c.clock, g.Moves, c.want[0], c.want[1], c.book)
		}
		// The "book move" line is written before the move is posted.
		for _, m := range c.want {
			if !strings.Contains(h.logs.String(), "move="+m+" source="+c.book+" ") {
				t.Errorf("%s not logged as a book move with source=%s\nlogs:\n%s", m, c.book, h.logs.String())
			}
		}
	}
	if strings.Contains(h.logs.String(), "source=book:general") {
		t.Errorf("the last-resort book played in a game its speed book covered\nlogs:\n%s", h.logs.String())
	}
	// The PGN comments name the book.
	h.stop()
	files, _ := filepath.Glob(filepath.Join(h.cfg.PGNDir, "*.pgn"))
	var all string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		all += string(data)
	}
	for _, want := range []string{"1. e4 { [%clk 0:01:00] book:bullet: e4, weight 1 of 1, 1 moves }", "book:blitz5: d4, weight 3 of 5, 2 moves"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in the PGN files:\n%s", want, all)
		}
	}
}

// TestBookChess960Castling: a Chess960 game against the fake whose book
// move is castling, written king takes rook (d1g1): the bot castles (king
// to g1, rook to f1); a standard book asked first, with another move for
// the same position, is not used in Chess960.
func TestBookChess960Castling(t *testing.T) {
	t.Parallel()
	fen := "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w GBgb - 0 1"
	std := writeBook(t, "std.bin", []bookLine{{"", "b1a1", 1, fen}})
	c960 := writeBook(t, "c960.bin", []bookLine{{"", "d1g1", 1, fen}})
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_BOOKS": std + ";" + c960 + ":variants=chess960"})
	h.start()
	g := h.play(fakelichess.ChallengeSpec{Variant: "chess960", FEN: fen, ClockLimit: time.Minute, Color: "black",
		Opponent: fakelichess.Scripted(nil, nil)}, 30*time.Second)
	if len(g.Moves) != 1 || g.Moves[0] != "d1g1" || !strings.HasPrefix(g.FEN, "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 b") {
		t.Errorf("moves %v, position %s: want d1g1 castling king side\nlogs:\n%s", g.Moves, g.FEN, h.logs.String())
	}
}

// TestBookSeedReplay: with PONDEROSA_BOOK_SEED the weighted choice is a
// function of the seed and the game: the same fake (same seed, so the same
// game id) and the same book seed replay the same move; other book seeds
// choose other moves.
func TestBookSeedReplay(t *testing.T) {
	t.Parallel()
	var lines []bookLine
	start := board.StartPosition()
	var ml board.MoveList
	start.GenerateLegal(&ml)
	for _, m := range ml.Slice() {
		lines = append(lines, bookLine{"", start.UCI(m), 10, ""})
	}
	path := writeBook(t, "wide.bin", lines)
	firstMove := func(bookSeed string) (string, string) {
		h := setup(t, fakelichess.Options{Seed: 77}, map[string]string{"PONDEROSA_BOOKS": path, "PONDEROSA_BOOK_SEED": bookSeed})
		h.start()
		id := h.srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black", Opponent: fakelichess.Scripted(nil, nil)})
		h.waitAccepted(id)
		g := h.waitOver(id, 30*time.Second)
		h.stop()
		if len(g.Moves) == 0 {
			t.Fatalf("no move\nlogs:\n%s", h.logs.String())
		}
		if !strings.Contains(h.logs.String(), "PONDEROSA_BOOK_SEED="+bookSeed) {
			t.Errorf("the seed is not logged\nlogs:\n%s", h.logs.String())
		}
		return id, g.Moves[0]
	}
	id, first := firstMove("12345")
	id2, again := firstMove("12345")
	if id2 != id {
		t.Fatalf("the fake's seed gave game ids %s and %s", id, id2)
	}
	if again != first {
		t.Errorf("seed 12345, game %s: %s then %s", id, first, again)
	}
	seen := map[string]bool{first: true}
	for seed := range 4 {
		_, m := firstMove(fmt.Sprint(seed))
		seen[m] = true
	}
	if len(seen) < 3 {
		t.Errorf("5 book seeds chose only %v of 20 equally weighted moves", seen)
	}
}

// TestBookErrorsNamed: a book that is missing or no Polyglot book fails
// the start with the variable it came from.
func TestBookErrorsNamed(t *testing.T) {
	t.Parallel()
	good := writeBook(t, "good.bin", []bookLine{{"", "e2e4", 1, ""}})
	text := filepath.Join(t.TempDir(), "notes.bin")
	os.WriteFile(text, []byte("not a book at all"), 0o644)
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"PONDEROSA_BOOK": filepath.Join(t.TempDir(), "nope.bin")}, "PONDEROSA_BOOK: book "},
		{map[string]string{"PONDEROSA_BOOKS": good + ";" + text}, "PONDEROSA_BOOKS: book " + text + ": size 17 is not a multiple of 16"},
		{map[string]string{"PONDEROSA_BOOKS": good, "PONDEROSA_BOOK": text}, "PONDEROSA_BOOK: book " + text},
	} {
		h := setup(t, fakelichess.Options{}, c.env)
		svc := newService(h.cfg, h.client, Options{})
		err := svc.Run(context.Background())
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to start with %q", c.env, err, c.want)
		}
	}
}
