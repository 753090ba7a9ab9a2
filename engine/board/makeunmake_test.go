package board

import "testing"

// This file holds the make/unmake alternative to copy-make, kept only to
// measure the two against each other (BenchmarkPerftMakeUnmake vs
// BenchmarkPerftStart5). Copy-make won; see the README figures.

type undoInfo struct {
	captured           Piece
	castling           uint8
	ep                 Square
	halfmove, fullmove int32
	key, pawnKey       uint64
	checkers           Bitboard
}

// doMove plays m on p in place, saving what undoMove needs in u.
func (p *Position) doMove(m Move, u *undoInfo) {
	*u = undoInfo{castling: p.castling, ep: p.ep, halfmove: p.halfmove, fullmove: p.fullmove,
		key: p.key, pawnKey: p.pawnKey, checkers: p.checkers}
	us, them := p.side, p.side.Other()
	from, to := m.From(), m.To()
	pc := p.board[from]
	p.halfmove++
	if us == Black {
		p.fullmove++
	}
	p.key ^= zobristSide
	if p.ep != NoSquare {
		if p.epKeyed() {
			p.key ^= zobristEP[p.ep.File()]
		}
		p.ep = NoSquare
	}
	old := p.castling
	switch m & moveKindMask {
	case moveCastling:
		kingTo, rookTo := castlingTargets(us, from, to)
		rook := p.board[to]
		p.remove(from)
		p.remove(to)
		p.put(pc, kingTo)
		p.put(rook, rookTo)
		p.castling &^= uint8(whiteOO|whiteOOO) << (2 * us)
	default:
		if c := p.board[to]; c != NoPiece {
			u.captured = c
			p.remove(to)
			p.halfmove = 0
		}
		p.remove(from)
		if m.IsPromotion() {
			p.put(MakePiece(us, m.Promotion()), to)
		} else {
			p.put(pc, to)
		}
		if pc.Type() == Pawn {
			p.halfmove = 0
			switch {
			case m.IsEnPassant():
				p.remove(to ^ 8)
			case to^from == 16:
				ep := (from + to) / 2
				if PawnAttacks(us, ep)&p.Pieces(them, Pawn) != 0 {
					p.ep = ep
					p.key ^= zobristEP[ep.File()]
				}
			}
		} else if pc.Type() == King {
			p.castling &^= uint8(whiteOO|whiteOOO) << (2 * us)
		}
		if p.castling != 0 {
			for i := 0; i < 4; i++ {
				if p.castling&(1<<i) != 0 && (p.castleRook[i] == from || p.castleRook[i] == to) {
					p.castling &^= 1 << i
				}
			}
		}
	}
	if p.castling != old {
		p.key ^= zobristCastling[old] ^ zobristCastling[p.castling]
	}
	p.side = them
	p.checkers = p.AttackersTo(p.KingSquare(them), p.byType[0]) & p.byColor[us]
	if p.ep != NoSquare && !p.epKeyed() {
		p.key ^= zobristEP[p.ep.File()]
		p.ep = NoSquare
	}
}

// undoMove takes back m, played by doMove with u.
func (p *Position) undoMove(m Move, u *undoInfo) {
	us := p.side.Other()
	from, to := m.From(), m.To()
	switch m & moveKindMask {
	case moveCastling:
		kingTo, rookTo := castlingTargets(us, from, to)
		p.remove(kingTo)
		p.remove(rookTo)
		p.put(MakePiece(us, King), from)
		p.put(MakePiece(us, Rook), to)
	default:
		pc := p.board[to]
		p.remove(to)
		if m.IsPromotion() {
			pc = MakePiece(us, Pawn)
		}
		p.put(pc, from)
		if u.captured != NoPiece {
			p.put(u.captured, to)
		}
		if m.IsEnPassant() {
			p.put(MakePiece(us.Other(), Pawn), to^8)
		}
	}
	p.side = us
	p.castling, p.ep, p.halfmove, p.fullmove = u.castling, u.ep, u.halfmove, u.fullmove
	p.key, p.pawnKey, p.checkers = u.key, u.pawnKey, u.checkers
}

func (p *Position) perftMakeUnmake(depth int) uint64 {
	var l MoveList
	p.GenerateLegal(&l)
	if depth == 1 {
		return uint64(l.N)
	}
	var n uint64
	var u undoInfo
	for _, m := range l.Moves[:l.N] {
		p.doMove(m, &u)
		n += p.perftMakeUnmake(depth - 1)
		p.undoMove(m, &u)
	}
	return n
}

func TestMakeUnmakeMatches(t *testing.T) {
	for _, c := range readPerftEPD(t, "testdata/perft.epd")[:10] {
		p := mustFEN(t, c.fen)
		before := p
		if got := p.perftMakeUnmake(3); got != c.counts[2] {
			t.Errorf("%s: make/unmake perft(3) = %d, want %d", c.fen, got, c.counts[2])
		}
		if p != before {
			t.Errorf("%s: make/unmake did not restore the position", c.fen)
		}
	}
}

func BenchmarkPerftMakeUnmake(b *testing.B) {
	p := mustFEN(b, StartFEN)
	var nodes uint64
	for b.Loop() {
		if n := p.perftMakeUnmake(5); n != 4865609 {
			b.Fatalf("perft(5) = %d", n)
		}
		nodes += 4865609
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}
