package board

import (
	"strconv"
	"strings"
)

// Castling rights, one bit each. The index of the bit (0–3) also indexes
// Position.castleRook.
const (
	whiteOO  = 1 << iota // white king side (rook on the king's h-side)
	whiteOOO             // white queen side
	blackOO
	blackOOO
	allCastling = whiteOO | whiteOOO | blackOO | blackOOO
)

// StartFEN is the standard starting position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// Position is a chess position: piece placement, side to move, castling
// rights, en passant square and move counters, plus derived data kept up to
// date (Zobrist keys, checkers). It is a value type of about 180 bytes;
// MakeMove copies it into a successor ("copy-make"). The zero value is not
// a valid position: use ParseFEN or StartPosition.
type Position struct {
	board      [64]Piece
	byType     [7]Bitboard // index 0 holds every occupied square
	byColor    [2]Bitboard
	key        uint64
	pawnKey    uint64
	checkers   Bitboard
	castleRook [4]Square // rook square of each castling right (valid while the right is held)
	castling   uint8
	ep         Square
	side       Color
	halfmove   int32
	fullmove   int32

	// Chess960 selects Chess960 castling notation: UCI castling moves are
	// written king-takes-rook (e1h1) and FEN castling may use Shredder
	// letters. The rules themselves are the same code for both.
	Chess960 bool
}

// StartPosition returns the standard starting position.
func StartPosition() Position {
	p, err := ParseFEN(StartFEN)
	if err != nil {
		panic("board: bad StartFEN: " + err.Error())
	}
	return p
}

// String draws the board as text, rank 8 at the top (upper case White,
// lower case Black, "." empty), followed by the FEN and the key in hex.
func (p *Position) String() string {
	var b strings.Builder
	for r := 7; r >= 0; r-- {
		b.WriteByte(byte('1' + r))
		for f := 0; f < 8; f++ {
			b.WriteByte(' ')
			b.WriteString(p.board[NewSquare(f, r)].String())
		}
		b.WriteByte('\n')
	}
	b.WriteString("  a b c d e f g h\n\nFen: ")
	b.WriteString(p.FEN())
	b.WriteString("\nKey: ")
	b.WriteString(strconv.FormatUint(p.key, 16))
	b.WriteByte('\n')
	return b.String()
}

// SideToMove returns the colour to move.
func (p *Position) SideToMove() Color { return p.side }

// PieceAt returns the piece on sq (NoPiece if empty).
func (p *Position) PieceAt(sq Square) Piece { return p.board[sq&63] }

// Pieces returns the squares of c's pieces of type pt.
func (p *Position) Pieces(c Color, pt PieceType) Bitboard {
	return p.byColor[c&1] & p.byType[pt%7]
}

// ByColor returns the squares of all of c's pieces.
func (p *Position) ByColor(c Color) Bitboard { return p.byColor[c&1] }

// ByType returns the squares of all pieces of type pt, both colours.
func (p *Position) ByType(pt PieceType) Bitboard { return p.byType[pt%7] }

// Occupied returns every occupied square.
func (p *Position) Occupied() Bitboard { return p.byType[0] }

// CastlingRight reports whether c may still castle on the king side (the
// rook on the king's h-side, in Chess960 too) or on the queen side.
func (p *Position) CastlingRight(c Color, kingSide bool) bool {
	right := 2 * int(c&1)
	if !kingSide {
		right++
	}
	return p.castling&(1<<right) != 0
}

// KingSquare returns the square of c's king.
func (p *Position) KingSquare(c Color) Square {
	return (p.byColor[c&1] & p.byType[King]).LSB()
}

// Key returns the Zobrist key of the position: pieces, side to move,
// castling rights, and the en passant file when the side to move has a
// legal en passant capture.
func (p *Position) Key() uint64 { return p.key }

// PawnKey returns a Zobrist key of the pawns alone (both colours), for a
// pawn-structure hash table.
func (p *Position) PawnKey() uint64 { return p.pawnKey }

// HalfmoveClock returns the number of half-moves since the last capture or
// pawn move (for the fifty-move rule).
func (p *Position) HalfmoveClock() int { return int(p.halfmove) }

// FullmoveNumber returns the move number, starting at 1 and incremented
// after Black moves.
func (p *Position) FullmoveNumber() int { return int(p.fullmove) }

// EnPassant returns the en passant target square, or NoSquare. After
// MakeMove it is set only when the side to move has a legal en passant
// capture; after ParseFEN it is whatever the FEN said.
func (p *Position) EnPassant() Square { return p.ep }

