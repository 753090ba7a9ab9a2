// Package board is the chess rules core of the Ponderosa engine: bitboards,
// magic-bitboard attack tables, positions with incremental Zobrist keys,
// legal move generation, FEN, UCI and SAN notation, game-level draw rules
// and perft.
//
// Positions are small value types made by copy: MakeMove writes the
// successor into a caller-owned Position, so a search keeps a preallocated
// stack of them and never allocates on its hot path. Standard chess and
// Chess960 share one code path: castling is stored as the rook squares and
// encoded internally as "king takes own rook".
package board

import (
	"fmt"
	"math/bits"
)

// Color is the side of a piece or the side to move.
type Color uint8

// The two colours.
const (
	White Color = iota
	Black
)

// Other returns the opposite colour.
func (c Color) Other() Color { return c ^ 1 }

// String returns "white" or "black".
func (c Color) String() string {
	if c == White {
		return "white"
	}
	return "black"
}

// PieceType is a kind of piece regardless of colour.
type PieceType uint8

// Piece types. NoPieceType marks an empty square or no promotion.
const (
	NoPieceType PieceType = iota
	Pawn
	Knight
	Bishop
	Rook
	Queen
	King
)

// String returns the lower-case letter of the piece type ("p", "n", …), or
// "-" for NoPieceType.
func (pt PieceType) String() string {
	if pt > King {
		return "?"
	}
	return string("-pnbrqk"[pt])
}

// Piece is a coloured piece. NoPiece (0) is an empty square.
type Piece uint8

// NoPiece is the empty square.
const NoPiece Piece = 0

// MakePiece combines a colour and a piece type. The encoding is
// colour*8 + type, so pieces fit in 4 bits.
func MakePiece(c Color, pt PieceType) Piece { return Piece(c)<<3 | Piece(pt) }

// Color returns the colour of a piece (White for NoPiece).
func (p Piece) Color() Color { return Color(p >> 3) }

// Type returns the type of a piece (NoPieceType for NoPiece).
func (p Piece) Type() PieceType { return PieceType(p & 7) }

// String returns the FEN letter of the piece: upper case for White, lower
// case for Black, "." for NoPiece.
func (p Piece) String() string {
	if p == NoPiece {
		return "."
	}
	if p.Type() > King {
		return "?"
	}
	s := "?PNBRQK"[p.Type()]
	if p.Color() == Black {
		s += 'a' - 'A'
	}
	return string(s)
}

// Square is a board square, A1 = 0, B1 = 1 … H8 = 63. NoSquare (64) means
// none.
type Square uint8

// The squares, plus NoSquare.
const (
	A1, B1, C1, D1, E1, F1, G1, H1 Square = 8*iota + 0, 8*iota + 1, 8*iota + 2, 8*iota + 3, 8*iota + 4, 8*iota + 5, 8*iota + 6, 8*iota + 7
	A2, B2, C2, D2, E2, F2, G2, H2
	A3, B3, C3, D3, E3, F3, G3, H3
	A4, B4, C4, D4, E4, F4, G4, H4
	A5, B5, C5, D5, E5, F5, G5, H5
	A6, B6, C6, D6, E6, F6, G6, H6
	A7, B7, C7, D7, E7, F7, G7, H7
	A8, B8, C8, D8, E8, F8, G8, H8
	NoSquare Square = 64
)

// NewSquare returns the square on file (0 = a) and rank (0 = first rank).
func NewSquare(file, rank int) Square { return Square(rank*8 + file) }

// File returns the file of the square, 0 (a) to 7 (h).
func (sq Square) File() int { return int(sq & 7) }

// Rank returns the rank of the square, 0 (first rank) to 7.
func (sq Square) Rank() int { return int(sq >> 3) }

// String returns the algebraic name of the square ("e4"), or "-" for
// NoSquare and out-of-range values.
func (sq Square) String() string {
	if sq >= NoSquare {
		return "-"
	}
	return string([]byte{byte('a' + sq.File()), byte('1' + sq.Rank())})
}

// relative returns the square as seen from c's side: mirrored vertically for
// Black.
func (sq Square) relative(c Color) Square { return sq ^ Square(56*int(c)) }

// ParseSquare parses an algebraic square name such as "e4".
func ParseSquare(s string) (Square, error) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return NoSquare, fmt.Errorf("bad square %q", s)
	}
	return NewSquare(int(s[0]-'a'), int(s[1]-'1')), nil
}

// Bitboard is a set of squares, bit i standing for Square i.
type Bitboard uint64

// SquareBB returns the bitboard holding only sq.
func SquareBB(sq Square) Bitboard { return 1 << (sq & 63) }

// Has reports whether sq is in the set.
func (b Bitboard) Has(sq Square) bool { return b&(1<<(sq&63)) != 0 }

// Count returns the number of squares in the set.
func (b Bitboard) Count() int { return bits.OnesCount64(uint64(b)) }

// LSB returns the lowest square in the set (NoSquare for the empty set).
func (b Bitboard) LSB() Square { return Square(bits.TrailingZeros64(uint64(b))) }

// PopLSB removes the lowest square from the set and returns it.
func (b *Bitboard) PopLSB() Square {
	sq := Square(bits.TrailingZeros64(uint64(*b)))
	*b &= *b - 1
	return sq
}

// msb returns the highest square in the set (the set must not be empty).
func (b Bitboard) msb() Square { return Square(63 - bits.LeadingZeros64(uint64(b))) }

// more reports whether the set holds more than one square.
func (b Bitboard) more() bool { return b&(b-1) != 0 }

// String draws the set as an 8×8 grid, rank 8 first ("x" = member).
func (b Bitboard) String() string {
	buf := make([]byte, 0, 8*9)
	for r := 7; r >= 0; r-- {
		for f := 0; f < 8; f++ {
			if b.Has(NewSquare(f, r)) {
				buf = append(buf, 'x')
			} else {
				buf = append(buf, '.')
			}
		}
		buf = append(buf, '\n')
	}
	return string(buf)
}

// Useful constant sets.
const (
	fileA Bitboard = 0x0101010101010101
	fileH Bitboard = fileA << 7
	rank1 Bitboard = 0xff
	rank2 Bitboard = rank1 << 8
	rank3 Bitboard = rank1 << 16
	rank6 Bitboard = rank1 << 40
	rank7 Bitboard = rank1 << 48
	rank8 Bitboard = rank1 << 56
)

func fileBB(f int) Bitboard { return fileA << f }
func rankBB(r int) Bitboard { return rank1 << (8 * r) }
