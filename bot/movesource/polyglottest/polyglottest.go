// Package polyglottest writes small Polyglot opening books for tests: the
// one encoder that the book tests of bot and bot/movesource share.
//
// It knows the file format only (16-byte big-endian entries: key, move,
// weight, learn; sorted by key); the keys come from the caller
// (movesource.PolyglotKey), so that the movesource package's own tests can
// use it without an import cycle.
package polyglottest

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Entry is one book entry: a position's Polyglot key, a move encoded as
// Move does, and its weight. The learn field is always written as zero.
type Entry struct {
	Key          uint64
	Move, Weight uint16
}

// Encode returns entries as a Polyglot book, sorted by key (stable, so a
// key's moves keep their order). The caller's slice is left as it was.
func Encode(entries []Entry) []byte {
	entries = slices.Clone(entries)
	slices.SortStableFunc(entries, func(a, b Entry) int { return cmp.Compare(a.Key, b.Key) })
	data := make([]byte, 0, 16*len(entries))
	for _, e := range entries {
		var buf [16]byte
		binary.BigEndian.PutUint64(buf[0:], e.Key)
		binary.BigEndian.PutUint16(buf[8:], e.Move)
		binary.BigEndian.PutUint16(buf[10:], e.Weight)
		data = append(data, buf[:]...)
	}
	return data
}

// Write encodes entries into a file called name in a temporary directory
// of t and returns its path.
func Write(t testing.TB, name string, entries []Entry) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, Encode(entries), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Move encodes a move given in UCI the Polyglot way: from square in bits
// 6-11, to square in bits 0-5, promotion (n, b, r, q as 1 to 4) in bits
// 12-14; castling is written as the king taking its rook ("e1h1"). Any
// other fifth letter sets bits 12-15 (0xF000), which is no Polyglot move:
// tests use it to write a malformed entry. Its input is the test's own
// literal, so squares it cannot read are a bug in the test: Move panics,
// as regexp.MustCompile does.
func Move(uci string) uint16 {
	if len(uci) != 4 && len(uci) != 5 {
		panic(fmt.Sprintf("polyglottest.Move(%q): not a UCI move", uci))
	}
	from, err1 := board.ParseSquare(uci[0:2])
	to, err2 := board.ParseSquare(uci[2:4])
	if err := errors.Join(err1, err2); err != nil {
		panic(fmt.Sprintf("polyglottest.Move(%q): %v", uci, err))
	}
	m := uint16(from)<<6 | uint16(to)
	if len(uci) == 5 {
		m |= uint16(strings.IndexByte(" nbrq", uci[4])) << 12
	}
	return m
}
