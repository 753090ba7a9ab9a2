package board

import (
	"fmt"
	"strings"
)

// UCI returns m in UCI notation for this position: origin and destination
// squares plus a lower-case promotion letter ("e7e8q"). Castling is written
// as the king's two-square move ("e1g1") in standard chess and as king
// takes own rook ("e1h1") when p.Chess960 is set. NoMove and NullMove are
// "0000".
func (p *Position) UCI(m Move) string {
	if m == NoMove || m == NullMove {
		return "0000"
	}
	if m.IsCastling() && !p.Chess960 {
		kingTo, _ := castlingTargets(p.board[m.From()].Color(), m.From(), m.To())
		return m.From().String() + kingTo.String()
	}
	return m.String()
}

// ParseUCIMove returns the legal move written s in UCI notation. For
// castling it accepts the king's two-square move ("e1g1") and king takes
// own rook ("e1h1") in standard chess; with p.Chess960 set it accepts king
// takes rook, and the king's destination square only when no ordinary king
// move matches it.
func (p *Position) ParseUCIMove(s string) (Move, error) {
	if len(s) != 4 && len(s) != 5 {
		return NoMove, fmt.Errorf("bad UCI move %s: want 4 or 5 characters", clip(s))
	}
	from, err1 := ParseSquare(s[0:2])
	to, err2 := ParseSquare(s[2:4])
	if err1 != nil || err2 != nil {
		return NoMove, fmt.Errorf("bad UCI move %q: bad square", s)
	}
	promo := NoPieceType
	if len(s) == 5 {
		switch s[4] {
		case 'q', 'Q':
			promo = Queen
		case 'r', 'R':
			promo = Rook
		case 'b', 'B':
			promo = Bishop
		case 'n', 'N':
			promo = Knight
		default:
			return NoMove, fmt.Errorf("bad UCI move %q: bad promotion letter", s)
		}
	}
	var l MoveList
	p.GenerateLegal(&l)
	for _, m := range l.Slice() {
		if m.From() != from {
			continue
		}
		if m.IsCastling() {
			kingTo, _ := castlingTargets(p.side, m.From(), m.To())
			if promo == NoPieceType && (m.To() == to || (kingTo == to && !p.Chess960)) {
				return m, nil
			}
			continue
		}
		if m.To() == to && m.Promotion() == promo {
			return m, nil
		}
	}
	if p.Chess960 && promo == NoPieceType {
		found := NoMove
		for _, m := range l.Slice() {
			if !m.IsCastling() || m.From() != from {
				continue
			}
			if kingTo, _ := castlingTargets(p.side, m.From(), m.To()); kingTo == to {
				if found != NoMove {
					found = NoMove
					break
				}
				found = m
			}
		}
		if found != NoMove {
			return found, nil
		}
	}
	return NoMove, fmt.Errorf("illegal move %q in %s", s, p.FEN())
}

var pieceLetters = [7]byte{0, 'P', 'N', 'B', 'R', 'Q', 'K'}

// SAN returns the legal move m in Standard Algebraic Notation: "Nbd7",
// "exd6", "e8=Q+", "O-O-O#", with file, rank or full-square
// disambiguation only when another piece of the same type could move to
// the same square. NoMove and NullMove are "--".
func (p *Position) SAN(m Move) string {
	if m == NoMove || m == NullMove {
		return "--"
	}
	from, to := m.From(), m.To()
	pt := p.board[from].Type()
	var l MoveList
	buf := make([]byte, 0, 8)
	switch {
	case m.IsCastling():
		if to > from {
			buf = append(buf, "O-O"...)
		} else {
			buf = append(buf, "O-O-O"...)
		}
	case pt == Pawn:
		if p.IsCapture(m) {
			buf = append(buf, byte('a'+from.File()), 'x')
		}
		buf = append(buf, to.String()...)
		if m.IsPromotion() {
			buf = append(buf, '=', pieceLetters[m.Promotion()])
		}
	default:
		buf = append(buf, pieceLetters[pt])
		p.GenerateLegal(&l)
		var others Bitboard
		for _, o := range l.Slice() {
			if o.To() == to && o.From() != from && !o.IsCastling() && p.board[o.From()].Type() == pt {
				others |= SquareBB(o.From())
			}
		}
		if others != 0 {
			switch {
			case others&fileBB(from.File()) == 0:
				buf = append(buf, byte('a'+from.File()))
			case others&rankBB(from.Rank()) == 0:
				buf = append(buf, byte('1'+from.Rank()))
			default:
				buf = append(buf, from.String()...)
			}
		}
		if p.IsCapture(m) {
			buf = append(buf, 'x')
		}
		buf = append(buf, to.String()...)
	}
	var child Position
	p.MakeMove(m, &child)
	if child.InCheck() {
		l.N = 0
		child.GenerateLegal(&l)
		if l.N == 0 {
			buf = append(buf, '#')
		} else {
			buf = append(buf, '+')
		}
	}
	return string(buf)
}