// InCheck reports whether the side to move is in check.
func (p *Position) InCheck() bool { return p.checkers != 0 }

// Checkers returns the pieces giving check to the side to move.
func (p *Position) Checkers() Bitboard { return p.checkers }

// AttackersTo returns the pieces of both colours that attack sq, given the
// occupancy occ (used for slider rays; pass Occupied() normally, or a
// modified set for static exchange evaluation).
func (p *Position) AttackersTo(sq Square, occ Bitboard) Bitboard {
	return (PawnAttacks(Black, sq) & p.Pieces(White, Pawn)) |
		(PawnAttacks(White, sq) & p.Pieces(Black, Pawn)) |
		(KnightAttacks(sq) & p.byType[Knight]) |
		(KingAttacks(sq) & p.byType[King]) |
		(BishopAttacks(sq, occ) & (p.byType[Bishop] | p.byType[Queen])) |
		(RookAttacks(sq, occ) & (p.byType[Rook] | p.byType[Queen]))
}

// attacked reports whether any piece of colour by attacks sq given occ.
func (p *Position) attacked(sq Square, by Color, occ Bitboard) bool {
	them := p.byColor[by]
	if PawnAttacks(by.Other(), sq)&them&p.byType[Pawn] != 0 ||
		KnightAttacks(sq)&them&p.byType[Knight] != 0 ||
		KingAttacks(sq)&them&p.byType[King] != 0 {
		return true
	}
	if BishopAttacks(sq, occ)&them&(p.byType[Bishop]|p.byType[Queen]) != 0 {
		return true
	}
	return RookAttacks(sq, occ)&them&(p.byType[Rook]|p.byType[Queen]) != 0
}

// HasNonPawnMaterial reports whether c has a knight, bishop, rook or queen.
func (p *Position) HasNonPawnMaterial(c Color) bool {
	return p.byColor[c&1]&^(p.byType[Pawn]|p.byType[King]) != 0
}

// InsufficientMaterial reports whether neither side can ever checkmate:
// K v K, K+N v K, K+B v K, and positions where every bishop stands on
// squares of one colour and there are no other pieces besides kings.
func (p *Position) InsufficientMaterial() bool {
	if p.byType[Pawn]|p.byType[Rook]|p.byType[Queen] != 0 {
		return false
	}
	minors := p.byType[Knight] | p.byType[Bishop]
	if minors.Count() <= 1 {
		return true
	}
	if p.byType[Knight] != 0 {
		return false
	}
	const dark Bitboard = 0xaa55aa55aa55aa55
	b := p.byType[Bishop]
	return b&dark == 0 || b&^dark == 0
}

func (p *Position) put(pc Piece, sq Square) {
	bb := SquareBB(sq)
	p.board[sq] = pc
	p.byType[0] |= bb
	p.byType[pc.Type()] |= bb
	p.byColor[pc.Color()] |= bb
	p.key ^= zobristPiece[pc][sq]
	if pc.Type() == Pawn {
		p.pawnKey ^= zobristPiece[pc][sq]
	}
}

func (p *Position) remove(sq Square) {
	pc := p.board[sq]
	bb := SquareBB(sq)
	p.board[sq] = NoPiece
	p.byType[0] &^= bb
	p.byType[pc.Type()] &^= bb
	p.byColor[pc.Color()] &^= bb
	p.key ^= zobristPiece[pc][sq]
	if pc.Type() == Pawn {
		p.pawnKey ^= zobristPiece[pc][sq]
	}
}

// epKeyed reports whether the en passant square counts in the key: the
// side to move has a legal en passant capture (as FIDE's repetition rule
// and Stockfish's key have it).
func (p *Position) epKeyed() bool {
	if p.ep == NoSquare {
		return false
	}
	ksq := p.KingSquare(p.side)
	for b := PawnAttacks(p.side.Other(), p.ep) & p.Pieces(p.side, Pawn); b != 0; {
		if p.epLegal(b.PopLSB(), p.ep, ksq) {
			return true
		}
	}
	return false
}

// castlingTargets returns the king's and the rook's destinations for a
// castling move of colour c with the rook starting on rookFrom, given the
// king on kingFrom.
func castlingTargets(c Color, kingFrom, rookFrom Square) (kingTo, rookTo Square) {
	if rookFrom > kingFrom {
		return G1.relative(c), F1.relative(c)
	}
	return C1.relative(c), D1.relative(c)
}

