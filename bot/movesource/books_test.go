package movesource

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/bot/movesource/polyglottest"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// TestPolyglotKeys checks the key function and the random table against
// the example keys published with the Polyglot book format.
func TestPolyglotKeys(t *testing.T) {
	cases := []struct {
		moves string
		key   uint64
	}{
		{"", 0x463b96181691fc9c},
		{"e2e4", 0x823c9b50fd114196},
		{"e2e4 d7d5", 0x0756b94461c50fb0},
		{"e2e4 d7d5 e4e5", 0x662fafb965db29d4},
		{"e2e4 d7d5 e4e5 f7f5", 0x22a48b5a8e47ff78},
		{"e2e4 d7d5 e4e5 f7f5 e1e2", 0x652a607ca3f242c1},
		{"e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", 0x00fdd303c946bdd9},
		{"a2a4 b7b5 h2h4 b5b4 c2c4", 0x3c8123ea7b067637},
		{"a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3", 0x5c3f9b829b279560},
	}
	for _, tc := range cases {
		pos := play(t, board.StartFEN, tc.moves)
		if got := PolyglotKey(&pos); got != tc.key {
			t.Errorf("after %q: key %016x, want %016x", tc.moves, got, tc.key)
		}
	}
}

// TestPolyglotKeyChess960: castling rights hash as king side / queen side
// by where the rook stands, whatever the FEN letters.
func TestPolyglotKeyChess960(t *testing.T) {
	none := fen(t, "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w - - 0 1")
	all := fen(t, "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w GBgb - 0 1")
	queen := fen(t, "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w Bb - 0 1")
	if !all.Chess960 {
		t.Fatal("the FEN is not read as Chess960")
	}
	r := &polyglotRandom
	if got, want := PolyglotKey(&all), PolyglotKey(&none)^r[768]^r[769]^r[770]^r[771]; got != want {
		t.Errorf("all rights: %016x, want %016x", got, want)
	}
	if got, want := PolyglotKey(&queen), PolyglotKey(&none)^r[769]^r[771]; got != want {
		t.Errorf("queen side rights (rooks on b1, b8): %016x, want %016x", got, want)
	}
}

// entry is polyglottest.Entry (key, move as mv writes it, weight) as a
// type of this package, so that the tables below may leave its fields
// unkeyed (go vet wants keys in literals of another package's structs).
type entry polyglottest.Entry

func pgEntries(entries []entry) []polyglottest.Entry {
	out := make([]polyglottest.Entry, len(entries))
	for i, e := range entries {
		out[i] = polyglottest.Entry(e)
	}
	return out
}

// encode writes entries as a Polyglot book, sorted by key (stable, so a
// key's moves keep their order).
func encode(entries []entry) []byte { return polyglottest.Encode(pgEntries(entries)) }

func writeBook(t testing.TB, name string, entries []entry) string {
	t.Helper()
	return polyglottest.Write(t, name, pgEntries(entries))
}

// mv encodes a move the Polyglot way: "e2e4", "e7e8q", castling "e1h1".
func mv(uci string) uint16 { return polyglottest.Move(uci) }