// ParseSAN returns the legal move written s in Standard Algebraic
// Notation. It is tolerant: it ignores trailing check, mate and annotation
// marks (+ # ! ?), accepts castling as O-O or 0-0, captures with or
// without "x", promotions as "e8=Q" or "e8Q", and extra disambiguation
// ("Ng1f3", "Ng1-f3"). A pawn move without an origin file ("d5") is a push.
func (p *Position) ParseSAN(s string) (Move, error) {
	orig := s
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, "+#!?")
	s = strings.TrimSuffix(s, "e.p.")
	s = strings.TrimSpace(s)
	if s == "" {
		return NoMove, fmt.Errorf("bad SAN move %q", orig)
	}
	var l MoveList
	p.GenerateLegal(&l)
	switch s {
	case "O-O", "0-0", "O-O-O", "0-0-0":
		long := len(s) == 5
		for _, m := range l.Slice() {
			if m.IsCastling() && (m.To() < m.From()) == long {
				return m, nil
			}
		}
		return NoMove, fmt.Errorf("illegal move %q: cannot castle that way in %s", orig, p.FEN())
	}

	pt := Pawn
	if i := strings.IndexByte("NBRQK", s[0]); i >= 0 {
		pt = PieceType(i + 2)
		s = s[1:]
	}
	promo := NoPieceType
	if i := strings.IndexByte(s, '='); i >= 0 {
		if i != len(s)-2 {
			return NoMove, fmt.Errorf("bad SAN move %q: bad promotion", orig)
		}
		promo = promotionType(s[i+1])
		if promo == NoPieceType {
			return NoMove, fmt.Errorf("bad SAN move %q: bad promotion piece", orig)
		}
		s = s[:i]
	} else if pt == Pawn && len(s) >= 3 && s[len(s)-2] >= '1' && s[len(s)-2] <= '8' {
		if promo = promotionType(s[len(s)-1]); promo != NoPieceType {
			s = s[:len(s)-1]
		}
	}
	if len(s) < 2 {
		return NoMove, fmt.Errorf("bad SAN move %q", orig)
	}
	to, err := ParseSquare(s[len(s)-2:])
	if err != nil {
		return NoMove, fmt.Errorf("bad SAN move %q: no destination square", orig)
	}
	fromFile, fromRank := -1, -1
	for _, ch := range []byte(s[:len(s)-2]) {
		switch {
		case ch >= 'a' && ch <= 'h' && fromFile < 0:
			fromFile = int(ch - 'a')
		case ch >= '1' && ch <= '8' && fromRank < 0:
			fromRank = int(ch - '1')
		case ch == 'x' || ch == ':' || ch == '-':
		default:
			return NoMove, fmt.Errorf("bad SAN move %q", orig)
		}
	}
	if pt == Pawn && fromFile < 0 {
		fromFile = to.File()
	}
	found := NoMove
	for _, m := range l.Slice() {
		from := m.From()
		if m.IsCastling() || m.To() != to || p.board[from].Type() != pt || m.Promotion() != promo ||
			(fromFile >= 0 && from.File() != fromFile) || (fromRank >= 0 && from.Rank() != fromRank) {
			continue
		}
		if found != NoMove {
			return NoMove, fmt.Errorf("ambiguous move %q in %s", orig, p.FEN())
		}
		found = m
	}
	if found == NoMove {
		return NoMove, fmt.Errorf("illegal move %q in %s", orig, p.FEN())
	}
	return found, nil
}

func promotionType(ch byte) PieceType {
	switch ch {
	case 'Q', 'q':
		return Queen
	case 'R', 'r':
		return Rook
	case 'B', 'b':
		return Bishop
	case 'N', 'n':
		return Knight
	}
	return NoPieceType
}

// ParseMove returns the legal move written s in UCI notation or, failing
// that, in SAN: for input from people and from tools that may use either.
func (p *Position) ParseMove(s string) (Move, error) {
	if m, err := p.ParseUCIMove(s); err == nil {
		return m, nil
	}
	m, err := p.ParseSAN(s)
	if err != nil {
		return NoMove, fmt.Errorf("move %q is neither a legal UCI nor SAN move: %w", s, err)
	}
	return m, nil
}