// MakeMove writes into child the position after the legal move m. The
// child must not be p itself. m must be legal in p (as generated, or
// checked with IsLegal); other values give an undefined position.
func (p *Position) MakeMove(m Move, child *Position) {
	*child = *p
	c := child
	us, them := p.side, p.side.Other()
	from, to := m.From(), m.To()
	pc := p.board[from]

	c.halfmove++
	if us == Black {
		c.fullmove++
	}
	c.key ^= zobristSide
	if p.ep != NoSquare {
		if p.epKeyed() {
			c.key ^= zobristEP[p.ep.File()]
		}
		c.ep = NoSquare
	}
	oldCastling := c.castling

	switch m & moveKindMask {
	case moveCastling:
		kingTo, rookTo := castlingTargets(us, from, to)
		rook := p.board[to]
		c.remove(from)
		c.remove(to)
		c.put(pc, kingTo)
		c.put(rook, rookTo)
		c.castling &^= uint8(whiteOO|whiteOOO) << (2 * us)
	default:
		if cap := p.board[to]; cap != NoPiece {
			c.remove(to)
			c.halfmove = 0
		}
		c.remove(from)
		if m&moveKindMask == movePromotion {
			c.put(MakePiece(us, m.Promotion()), to)
		} else {
			c.put(pc, to)
		}
		if pc.Type() == Pawn {
			c.halfmove = 0
			switch {
			case m&moveKindMask == moveEnPassant:
				c.remove(to ^ 8)
			case to^from == 16:
				ep := (from + to) / 2
				if PawnAttacks(us, ep)&p.Pieces(them, Pawn) != 0 {
					c.ep = ep
					c.key ^= zobristEP[ep.File()]
				}
			}
		} else if pc.Type() == King {
			c.castling &^= uint8(whiteOO|whiteOOO) << (2 * us)
		}
		if c.castling != 0 {
			for i := 0; i < 4; i++ {
				if c.castling&(1<<i) != 0 && (c.castleRook[i] == from || c.castleRook[i] == to) {
					c.castling &^= 1 << i
				}
			}
		}
	}
	if c.castling != oldCastling {
		c.key ^= zobristCastling[oldCastling] ^ zobristCastling[c.castling]
	}
	c.side = them
	ksq := c.KingSquare(them)
	occ := c.byType[0]
	c.checkers = c.byColor[us] & ((PawnAttacks(them, ksq) & c.byType[Pawn]) |
		(KnightAttacks(ksq) & c.byType[Knight]) |
		(BishopAttacks(ksq, occ) & (c.byType[Bishop] | c.byType[Queen])) |
		(RookAttacks(ksq, occ) & (c.byType[Rook] | c.byType[Queen])))
	if c.ep != NoSquare && !c.epKeyed() {
		// An enemy pawn is beside the double-pushed pawn but may not take
		// it en passant: no en passant square then.
		c.key ^= zobristEP[c.ep.File()]
		c.ep = NoSquare
	}
}

// KeyAfter returns the key of the position after the legal move m, but for
// changes of castling rights and en passant squares, which it leaves out
// (castling itself it only guesses): a cheap estimate, good enough to
// prefetch a hash table entry before making m.
func (p *Position) KeyAfter(m Move) uint64 {
	from, to := m.From(), m.To()
	pc := p.board[from]
	k := p.key ^ zobristSide ^ zobristPiece[pc][from]
	switch m & moveKindMask {
	case movePromotion:
		pc = MakePiece(p.side, m.Promotion())
	case moveEnPassant:
		k ^= zobristPiece[p.board[to^8]][to^8]
	case moveCastling:
		return k
	}
	k ^= zobristPiece[pc][to]
	if captured := p.board[to]; captured != NoPiece {
		k ^= zobristPiece[captured][to]
	}
	if p.ep != NoSquare {
		k ^= zobristEP[p.ep.File()]
	}
	return k
}

// MakeNullMove writes into child the position after passing the move to
// the opponent. The side to move must not be in check.
func (p *Position) MakeNullMove(child *Position) {
	*child = *p
	if p.ep != NoSquare {
		if p.epKeyed() {
			child.key ^= zobristEP[p.ep.File()]
		}
		child.ep = NoSquare
	}
	child.key ^= zobristSide
	child.halfmove++
	if p.side == Black {
		child.fullmove++
	}
	child.side = p.side.Other()
	child.checkers = 0
}
