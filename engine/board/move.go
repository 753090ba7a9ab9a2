package board

// Move is a move packed in an integer: bits 0–5 the origin square, 6–11 the
// destination, 12–14 the promotion piece type and 15–16 the kind (normal,
// promotion, en passant, castling). Castling is stored as "king takes own
// rook": the origin is the king square and the destination the rook square,
// in standard chess and Chess960 alike. NoMove (0) is no move at all;
// NullMove is the "pass" used by null-move search.
type Move uint32

const (
	moveNormal    Move = 0
	movePromotion Move = 1 << 15
	moveEnPassant Move = 2 << 15
	moveCastling  Move = 3 << 15
	moveKindMask  Move = 3 << 15
)

// NoMove is the zero Move, meaning "no move".
const NoMove Move = 0

// NullMove is the null move (pass). It is distinct from NoMove and from
// every real move (origin and destination are both b1).
const NullMove Move = 1 | 1<<6

// NewMove returns a normal move (including captures and double pushes).
func NewMove(from, to Square) Move { return Move(from&63) | Move(to&63)<<6 }

// NewPromotion returns a pawn move that promotes to pt.
func NewPromotion(from, to Square, pt PieceType) Move {
	return NewMove(from, to) | Move(pt&7)<<12 | movePromotion
}

// NewEnPassant returns an en passant capture; to is the en passant square.
func NewEnPassant(from, to Square) Move { return NewMove(from, to) | moveEnPassant }

// NewCastling returns a castling move given the king's and the rook's
// starting squares.
func NewCastling(kingFrom, rookFrom Square) Move { return NewMove(kingFrom, rookFrom) | moveCastling }

// From returns the origin square.
func (m Move) From() Square { return Square(m & 63) }

// To returns the destination square (the rook square for castling).
func (m Move) To() Square { return Square(m>>6) & 63 }

// Promotion returns the promotion piece type, or NoPieceType.
func (m Move) Promotion() PieceType {
	if m&moveKindMask != movePromotion {
		return NoPieceType
	}
	return PieceType(m>>12) & 7
}

// IsPromotion reports whether the move is a promotion.
func (m Move) IsPromotion() bool { return m&moveKindMask == movePromotion }

// IsEnPassant reports whether the move is an en passant capture.
func (m Move) IsEnPassant() bool { return m&moveKindMask == moveEnPassant }

// IsCastling reports whether the move is castling.
func (m Move) IsCastling() bool { return m&moveKindMask == moveCastling }

// String returns the move as raw origin and destination squares plus the
// promotion letter ("e7e8q"), castling as king-to-rook ("e1h1"). It is for
// debugging; use Position.UCI or Position.SAN for notation.
func (m Move) String() string {
	switch m {
	case NoMove:
		return "0000"
	case NullMove:
		return "null"
	}
	s := m.From().String() + m.To().String()
	if m.IsPromotion() {
		s += m.Promotion().String()
	}
	return s
}

// MaxMoves bounds the number of legal moves in any position ParseFEN
// accepts (ParseFEN checks an upper bound for both sides; positions reached
// by legal play have at most 218). A position reached from an artificial
// set-up (more pieces than legal play allows) could in theory have more
// after lines open or pawns promote: the generators then keep the first
// MaxMoves rather than overrun the list.
const MaxMoves = 256

// MoveList is a caller-owned, fixed-size list of moves. The generators
// append to it; reset N to reuse it.
type MoveList struct {
	Moves [MaxMoves]Move
	N     int
}

// Slice returns the moves in the list (a view of the array, no copy).
func (l *MoveList) Slice() []Move { return l.Moves[:l.N] }

func (l *MoveList) add(m Move) {
	if l.N < len(l.Moves) {
		l.Moves[l.N] = m
		l.N++
	}
}

// Contains reports whether m is in the list.
func (l *MoveList) Contains(m Move) bool {
	for _, x := range l.Moves[:l.N] {
		if x == m {
			return true
		}
	}
	return false
}
