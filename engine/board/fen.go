package board

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseFEN parses a position in Forsyth–Edwards Notation. It accepts
// standard FEN, X-FEN (KQkq meaning the outermost rook on each side of the
// king, plus file letters when that is ambiguous) and Shredder-FEN (castling
// rights as rook files, "HAha"). The move counters may be left out (they
// default to "0 1"). Chess960 is set when the castling field uses file
// letters or when a castling king or rook is not on its standard square.
//
// Bad input gets an error starting with "fen: " that says what is wrong;
// ParseFEN never panics. It accepts every position Lichess can start a game
// from (Lichess's non-strict check): any material, as long as each side has
// exactly one king, no pawn stands on the first or last rank and the side
// not to move is not in check. Like Lichess it drops castling rights whose
// king or rook is not in place, and an en passant square that no double
// pawn push can have left, rather than refuse the position. Beyond Lichess
// it refuses only set-ups so crowded that one side could have more than
// MaxMoves moves.
func ParseFEN(fen string) (Position, error) {
	var p Position
	fields := strings.Fields(fen)
	if len(fields) != 6 && len(fields) != 4 {
		return Position{}, fmt.Errorf("fen: want 6 space-separated fields (or 4 without the move counters), got %d", len(fields))
	}
	if err := p.parsePlacement(fields[0]); err != nil {
		return Position{}, err
	}
	switch fields[1] {
	case "w":
		p.side = White
	case "b":
		p.side = Black
	default:
		return Position{}, fmt.Errorf("fen: side to move is %s, want w or b", clip(fields[1]))
	}
	if err := p.parseCastling(fields[2]); err != nil {
		return Position{}, err
	}
	if err := p.parseEP(fields[3]); err != nil {
		return Position{}, err
	}
	p.fullmove = 1
	if len(fields) == 6 {
		n, err := strconv.Atoi(fields[4])
		if err != nil || n < 0 || n > 1_000_000 {
			return Position{}, fmt.Errorf("fen: bad halfmove clock %s", clip(fields[4]))
		}
		p.halfmove = int32(n)
		n, err = strconv.Atoi(fields[5])
		if err != nil || n < 0 || n > 1_000_000 {
			return Position{}, fmt.Errorf("fen: bad fullmove number %s", clip(fields[5]))
		}
		if n == 0 {
			n = 1 // some writers start at 0; the number is then meaningless
		}
		p.fullmove = int32(n)
	}

	if p.attacked(p.KingSquare(p.side.Other()), p.side, p.byType[0]) {
		return Position{}, errors.New("fen: side not to move is in check")
	}
	p.checkers = p.AttackersTo(p.KingSquare(p.side), p.byType[0]) & p.byColor[p.side.Other()]
	p.key ^= zobristCastling[p.castling]
	if p.side == Black {
		p.key ^= zobristSide
	}
	if p.epKeyed() {
		p.key ^= zobristEP[p.ep.File()]
	}
	return p, nil
}

func (p *Position) parsePlacement(s string) error {
	ranks := strings.Split(s, "/")
	if len(ranks) != 8 {
		return fmt.Errorf("fen: board has %d ranks, want 8", len(ranks))
	}
	for i, row := range ranks {
		rank := 7 - i
		file := 0
		for j := 0; j < len(row); j++ {
			ch := row[j]
			if ch >= '1' && ch <= '9' {
				file += int(ch - '0')
				continue
			}
			if ch == '0' {
				return fmt.Errorf("fen: rank %d has a 0 empty-square count", rank+1)
			}
			pc, ok := pieceFromLetter(ch)
			if !ok {
				return fmt.Errorf("fen: unknown piece letter %q in rank %d", rune(ch), rank+1)
			}
			if file < 8 {
				p.put(pc, NewSquare(file, rank))
			}
			file++
		}
		if file != 8 {
			return fmt.Errorf("fen: rank %d has %d files", rank+1, file)
		}
	}
	for c := White; c <= Black; c++ {
		switch n := p.Pieces(c, King).Count(); {
		case n == 0:
			return fmt.Errorf("fen: %s has no king", c)
		case n > 1:
			return fmt.Errorf("fen: %s has %d kings", c, n)
		}
	}
	if b := p.byType[Pawn] & (rank1 | rank8); b != 0 {
		return fmt.Errorf("fen: pawn on the first or last rank (%s)", b.LSB())
	}
	for c := White; c <= Black; c++ {
		if n := p.moveBound(c); n > MaxMoves {
			return fmt.Errorf("fen: %s could have up to %d moves here, more than the %d this engine handles", c, n, MaxMoves)
		}
	}
	return nil
}

// moveBound is an upper bound on the moves c could have in p with c to
// move: every target of every piece (pawns: both pushes and both captures,
// four times over on the seventh rank), plus en passant and castling.
func (p *Position) moveBound(c Color) int {
	occ, own := p.byType[0], p.byColor[c]
	n := 4 // two en passant captures, two castlings
	for b := own; b != 0; {
		sq := b.PopLSB()
		var t Bitboard
		switch p.board[sq].Type() {
		case Pawn:
			k := 2 + (PawnAttacks(c, sq) &^ own).Count()
			if rankBB(6 - 5*int(c)).Has(sq) {
				k *= 4
			}
			n += k
			continue
		case Knight:
			t = KnightAttacks(sq)
		case Bishop:
			t = BishopAttacks(sq, occ)
		case Rook:
			t = RookAttacks(sq, occ)
		case Queen:
			t = QueenAttacks(sq, occ)
		case King:
			t = KingAttacks(sq)
		}
		n += (t &^ own).Count()
	}
	return n
}

