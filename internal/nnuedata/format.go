// Package nnuedata is the training data of Ponderosa's NNUE: a compact
// binary record of a quiet position with its search score and the result
// of the game it was played in, a writer that appends records to a file
// (resumable: a run stopped at any time goes on where it stopped), a
// reader, and the self-play generator that produces them.
//
// A record is RecordSize (32) bytes, little endian:
//
//	 0– 7  occupancy bitboard (bit i = square i, A1 = 0)
//	 8–23  one 4-bit piece code per occupied square, in square order
//	       (low nibble first): colour*8 + type, type 1 (pawn) … 6 (king)
//	24–25  score, centipawns, White's point of view (int16)
//	26     game result: 0 Black won, 1 draw, 2 White won
//	27     side to move: 0 White, 1 Black
//	28–29  full-move number (uint16)
//	30     half-move clock (capped at 255)
//	31     reserved, 0
package nnuedata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// RecordSize is the size of one encoded record in bytes.
const RecordSize = 32

// Game results as stored in a record (White's point of view).
const (
	BlackWin uint8 = 0
	DrawGame uint8 = 1
	WhiteWin uint8 = 2
)

// Record is one training position.
type Record struct {
	Occ      board.Bitboard
	Pieces   [32]board.Piece // one per set bit of Occ, in square order
	Score    int16           // centipawns, White's point of view
	Result   uint8           // BlackWin, DrawGame or WhiteWin
	STM      board.Color
	Fullmove uint16
	Halfmove uint8
}

// FromPosition builds the record of pos with the score (White's point of
// view) and the game result.
func FromPosition(pos *board.Position, whiteScore int16, result uint8) Record {
	r := Record{
		Occ:      pos.Occupied(),
		Score:    whiteScore,
		Result:   result,
		STM:      pos.SideToMove(),
		Fullmove: uint16(min(pos.FullmoveNumber(), 65535)),
		Halfmove: uint8(min(pos.HalfmoveClock(), 255)),
	}
	i := 0
	for b := r.Occ; b != 0 && i < 32; {
		r.Pieces[i] = pos.PieceAt(b.PopLSB())
		i++
	}
	return r
}

// Count returns the number of pieces on the board.
func (r *Record) Count() int { return bits.OnesCount64(uint64(r.Occ)) }

// Each calls f for every piece with its square, in square order.
func (r *Record) Each(f func(sq board.Square, pc board.Piece)) {
	i := 0
	for b := r.Occ; b != 0; i++ {
		f(b.PopLSB(), r.Pieces[i])
	}
}

// FEN returns the position as FEN (no castling or en passant rights: the
// record does not keep them).
func (r *Record) FEN() string {
	var grid [64]board.Piece
	r.Each(func(sq board.Square, pc board.Piece) { grid[sq] = pc })
	var s []byte
	for rank := 7; rank >= 0; rank-- {
		empty := 0
		for f := 0; f < 8; f++ {
			pc := grid[board.NewSquare(f, rank)]
			if pc == board.NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				s = append(s, byte('0'+empty))
				empty = 0
			}
			s = append(s, pc.String()...)
		}
		if empty > 0 {
			s = append(s, byte('0'+empty))
		}
		if rank > 0 {
			s = append(s, '/')
		}
	}
	side := " w"
	if r.STM == board.Black {
		side = " b"
	}
	return fmt.Sprintf("%s%s - - %d %d", s, side, r.Halfmove, max(r.Fullmove, 1))
}

// Encode writes r into b, which must hold RecordSize bytes. r must be
// valid (at most 32 pieces, valid piece codes).
func (r *Record) Encode(b []byte) {
	_ = b[RecordSize-1]
	clear(b[:RecordSize])
	binary.LittleEndian.PutUint64(b[0:], uint64(r.Occ))
	n := min(r.Count(), 32)
	for i := 0; i < n; i++ {
		b[8+i/2] |= byte(r.Pieces[i]&15) << (4 * (i & 1))
	}
	binary.LittleEndian.PutUint16(b[24:], uint16(r.Score))
	b[26] = r.Result
	b[27] = byte(r.STM)
	binary.LittleEndian.PutUint16(b[28:], r.Fullmove)
	b[30] = r.Halfmove
}

// Errors of Decode.
var (
	ErrShortRecord = errors.New("nnuedata: record shorter than 32 bytes")
	ErrBadRecord   = errors.New("nnuedata: invalid record")
)

// Decode reads a record from b (RecordSize bytes) and checks it: at most 32
// pieces, valid piece codes, one king of each colour, no pawn on the first
// or last rank, a valid result and side to move, padding zero.
func (r *Record) Decode(b []byte) error {
	if len(b) < RecordSize {
		return ErrShortRecord
	}
	occ := board.Bitboard(binary.LittleEndian.Uint64(b[0:]))
	n := bits.OnesCount64(uint64(occ))
	if n > 32 {
		return fmt.Errorf("%w: %d pieces", ErrBadRecord, n)
	}
	if b[26] > WhiteWin {
		return fmt.Errorf("%w: result %d", ErrBadRecord, b[26])
	}
	if b[27] > 1 {
		return fmt.Errorf("%w: side to move %d", ErrBadRecord, b[27])
	}
	if b[31] != 0 {
		return fmt.Errorf("%w: reserved byte %d", ErrBadRecord, b[31])
	}
	var kings [2]int
	sq := occ
	for i := 0; i < n; i++ {
		s := sq.PopLSB()
		pc := board.Piece(b[8+i/2]>>(4*(i&1))) & 15
		pt := pc.Type()
		if pt == board.NoPieceType || pt > board.King {
			return fmt.Errorf("%w: piece code %d", ErrBadRecord, pc)
		}
		if pt == board.Pawn && (s.Rank() == 0 || s.Rank() == 7) {
			return fmt.Errorf("%w: pawn on %v", ErrBadRecord, s)
		}
		if pt == board.King {
			kings[pc.Color()]++
		}
		r.Pieces[i] = pc
	}
	for i := n; i < 32; i++ {
		if b[8+i/2]>>(4*(i&1))&15 != 0 {
			return fmt.Errorf("%w: piece code after the last piece", ErrBadRecord)
		}
		r.Pieces[i] = board.NoPiece
	}
	if kings != [2]int{1, 1} {
		return fmt.Errorf("%w: %d white and %d black kings", ErrBadRecord, kings[0], kings[1])
	}
	r.Occ = occ
	r.Score = int16(binary.LittleEndian.Uint16(b[24:]))
	r.Result = b[26]
	r.STM = board.Color(b[27])
	r.Fullmove = binary.LittleEndian.Uint16(b[28:])
	r.Halfmove = b[30]
	return nil
}
