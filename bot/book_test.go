package bot

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
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
		g := board.NewGame(board.StartPosition())
		for _, m := range strings.Fields(tc.moves) {
			if err := g.PlayUCI(m); err != nil {
				t.Fatal(err)
			}
		}
		pos := g.Position()
		if got := PolyglotKey(&pos); got != tc.key {
			t.Errorf("after %q: key %016x, want %016x", tc.moves, got, tc.key)
		}
	}
}

// writeBook writes a small Polyglot book: entries must be sorted by key.
func writeBook(t *testing.T, entries []struct {
	key          uint64
	move, weight uint16
}) string {
	t.Helper()
	var data []byte
	for _, e := range entries {
		var buf [16]byte
		binary.BigEndian.PutUint64(buf[0:], e.key)
		binary.BigEndian.PutUint16(buf[8:], e.move)
		binary.BigEndian.PutUint16(buf[10:], e.weight)
		data = append(data, buf[:]...)
	}
	path := filepath.Join(t.TempDir(), "book.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func pgMove(from, to string) uint16 {
	f, _ := board.ParseSquare(from)
	s, _ := board.ParseSquare(to)
	return uint16(f)<<6 | uint16(s)
}

func TestBookLookup(t *testing.T) {
	start := board.StartPosition()
	key := PolyglotKey(&start)
	// Castling position: white can castle short (king takes rook e1h1).
	castle, err := board.ParseFEN("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	ck := PolyglotKey(&castle)
	type ent = struct {
		key          uint64
		move, weight uint16
	}
	entries := []ent{
		{key, pgMove("e2", "e4"), 3},
		{key, pgMove("d2", "d4"), 1},
		{key, pgMove("e2", "e5"), 100}, // illegal: skipped
		{ck, pgMove("e1", "h1"), 1},
	}
	if ck < key {
		entries = append([]ent{entries[3]}, entries[:3]...)
	}
	b, err := OpenBook(writeBook(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.Entries(&start)
	if err != nil || len(got) != 2 || start.UCI(got[0].Move) != "e2e4" || got[0].Weight != 3 {
		t.Fatalf("start entries %v %v", got, err)
	}
	seen := map[string]int{}
	for range 400 {
		m, ok, err := b.Pick(&start)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		seen[start.UCI(m)]++
	}
	if seen["e2e4"] < 200 || seen["d2d4"] < 40 || len(seen) != 2 {
		t.Errorf("weighted picks %v", seen)
	}
	m, ok, _ := b.Pick(&castle)
	if !ok || !m.IsCastling() {
		t.Errorf("castling book move: %v %v", m, ok)
	}
	empty, _ := board.ParseFEN("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
	if _, ok, _ := b.Pick(&empty); ok {
		t.Error("found a move for a position not in the book")
	}
	if _, err := OpenBook(filepath.Join(t.TempDir(), "missing.bin")); err == nil {
		t.Error("no error for a missing book")
	}
	bad := filepath.Join(t.TempDir(), "bad.bin")
	os.WriteFile(bad, []byte("not a book"), 0o644)
	if _, err := OpenBook(bad); err == nil {
		t.Error("no error for a malformed book")
	}
}

func TestBookInGame(t *testing.T) {
	t.Parallel()
	start := board.StartPosition()
	path := writeBook(t, []struct {
		key          uint64
		move, weight uint16
	}{{PolyglotKey(&start), pgMove("g1", "f3"), 1}})
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
}

func TestBookMissingNamed(t *testing.T) {
	t.Parallel()
	h := setup(t, fakelichess.Options{}, map[string]string{"PONDEROSA_BOOK": filepath.Join(t.TempDir(), "nope.bin")})
	svc := newService(h.cfg, h.client, Options{})
	err := svc.Run(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "PONDEROSA_BOOK: ") {
		t.Errorf("err = %v", err)
	}
}

// FuzzBook reads arbitrary bytes as a book: no panic, only legal moves.
func FuzzBook(f *testing.F) {
	start := board.StartPosition()
	var seed [16]byte
	binary.BigEndian.PutUint64(seed[:], PolyglotKey(&start))
	binary.BigEndian.PutUint16(seed[8:], pgMove("e2", "e4"))
	f.Add(seed[:])
	f.Add([]byte("short"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.bin")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := OpenBook(path)
		if err != nil {
			return
		}
		defer b.Close()
		entries, err := b.Entries(&start)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !start.IsLegal(e.Move) {
				t.Fatalf("illegal book move %v", e.Move)
			}
		}
	})
}
