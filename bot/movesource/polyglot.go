package movesource

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// A Polyglot book (http://hgm.nubati.net/book_format.html) is a file of
// 16-byte entries sorted by key: the position's key (8 bytes), the move (2),
// its weight (2) and a learning field (4, unused here), all big-endian.
const polyglotEntrySize = 16

// maxBookEntries bounds the entries read for one position: no position has
// more legal moves than this, so a key with more entries is a corrupt book
// (the rest are ignored).
const maxBookEntries = 256

// polyglot is an opened, checked Polyglot book. Reads go through ReadAt,
// so one polyglot serves every game at once; the entries read land in
// buffers kept for reuse (a probe allocates nothing).
type polyglot struct {
	r       io.ReaderAt
	n       int64     // entries
	buffers sync.Pool // of *[polyglotEntrySize]byte
}

// bookMove is a legal book move with its weight (duplicate entries of one
// move add up).
type bookMove struct {
	move   board.Move
	weight uint32
}

// readPolyglot checks that r, of size bytes, is a Polyglot book: whole
// entries, at least one, sorted by key, each move a well-formed Polyglot
// move (two different squares, promotion 0 to 4, the unused top bit
// clear). It reads the whole file once.
func readPolyglot(r io.ReaderAt, size int64) (*polyglot, error) {
	switch {
	case size == 0:
		return nil, errors.New("empty file: not a Polyglot book")
	case size%polyglotEntrySize != 0:
		return nil, fmt.Errorf("size %d is not a multiple of %d: not a Polyglot book", size, polyglotEntrySize)
	}
	n := size / polyglotEntrySize
	br := bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10)
	var buf [polyglotEntrySize]byte
	var prev uint64
	for i := range n {
		if _, err := io.ReadFull(br, buf[:]); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		key := binary.BigEndian.Uint64(buf[0:8])
		if i > 0 && key < prev {
			return nil, fmt.Errorf("entry %d: key %016x below the previous entry's %016x: not a Polyglot book (entries are sorted by key)", i, key, prev)
		}
		prev = key
		if mv := binary.BigEndian.Uint16(buf[8:10]); !wellFormed(mv) {
			return nil, fmt.Errorf("entry %d: move %#04x is no Polyglot move: not a Polyglot book", i, mv)
		}
	}
	p := &polyglot{r: r, n: n}
	p.buffers.New = func() any { return new([polyglotEntrySize]byte) }
	return p, nil
}

// wellFormed reports whether mv can be a Polyglot move at all.
func wellFormed(mv uint16) bool {
	to, from, promo := mv&63, mv>>6&63, mv>>12&7
	return mv>>15 == 0 && from != to && promo <= 4
}

// read reads entry i into buf.
func (p *polyglot) read(i int64, buf *[polyglotEntrySize]byte) error {
	if _, err := p.r.ReadAt(buf[:], i*polyglotEntrySize); err != nil {
		return fmt.Errorf("entry %d: %w", i, err)
	}
	return nil
}

// probe fills out with the legal moves the book has for pos (in file order,
// duplicates merged) and returns how many. An entry whose move is not
// legal in pos (a key collision or a corrupt entry) is skipped.
func (p *polyglot) probe(pos *board.Position, out *[maxBookEntries]bookMove) (int, error) {
	key := PolyglotKey(pos)
	buf := p.buffers.Get().(*[polyglotEntrySize]byte)
	defer p.buffers.Put(buf)
	lo, hi := int64(0), p.n // the first entry with a key >= key
	for lo < hi {
		mid := lo + (hi-lo)/2
		if err := p.read(mid, buf); err != nil {
			return 0, err
		}
		if binary.BigEndian.Uint64(buf[0:8]) < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	var legal board.MoveList
	pos.GenerateLegal(&legal)
	n := 0
	for i := lo; i < p.n && i < lo+maxBookEntries; i++ {
		if err := p.read(i, buf); err != nil {
			return 0, err
		}
		if binary.BigEndian.Uint64(buf[0:8]) != key {
			break
		}
		m, ok := decodePolyglotMove(&legal, binary.BigEndian.Uint16(buf[8:10]))
		if !ok {
			continue
		}
		w := uint32(binary.BigEndian.Uint16(buf[10:12]))
		merged := false
		for j := range n {
			if out[j].move == m {
				out[j].weight += w
				merged = true
				break
			}
		}
		if !merged {
			out[n] = bookMove{m, w}
			n++
		}
	}
	return n, nil
}

// decodePolyglotMove finds the legal move (in legal) that a Polyglot move
// means: the to square in bits 0-5, the from square in bits 6-11, the
// promotion (1 knight ... 4 queen) in bits 12-14. Castling is written king
// takes own rook ("e1h1"; in Chess960 "b1a1" and the like), which is how
// board.Move stores it. ok is false when no legal move matches.
func decodePolyglotMove(legal *board.MoveList, mv uint16) (board.Move, bool) {
	if !wellFormed(mv) {
		return board.NoMove, false
	}
	to, from := board.Square(mv&63), board.Square(mv>>6&63)
	promo := board.NoPieceType
	if p := mv >> 12 & 7; p > 0 {
		promo = [5]board.PieceType{0, board.Knight, board.Bishop, board.Rook, board.Queen}[p]
	}
	for _, m := range legal.Slice() {
		if m.From() != from || m.To() != to {
			continue
		}
		if m.IsCastling() && promo == board.NoPieceType || !m.IsCastling() && m.Promotion() == promo {
			return m, true
		}
	}
	return board.NoMove, false
}

// PolyglotKey returns the Polyglot key of pos: its pieces, castling rights
// (king side and queen side of each colour, which in Chess960 is the side
// of the king the rook stands on), the en passant file when a pawn of the
// side to move stands ready to take, and the side to move.
func PolyglotKey(pos *board.Position) uint64 {
	var key uint64
	for occ := pos.Occupied(); occ != 0; {
		sq := occ.LSB()
		occ &= occ - 1
		pc := pos.PieceAt(sq)
		// Kinds: black pawn 0, white pawn 1, black knight 2, ... white king 11.
		kind := 2 * (int(pc.Type()) - 1)
		if pc.Color() == board.White {
			kind++
		}
		key ^= polyglotRandom[64*kind+8*int(sq.Rank())+int(sq.File())]
	}
	for i, r := range [4]struct {
		c    board.Color
		king bool
	}{{board.White, true}, {board.White, false}, {board.Black, true}, {board.Black, false}} {
		if pos.CastlingRight(r.c, r.king) {
			key ^= polyglotRandom[768+i]
		}
	}
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
