package bot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// polyglotEntrySize is the size of one book entry: key (8 bytes), move
// (2), weight (2), learn (4), all big-endian, sorted by key.
const polyglotEntrySize = 16

// Book is a Polyglot opening book read from a file. It is safe for
// concurrent use.
type Book struct {
	f *os.File
	n int64 // entries

	mu  sync.Mutex
	rng *rand.Rand
}

// BookEntry is one book move with its weight.
type BookEntry struct {
	Move   board.Move
	Weight uint16
}

// OpenBook opens a Polyglot book file.
func OpenBook(path string) (*Book, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("book: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("book: %w", err)
	}
	if st.Size()%polyglotEntrySize != 0 {
		f.Close()
		return nil, fmt.Errorf("book: %s: size %d is not a multiple of %d: not a Polyglot book", path, st.Size(), polyglotEntrySize)
	}
	return &Book{f: f, n: st.Size() / polyglotEntrySize, rng: rand.New(rand.NewPCG(rand.Uint64(), 0xb00c))}, nil
}

// Close closes the book file.
func (b *Book) Close() error { return b.f.Close() }

// entry reads entry i.
func (b *Book) entry(i int64) (key uint64, move, weight uint16, err error) {
	var buf [polyglotEntrySize]byte
	if _, err := b.f.ReadAt(buf[:], i*polyglotEntrySize); err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, 0, fmt.Errorf("book: %w", err)
	}
	return binary.BigEndian.Uint64(buf[0:8]), binary.BigEndian.Uint16(buf[8:10]), binary.BigEndian.Uint16(buf[10:12]), nil
}

// Entries returns the legal book moves for pos with their weights (in file
// order). Entries whose move is not legal in pos (a key collision) are
// skipped.
func (b *Book) Entries(pos *board.Position) ([]BookEntry, error) {
	key := PolyglotKey(pos)
	lo, hi := int64(0), b.n // first entry with entry.key >= key
	for lo < hi {
		mid := (lo + hi) / 2
		k, _, _, err := b.entry(mid)
		if err != nil {
			return nil, err
		}
		if k < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	var out []BookEntry
	for i := lo; i < b.n; i++ {
		k, mv, w, err := b.entry(i)
		if err != nil {
			return nil, err
		}
		if k != key {
			break
		}
		if m, ok := polyglotMove(pos, mv); ok {
			out = append(out, BookEntry{Move: m, Weight: w})
		}
	}
	return out, nil
}

// Pick returns a book move for pos chosen at random in proportion to the
// weights, or ok=false when the position is not in the book.
func (b *Book) Pick(pos *board.Position) (board.Move, bool, error) {
	entries, err := b.Entries(pos)
	if err != nil || len(entries) == 0 {
		return board.NoMove, false, err
	}
	total := 0
	for _, e := range entries {
		total += int(e.Weight)
	}
	if total == 0 {
		return entries[0].Move, true, nil
	}
	b.mu.Lock()
	r := b.rng.IntN(total)
	b.mu.Unlock()
	for _, e := range entries {
		if r -= int(e.Weight); r < 0 {
			return e.Move, true, nil
		}
	}
	return entries[len(entries)-1].Move, true, nil
}

// polyglotMove decodes a book move for pos: to square in bits 0-5, from
// square in bits 6-11, promotion in bits 12-14; castling is written king
// takes rook (e1h1), which ParseUCIMove accepts.
func polyglotMove(pos *board.Position, mv uint16) (board.Move, bool) {
	to := board.Square(mv & 63)
	from := board.Square(mv >> 6 & 63)
	s := from.String() + to.String()
	if p := mv >> 12 & 7; p > 0 {
		if p > 4 {
			return board.NoMove, false
		}
		s += string("nbrq"[p-1])
	}
	m, err := pos.ParseUCIMove(s)
	return m, err == nil
}

// PolyglotKey returns the Polyglot hash of a standard-chess position.
func PolyglotKey(pos *board.Position) uint64 {
	var key uint64
	for sq := board.Square(0); sq < 64; sq++ {
		pc := pos.PieceAt(sq)
		if pc == board.NoPiece {
			continue
		}
		// Kinds: black pawn 0, white pawn 1, black knight 2, ... white king 11.
		kind := 2 * (int(pc.Type()) - 1)
		if pc.Color() == board.White {
			kind++
		}
		key ^= polyglotRandom[64*kind+8*int(sq.Rank())+int(sq.File())]
	}
	fields := strings.Fields(pos.FEN())
	if len(fields) > 2 {
		for i, c := range "KQkq" {
			if strings.ContainsRune(fields[2], c) {
				key ^= polyglotRandom[768+i]
			}
		}
	}
	// En passant counts only when a pawn of the side to move can take.
	if ep := pos.EnPassant(); ep != board.NoSquare {
		us := pos.SideToMove()
		if board.PawnAttacks(us.Other(), ep)&pos.Pieces(us, board.Pawn) != 0 {
			key ^= polyglotRandom[772+int(ep.File())]
		}
	}
	if pos.SideToMove() == board.White {
		key ^= polyglotRandom[780]
	}
	return key
}