func pieceFromLetter(ch byte) (Piece, bool) {
	i := strings.IndexByte("PNBRQKpnbrqk", ch)
	if i < 0 {
		return NoPiece, false
	}
	return MakePiece(Color(i/6), PieceType(i%6+1)), true
}

func (p *Position) parseCastling(s string) error {
	for i := range p.castleRook {
		p.castleRook[i] = NoSquare
	}
	if s == "-" {
		return nil
	}
	if len(s) > 4 {
		return fmt.Errorf("fen: castling field %q is too long", s)
	}
	shredder := false
	for j := 0; j < len(s); j++ {
		ch := s[j]
		c := White
		if ch >= 'a' && ch <= 'z' {
			c = Black
			ch -= 'a' - 'A'
		}
		if ch != 'K' && ch != 'Q' && (ch < 'A' || ch > 'H') {
			return fmt.Errorf("fen: castling field %q has bad letter %q", s, rune(s[j]))
		}
		// A right whose king or rook is not in place is dropped, as Lichess
		// does ("KQkq" pasted under any position still starts a game).
		back := rankBB(7 * int(c))
		ksq := p.KingSquare(c)
		if !back.Has(ksq) {
			continue
		}
		rooks := p.Pieces(c, Rook) & back
		var rsq Square
		switch {
		case ch == 'K':
			// The outermost rook on the h-side of the king.
			b := rooks & aboveSquare(ksq) & back
			if b == 0 {
				continue
			}
			rsq = b.msb()
		case ch == 'Q':
			b := rooks & belowSquare(ksq)
			if b == 0 {
				continue
			}
			rsq = b.LSB()
		default:
			shredder = true
			rsq = NewSquare(int(ch-'A'), 7*int(c))
			if !rooks.Has(rsq) {
				continue
			}
		}
		right := 0
		if rsq < ksq {
			right = 1
		}
		right += 2 * int(c)
		if p.castling&(1<<right) != 0 {
			continue // the same right twice ("KK") is that right
		}
		p.castling |= 1 << right
		p.castleRook[right] = rsq
		if shredder || ksq != E1.relative(c) || (rsq != A1.relative(c) && rsq != H1.relative(c)) {
			p.Chess960 = true
		}
	}
	return nil
}

// aboveSquare returns the squares with a higher index than sq.
func aboveSquare(sq Square) Bitboard { return ^Bitboard(0) << sq << 1 }

// belowSquare returns the squares with a lower index than sq.
func belowSquare(sq Square) Bitboard { return SquareBB(sq) - 1 }

func (p *Position) parseEP(s string) error {
	p.ep = NoSquare
	if s == "-" {
		return nil
	}
	sq, err := ParseSquare(s)
	if err != nil {
		return fmt.Errorf("fen: bad en passant field %s", clip(s))
	}
	us, them := p.side, p.side.Other()
	// A square no double pawn push of the other side can have left (wrong
	// rank, no pawn in front of it, squares it passed not empty) is
	// ignored, as Lichess ignores it.
	if sq.Rank() != 5-3*int(us) {
		return nil
	}
	pawnSq := sq ^ 8
	from := NewSquare(sq.File(), 6-5*int(us))
	if p.board[pawnSq] != MakePiece(them, Pawn) || p.board[sq] != NoPiece || p.board[from] != NoPiece {
		return nil
	}
	p.ep = sq
	return nil
}

// FEN returns the position in Forsyth–Edwards Notation. Castling rights are
// written KQkq, except in Chess960 where a right whose rook is not the
// outermost one on its side is written as the rook's file (Shredder style);
// FEN(ParseFEN(s)) == s for any FEN written in that style.
func (p *Position) FEN() string {
	var b strings.Builder
	b.Grow(90)
	for r := 7; r >= 0; r-- {
		empty := 0
		for f := 0; f < 8; f++ {
			pc := p.board[NewSquare(f, r)]
			if pc == NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteString(pc.String())
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	if p.side == White {
		b.WriteString(" w ")
	} else {
		b.WriteString(" b ")
	}
	b.WriteString(p.castlingString())
	b.WriteByte(' ')
	b.WriteString(p.ep.String())
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(int(p.halfmove)))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(int(p.fullmove)))
	return b.String()
}

func (p *Position) castlingString() string {
	if p.castling == 0 {
		return "-"
	}
	var out []byte
	for c := White; c <= Black; c++ {
		for _, right := range [2]int{2 * int(c), 2*int(c) + 1} {
			if p.castling&(1<<right) == 0 {
				continue
			}
			rsq := p.castleRook[right]
			back := rankBB(7 * int(c))
			ksq := p.KingSquare(c)
			rooks := p.Pieces(c, Rook) & back
			var letter byte
			if right%2 == 0 {
				letter = 'K'
				if rooks&aboveSquare(rsq)&back != 0 || rsq < ksq {
					letter = byte('A' + rsq.File())
				}
			} else {
				letter = 'Q'
				if rooks&belowSquare(rsq) != 0 || rsq > ksq {
					letter = byte('A' + rsq.File())
				}
			}
			if c == Black {
				letter += 'a' - 'A'
			}
			out = append(out, letter)
		}
	}
	return string(out)
}

// clip quotes s for an error message, cut to its first 32 bytes so that no
// error repeats a long input whole.
func clip(s string) string {
	if len(s) <= 32 {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:32]) + "…"
}