func fen(t testing.TB, s string) board.Position {
	t.Helper()
	pos, err := board.ParseFEN(s)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

func play(t testing.TB, start, moves string) board.Position {
	t.Helper()
	pos := fen(t, start)
	g := board.NewGame(pos)
	for _, m := range strings.Fields(moves) {
		if err := g.PlayUCI(m); err != nil {
			t.Fatal(err)
		}
	}
	return g.Position()
}

func keyOf(t testing.TB, start, moves string) uint64 {
	pos := play(t, start, moves)
	return PolyglotKey(&pos)
}

func open(t *testing.T, seed uint64, opts ...config.Book) *Books {
	t.Helper()
	b, err := OpenBooks(opts, seed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// lookup asks b about the position after moves from the start, in a
// standard blitz game.
func lookup(t *testing.T, b *Books, q Query) (string, bool) {
	t.Helper()
	a, ok, err := b.Lookup(&q)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "", false
	}
	if !q.Pos.IsLegal(a.Move) {
		t.Fatalf("illegal book move %v", a.Move)
	}
	return q.Pos.UCI(a.Move), true
}

func TestBookLegality(t *testing.T) {
	start := board.StartPosition()
	sk := PolyglotKey(&start)
	e4 := keyOf(t, board.StartFEN, "e2e4")
	path := writeBook(t, "b.bin", []entry{
		{sk, mv("e2e5"), 900},   // no such move
		{sk, mv("e1e2"), 900},   // a king move into its own pawn
		{sk, mv("e7e5"), 900},   // Black's move: a colliding entry
		{sk, mv("g1f3q"), 900},  // a promotion letter on a knight move
		{sk, mv("d2d4"), 1},     // the only legal one
		{e4, mv("e2e4"), 5},     // White's move in a Black position
		{e4 + 1, mv("a7a5"), 5}, // another key
	})
	b := open(t, 1, config.Book{Path: path, Select: config.SelectBest})
	for range 20 {
		if m, ok := lookup(t, b, Query{Pos: start}); !ok || m != "d2d4" {
			t.Fatalf("start: %q %v, want the one legal entry d2d4", m, ok)
		}
	}
	if m, ok := lookup(t, b, Query{Pos: play(t, board.StartFEN, "e2e4")}); ok {
		t.Errorf("after e4: %q from a book whose only entry is illegal there", m)
	}
}

func TestBookCastling(t *testing.T) {
	// Standard: king takes rook, e1h1; the king's two-step e1g1 is not
	// how Polyglot writes castling.
	std := fen(t, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
	b := open(t, 1, config.Book{Path: writeBook(t, "std.bin", []entry{{PolyglotKey(&std), mv("e1h1"), 1}}), Variants: config.BookVariants()})
	q := Query{Pos: std}
	a, ok, err := b.Lookup(&q)
	if err != nil || !ok || !a.Move.IsCastling() || std.UCI(a.Move) != "e1g1" {
		t.Fatalf("standard castling: %v %v %v", a, ok, err)
	}
	b2 := open(t, 1, config.Book{Path: writeBook(t, "std2.bin", []entry{{PolyglotKey(&std), mv("e1g1"), 1}})})
	if _, ok, _ := b2.Lookup(&q); ok {
		t.Error("e1g1 read as Polyglot castling")
	}
	// Chess960: king on d1, rooks on b1 and g1. d1b1 is queen side
	// castling (king to c1, rook to d1), d1g1 king side; d1c1 and d1f1 are
	// ordinary king moves even though c1 is where castling puts the king.
	pos := fen(t, "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w GBgb - 0 1")
	key := PolyglotKey(&pos)
	cases := []struct {
		entry    string
		castling bool
	}{{"d1b1", true}, {"d1g1", true}, {"d1c1", false}, {"d1e1", false}}
	for _, c := range cases {
		b := open(t, 1, config.Book{Path: writeBook(t, c.entry+".bin", []entry{{key, mv(c.entry), 1}}), Variants: []string{"chess960"}})
		q := Query{Pos: pos, Variant: "chess960"}
		a, ok, err := b.Lookup(&q)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", c.entry, ok, err)
		}
		if a.Move.IsCastling() != c.castling || pos.UCI(a.Move) != c.entry {
			t.Errorf("%s: got %s castling=%v", c.entry, pos.UCI(a.Move), a.Move.IsCastling())
		}
	}
	// Castling through an attacked square is illegal: the entry is skipped.
	attacked := fen(t, "1r1k2r1/pppppppp/8/8/8/8/PPPPPrPP/1R1K2R1 w GBgb - 0 1")
	b3 := open(t, 1, config.Book{Path: writeBook(t, "att.bin", []entry{{PolyglotKey(&attacked), mv("d1g1"), 1}}), Variants: []string{"chess960"}})
	if m, ok := lookup(t, b3, Query{Pos: attacked, Variant: "chess960"}); ok {
		t.Errorf("castling through check played: %s", m)
	}
}

func TestBookSelection(t *testing.T) {
	start := board.StartPosition()
	sk := PolyglotKey(&start)
	path := writeBook(t, "sel.bin", []entry{
		{sk, mv("e2e4"), 60}, {sk, mv("d2d4"), 30}, {sk, mv("c2c4"), 10}, {sk, mv("g1f3"), 0},
		{sk, mv("e2e4"), 20}, // a duplicate: weights add up (e4 80)
	})
	count := func(b *Books) map[string]int {
		seen := map[string]int{}
		for i := range 4000 {
			m, ok := lookup(t, b, Query{Pos: start, GameID: fmt.Sprint("game", i)})
			if !ok {
				t.Fatal("no move")
			}
			seen[m]++
		}
		return seen
	}
	best := count(open(t, 1, config.Book{Path: path, Select: config.SelectBest}))
	if best["e2e4"] != 4000 {
		t.Errorf("best: %v", best)
	}
	// Weighted 80:30:10:0 of 120; the draws are a fixed function of the
	// seed, so these bounds are checked once and for all (4 sigma wide).
	w := count(open(t, 1, config.Book{Path: path}))
	within := func(name string, got, want, slack int) {
		if got < want-slack || got > want+slack {
			t.Errorf("%s: %d, want %d±%d", name, got, want, slack)
		}
	}
	within("weighted e4", w["e2e4"], 2667, 120)
	within("weighted d4", w["d2d4"], 1000, 110)
	within("weighted c4", w["c2c4"], 333, 75)
	if w["g1f3"] != 0 {
		t.Errorf("weighted played a weight-0 move: %v", w)
	}
	u := count(open(t, 1, config.Book{Path: path, Select: config.SelectUniform}))
	for _, m := range []string{"e2e4", "d2d4", "c2c4", "g1f3"} {
		within("uniform "+m, u[m], 1000, 110)
	}
	// A minimum weight of 30 leaves e4 and d4.
	mw := count(open(t, 1, config.Book{Path: path, Select: config.SelectUniform, MinWeight: 30}))
	if len(mw) != 2 || mw["e2e4"] == 0 || mw["d2d4"] == 0 {
		t.Errorf("min weight 30: %v", mw)
	}
	// Above every weight: no move.
	b := open(t, 1, config.Book{Path: path, MinWeight: 81})
	if m, ok := lookup(t, b, Query{Pos: start}); ok {
		t.Errorf("min weight 81: %s", m)
	}
	// Only weight-0 moves and no minimum: weighted picks among them.
	zero := open(t, 1, config.Book{Path: writeBook(t, "zero.bin", []entry{{sk, mv("a2a3"), 0}, {sk, mv("h2h3"), 0}})})
	z := count(zero)
	if z["a2a3"] < 1500 || z["h2h3"] < 1500 {
		t.Errorf("weight-0 moves: %v", z)
	}
}

func TestBookFilters(t *testing.T) {
	start := board.StartPosition()
	sk := PolyglotKey(&start)
	after := keyOf(t, board.StartFEN, "e2e4 e7e5")
	bullet := writeBook(t, "bullet.bin", []entry{{sk, mv("e2e4"), 1}, {after, mv("g1f3"), 1}})
	blitz := writeBook(t, "blitz.bin", []entry{{sk, mv("d2d4"), 1}, {after, mv("f1c4"), 1}})
	general := writeBook(t, "general.bin", []entry{{sk, mv("c2c4"), 1}, {after, mv("b1c3"), 1}})
	b := open(t, 1,
		config.Book{Path: bullet, Speeds: []string{"bullet", "ultraBullet"}, MaxPly: 2},
		config.Book{Path: blitz, Speeds: []string{"blitz"}, Variants: []string{"standard", "fromPosition"}},
		config.Book{Path: general, Name: "any", Variants: config.BookVariants()})
	afterPos := play(t, board.StartFEN, "e2e4 e7e5")
	fromPos := fen(t, board.StartFEN)
	for _, c := range []struct {
		q      Query
		move   string
		source string
	}{
		{Query{Pos: start, Variant: "standard", Speed: "bullet"}, "e2e4", "book:bullet"},
		{Query{Pos: start, Variant: "standard", Speed: "ultraBullet"}, "e2e4", "book:bullet"},
		{Query{Pos: start, Variant: "standard", Speed: "blitz"}, "d2d4", "book:blitz"},
		{Query{Pos: start, Variant: "", Speed: "blitz"}, "d2d4", "book:blitz"},
		{Query{Pos: start, Variant: "standard", Speed: "rapid"}, "c2c4", "book:any"},
		{Query{Pos: fromPos, Variant: "fromPosition", Speed: "bullet"}, "c2c4", "book:any"},
		{Query{Pos: fromPos, Variant: "fromPosition", Speed: "blitz"}, "d2d4", "book:blitz"},
		{Query{Pos: start, Variant: "chess960", Speed: "blitz"}, "c2c4", "book:any"},
		// The bullet book stops at ply 2: the general book answers.
		{Query{Pos: afterPos, Ply: 2, Variant: "standard", Speed: "bullet"}, "b1c3", "book:any"},
		{Query{Pos: afterPos, Ply: 2, Variant: "standard", Speed: "blitz"}, "f1c4", "book:blitz"},
	} {
		a, ok, err := b.Lookup(&c.q)
		if err != nil || !ok || c.q.Pos.UCI(a.Move) != c.move || a.Source != c.source {
			t.Errorf("%s %s ply %d: %s from %q (%v %v), want %s from %s", c.q.Variant, c.q.Speed, c.q.Ply,
				c.q.Pos.UCI(a.Move), a.Source, ok, err, c.move, c.source)
		}
	}
	// A position none of the books knows, and a variant none serves.
	if m, ok := lookup(t, b, Query{Pos: play(t, board.StartFEN, "a2a3"), Speed: "blitz"}); ok {
		t.Errorf("unknown position: %s", m)
	}
	only := open(t, 1, config.Book{Path: blitz})
	if m, ok := lookup(t, only, Query{Pos: start, Variant: "chess960"}); ok {
		t.Errorf("a standard book answered in chess960: %s", m)
	}
	if m, ok := lookup(t, only, Query{Pos: start, Variant: "fromPosition"}); ok {
		t.Errorf("a standard book answered in fromPosition: %s", m)
	}
	var none *Books
	if _, ok, err := none.Lookup(&Query{Pos: start}); ok || err != nil {
		t.Error("nil Books answered")
	}
}

// TestBookSeed: the same seed and game replay the same choices; another
// seed (or another game) chooses differently.
func TestBookSeed(t *testing.T) {
	start := board.StartPosition()
	sk := PolyglotKey(&start)
	var entries []entry
	var ml board.MoveList
	start.GenerateLegal(&ml)
	for i, m := range ml.Slice() {
		entries = append(entries, entry{sk, mv(start.UCI(m)), uint16(1 + i)})
	}
	path := writeBook(t, "all.bin", entries)
	// A "sequence": the choice at each of 40 plies of one game (the same
	// position, so only the draw varies).
	sequence := func(seed uint64, game string) string {
		b := open(t, seed, config.Book{Path: path})
		var s []string
		for ply := range 40 {
			m, _ := lookup(t, b, Query{Pos: start, GameID: game, Ply: ply})
			s = append(s, m)
		}
		return strings.Join(s, " ")
	}
	a := sequence(42, "abcd1234")
	if b := sequence(42, "abcd1234"); a != b {
		t.Errorf("same seed, same game: %s\n then %s", a, b)
	}
	seqs := map[string]bool{a: true}
	for seed := range uint64(20) {
		seqs[sequence(1000+seed, "abcd1234")] = true
	}
	if len(seqs) != 21 {
		t.Errorf("21 seeds gave %d different sequences", len(seqs))
	}
	if sequence(42, "abcd1235") == a {
		t.Error("another game replayed the same choices")
	}
	// Over many seeds, every move of the book is played.
	played := map[string]bool{}
	for seed := range uint64(500) {
		b := open(t, seed, config.Book{Path: path})
		m, _ := lookup(t, b, Query{Pos: start, GameID: "g"})
		played[m] = true
	}
	if len(played) != ml.N {
		t.Errorf("500 seeds played %d of the %d moves", len(played), ml.N)
	}
}

func TestOpenBooksErrors(t *testing.T) {
	start := board.StartPosition()
	good := writeBook(t, "good.bin", []entry{{PolyglotKey(&start), mv("e2e4"), 1}})
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unsorted := encode([]entry{{5, mv("e2e4"), 1}})
	unsorted = append(unsorted, encode([]entry{{4, mv("e2e4"), 1}})...)
	badMove := encode([]entry{{5, 0x8000 | mv("e2e4"), 1}})
	cases := []struct {
		opts config.Book
		want string
	}{
		{config.Book{Path: filepath.Join(dir, "missing.bin")}, "no such file"},
		{config.Book{Path: dir}, "not a regular file"},
		{config.Book{Path: file("empty.bin", nil)}, "empty file: not a Polyglot book"},
		{config.Book{Path: file("text.bin", []byte("this is not a book"))}, "not a multiple of 16: not a Polyglot book"},
		{config.Book{Path: file("unsorted.bin", unsorted)}, "entry 1: key 0000000000000004 below"},
		{config.Book{Path: file("badmove.bin", badMove)}, "entry 0: move 0x831c is no Polyglot move"},
		{config.Book{Path: good, Name: "a b"}, `name "a b": only letters`},
		{config.Book{Path: good, Variants: []string{"atomic"}}, `variant "atomic"`},
		{config.Book{Path: good, Speeds: []string{"fast"}}, `speed "fast"`},
		{config.Book{Path: good, Select: "most"}, `selection "most"`},
	}
	for _, c := range cases {
		_, err := OpenBooks([]config.Book{{Path: good}, c.opts}, 1)
		var be *BookError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &be) || be.Index != 1 || !strings.Contains(err.Error(), c.opts.Path) {
			t.Errorf("%+v: err %v, want one naming book 1 and %q", c.opts, err, c.want)
		}
	}
	// Two books of one name.
	other := filepath.Join(t.TempDir(), "good.bin")
	os.WriteFile(other, encode([]entry{{1, mv("e2e4"), 1}}), 0o644)
	if _, err := OpenBooks([]config.Book{{Path: good}, {Path: other}}, 1); err == nil || !strings.Contains(err.Error(), `name "good" is also the name of book`) {
		t.Errorf("same names: %v", err)
	}
	if b, err := OpenBooks(nil, 1); b != nil || err != nil {
		t.Errorf("no books: %v %v", b, err)
	}
	if got := config.BookName("/x/my book+v2.bin"); got != "my_book_v2" {
		t.Errorf("BookName: %q", got)
	}
}

// TestBookProbeAllocs: a probe of a book file allocates nothing.
func TestBookProbeAllocs(t *testing.T) {
	start := board.StartPosition()
	var entries []entry
	for i := range 1000 {
		entries = append(entries, entry{uint64(i) * 0x9e3779b97f4a7c15, mv("a2a3"), 1})
	}
	entries = append(entries, entry{PolyglotKey(&start), mv("e2e4"), 1}, entry{PolyglotKey(&start), mv("d2d4"), 1})
	b := open(t, 1, config.Book{Path: writeBook(t, "big.bin", entries)})
	var out [maxBookEntries]bookMove
	allocs := testing.AllocsPerRun(50, func() {
		if n, err := b.books[0].pg.probe(&start, &out); n != 2 || err != nil {
			t.Fatal(n, err)
		}
	})
	if allocs != 0 {
		t.Errorf("probe: %v allocations", allocs)
	}
}

// FuzzPolyglot reads arbitrary bytes as a book: an error or a book, never
// a panic, and only legal moves from it.
func FuzzPolyglot(f *testing.F) {
	positions := []board.Position{
		board.StartPosition(),
		fen(f, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"),
		fen(f, "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w GBgb - 0 1"),
		fen(f, "8/P6k/8/8/8/8/8/K7 w - - 0 1"),
	}
	var seed []entry
	for _, p := range positions {
		var ml board.MoveList
		p.GenerateLegal(&ml)
		for i, m := range ml.Slice() {
			if i < 3 {
				seed = append(seed, entry{PolyglotKey(&p), mv(p.UCI(m)), uint16(i)})
			}
		}
	}
	f.Add(encode(seed))
	f.Add(encode([]entry{{PolyglotKey(&positions[3]), mv("a7a8q"), 1}, {PolyglotKey(&positions[3]), mv("a7a8k"), 1}}))
	f.Add([]byte("short"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pg, err := readPolyglot(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		b := &Books{books: []*openBook{{Book: config.Book{Name: "f", Variants: config.BookVariants(), Select: config.SelectWeighted}, pg: pg}}}
		for _, p := range positions {
			for _, sel := range []string{config.SelectWeighted, config.SelectBest, config.SelectUniform} {
				b.books[0].Select = sel
				q := Query{Pos: p, Variant: "chess960", GameID: "x"}
				a, ok, err := b.Lookup(&q)
				if err != nil {
					t.Fatal(err)
				}
				if ok && !p.IsLegal(a.Move) {
					t.Fatalf("illegal book move %v in %s", a.Move, p.FEN())
				}
			}
		}
	})
}

// bigBook writes a book of n entries with random keys (plus the start
// position's moves) and returns its path.
func bigBook(b *testing.B, n int) string {
	start := board.StartPosition()
	entries := make([]entry, 0, n+2)
	x := uint64(1)
	for range n {
		x = mix64(x)
		entries = append(entries, entry{x, mv("a2a3"), 1})
	}
	entries = append(entries, entry{PolyglotKey(&start), mv("e2e4"), 2}, entry{PolyglotKey(&start), mv("d2d4"), 1})
	return writeBook(b, "big.bin", entries)
}

// BenchmarkBookOpen: the start-up check of a book of a million entries
// (16 MB).
func BenchmarkBookOpen(b *testing.B) {
	path := bigBook(b, 1_000_000)
	for b.Loop() {
		books, err := OpenBooks([]config.Book{{Path: path}}, 1)
		if err != nil {
			b.Fatal(err)
		}
		books.Close()
	}
}

// BenchmarkBookLookup: one lookup (binary search and the move's note) in
// a book of a million entries.
func BenchmarkBookLookup(b *testing.B) {
	books, err := OpenBooks([]config.Book{{Path: bigBook(b, 1_000_000)}}, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer books.Close()
	q := Query{Pos: board.StartPosition(), GameID: "bench"}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := books.Lookup(&q); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
