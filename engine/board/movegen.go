package board

// Generation modes.
const (
	genCaptures = 1 << iota // captures, en passant and all promotions
	genQuiets               // non-captures that are not promotions, castling
	genAll      = genCaptures | genQuiets
)

// GenerateLegal appends every legal move to l.
func (p *Position) GenerateLegal(l *MoveList) { p.generate(l, genAll, nil) }

// GenerateCaptures appends the legal captures, en passant captures and
// promotions (including quiet promotions and under-promotions) to l: the
// moves a quiescence search looks at.
func (p *Position) GenerateCaptures(l *MoveList) { p.generate(l, genCaptures, nil) }

// GenerateQuiets appends the legal moves GenerateCaptures leaves out:
// non-capturing, non-promoting moves, castling included.
func (p *Position) GenerateQuiets(l *MoveList) { p.generate(l, genQuiets, nil) }

// GenerateQuietChecks appends the moves of GenerateQuiets that give check,
// with ci filled by p.SetCheckInfo. Knights, sliders and the king are only
// generated where they could check (their checking squares, or anywhere if
// they uncover a check); pawn moves and castling are filtered afterwards.
func (p *Position) GenerateQuietChecks(l *MoveList, ci *CheckInfo) {
	start := l.N
	p.generate(l, genQuiets, ci)
	n := start
	for _, m := range l.Moves[start:l.N] {
		if p.GivesCheckWith(m, ci) {
			l.Moves[n] = m
			n++
		}
	}
	l.N = n
}

// pinned returns c's pieces pinned to c's king.
func (p *Position) pinned(c Color) Bitboard {
	ksq := p.KingSquare(c)
	them := p.byColor[c.Other()]
	snipers := (RookAttacks(ksq, 0) & them & (p.byType[Rook] | p.byType[Queen])) |
		(BishopAttacks(ksq, 0) & them & (p.byType[Bishop] | p.byType[Queen]))
	var pinned Bitboard
	occ := p.byType[0]
	for snipers != 0 {
		s := snipers.PopLSB()
		b := Between(ksq, s) & occ
		if b != 0 && !b.more() {
			pinned |= b & p.byColor[c]
		}
	}
	return pinned
}

func shift(b Bitboard, d int) Bitboard {
	if d > 0 {
		return b << uint(d)
	}
	return b >> uint(-d)
}

// generate appends the legal moves of mode. A non-nil ci narrows the
// targets of pieces that cannot uncover a check to their checking squares
// (GenerateQuietChecks filters the rest).
func (p *Position) generate(l *MoveList, mode int, ci *CheckInfo) {
	us, them := p.side, p.side.Other()
	own, enemy := p.byColor[us], p.byColor[them]
	occ := p.byType[0]
	ksq := p.KingSquare(us)

	// King steps.
	var kt Bitboard
	if mode&genCaptures != 0 {
		kt |= enemy
	}
	if mode&genQuiets != 0 {
		kt |= ^occ
	}
	if ci != nil && !ci.discoverers.Has(ksq) {
		kt = 0
	}
	occNoKing := occ ^ SquareBB(ksq)
	for b := KingAttacks(ksq) & kt; b != 0; {
		to := b.PopLSB()
		if !p.attacked(to, them, occNoKing) {
			l.add(NewMove(ksq, to))
		}
	}
	if p.checkers.more() {
		return // double check: only the king moves
	}

	evCap, evQuiet := enemy, ^occ
	if p.checkers != 0 {
		evCap = p.checkers
		evQuiet &= Between(ksq, p.checkers.LSB())
	}
	var capMask, quietMask, promoPushMask Bitboard
	if mode&genCaptures != 0 {
		capMask = evCap
		promoPushMask = evQuiet
	}
	if mode&genQuiets != 0 {
		quietMask = evQuiet
	}
	pinned := p.pinned(us)

	// Pawns.
	pawns := p.Pieces(us, Pawn)
	up, upLeft, upRight := 8, 7, 9
	promoFrom, doubleRank := rank7, rank3
	if us == Black {
		up, upLeft, upRight = -8, -9, -7
		promoFrom, doubleRank = rank2, rank6
	}
	empty := ^occ
	normal := pawns &^ promoFrom
	promo := pawns & promoFrom

	if quietMask != 0 {
		single := shift(normal, up) & empty
		double := shift(single&doubleRank, up) & quietMask
		addPawnMoves(l, single&quietMask, up, pinned, ksq, false)
		addPawnMoves(l, double, 2*up, pinned, ksq, false)
	}
	if capMask != 0 {
		addPawnMoves(l, shift(normal&^fileA, upLeft)&capMask, upLeft, pinned, ksq, false)
		addPawnMoves(l, shift(normal&^fileH, upRight)&capMask, upRight, pinned, ksq, false)
	}
	if promo != 0 && mode&genCaptures != 0 {
		addPawnMoves(l, shift(promo, up)&promoPushMask, up, pinned, ksq, true)
		addPawnMoves(l, shift(promo&^fileA, upLeft)&capMask, upLeft, pinned, ksq, true)
		addPawnMoves(l, shift(promo&^fileH, upRight)&capMask, upRight, pinned, ksq, true)
	}
	if p.ep != NoSquare && mode&genCaptures != 0 {
		for b := PawnAttacks(them, p.ep) & normal; b != 0; {
			from := b.PopLSB()
			if p.epLegal(from, p.ep, ksq) {
				l.add(NewEnPassant(from, p.ep))
			}
		}
	}

	// Knights, bishops, rooks, queens.
	targets := capMask | quietMask
	if targets != 0 {
		for b := p.byType[Knight] & own &^ pinned; b != 0; {
			from := b.PopLSB()
			t := targets
			if ci != nil && !ci.discoverers.Has(from) {
				t &= ci.checkSquares[Knight]
			}
			for a := KnightAttacks(from) & t; a != 0; {
				l.add(NewMove(from, a.PopLSB()))
			}
		}
		for b := (p.byType[Bishop] | p.byType[Queen]) & own; b != 0; {
			from := b.PopLSB()
			p.addSliderMoves(l, from, BishopAttacks(from, occ)&targets, ci, pinned, ksq)
		}
		for b := (p.byType[Rook] | p.byType[Queen]) & own; b != 0; {
			from := b.PopLSB()
			p.addSliderMoves(l, from, RookAttacks(from, occ)&targets, ci, pinned, ksq)
		}
	}

	// Castling.
	if mode&genQuiets != 0 && p.checkers == 0 {
		rights := p.castling >> (2 * us) & 3
		for i := 0; i < 2; i++ {
			if rights&(1<<i) == 0 {
				continue
			}
			rsq := p.castleRook[2*int(us)+i]
			if p.canCastle(us, ksq, rsq) {
				l.add(NewCastling(ksq, rsq))
			}
		}
	}
}

// addSliderMoves adds the moves of the slider on from to the squares a:
// with ci (quiet checks only), those that give check unless the piece
// discovers one; for a pinned piece, those along its pin line.
func (p *Position) addSliderMoves(l *MoveList, from Square, a Bitboard, ci *CheckInfo, pinned Bitboard, ksq Square) {
	if ci != nil && !ci.discoverers.Has(from) {
		a &= ci.checkSquares[p.board[from].Type()]
	}
	if pinned.Has(from) {
		a &= Line(ksq, from)
	}
	for a != 0 {
		l.add(NewMove(from, a.PopLSB()))
	}
}

// addPawnMoves adds a pawn move to each square of targets from the square
// d behind it (the four promotions when promote is set), leaving out a
// pinned pawn's move off the line through its king (on ksq).
func addPawnMoves(l *MoveList, targets Bitboard, d int, pinned Bitboard, ksq Square, promote bool) {
	for targets != 0 {
		to := targets.PopLSB()
		from := Square(int(to) - d)
		if pinned.Has(from) && !Line(ksq, from).Has(to) {
			continue
		}
		if promote {
			addPromotions(l, from, to)
		} else {
			l.add(NewMove(from, to))
		}
	}
}

func addPromotions(l *MoveList, from, to Square) {
	l.add(NewPromotion(from, to, Queen))
	l.add(NewPromotion(from, to, Knight))
	l.add(NewPromotion(from, to, Rook))
	l.add(NewPromotion(from, to, Bishop))
}

// epLegal reports whether the en passant capture from→to leaves the own
// king (on ksq) safe. It plays the capture on the occupancy and looks for
// any attacker, which covers pins along ranks and diagonals as well as
// checks the capture does not answer.
func (p *Position) epLegal(from, to, ksq Square) bool {
	us, them := p.side, p.side.Other()
	capSq := to ^ 8
	occ := p.byType[0] ^ SquareBB(from) ^ SquareBB(capSq) | SquareBB(to)
	enemy := p.byColor[them]
	if RookAttacks(ksq, occ)&enemy&(p.byType[Rook]|p.byType[Queen]) != 0 {
		return false
	}
	if BishopAttacks(ksq, occ)&enemy&(p.byType[Bishop]|p.byType[Queen]) != 0 {
		return false
	}
	if KnightAttacks(ksq)&enemy&p.byType[Knight] != 0 {
		return false
	}
	return PawnAttacks(us, ksq)&enemy&p.byType[Pawn]&^SquareBB(capSq) == 0
}

// canCastle reports whether c (not in check) may castle with the rook on
// rsq: the squares both pieces cross or land on are empty apart from the
// two of them, and no square the king crosses or lands on is attacked.
func (p *Position) canCastle(c Color, ksq, rsq Square) bool {
	kingTo, rookTo := castlingTargets(c, ksq, rsq)
	occ := p.byType[0] ^ SquareBB(ksq) ^ SquareBB(rsq)
	kingPath := Between(ksq, kingTo) | SquareBB(kingTo)
	if (kingPath|Between(rsq, rookTo)|SquareBB(rookTo))&occ != 0 {
		return false
	}
	them := c.Other()
	for kingPath != 0 {
		if p.attacked(kingPath.PopLSB(), them, occ) {
			return false
		}
	}
	return true
}

// IsCapture reports whether m captures (en passant included). Castling is
// never a capture.
func (p *Position) IsCapture(m Move) bool {
	switch m & moveKindMask {
	case moveEnPassant:
		return true
	case moveCastling:
		return false
	}
	return p.board[m.To()] != NoPiece
}

// IsLegal reports whether m is a legal move in p. It accepts any Move
// value (from a transposition table, killer slot or user input) and is
// false for NoMove, NullMove and values no generator produces. It checks
// the move directly, without generating the move list.
func (p *Position) IsLegal(m Move) bool {
	if m>>17 != 0 {
		return false
	}
	from, to := m.From(), m.To()
	us, them := p.side, p.side.Other()
	pc := p.board[from]
	if pc == NoPiece || pc.Color() != us || from == to {
		return false
	}
	kind := m & moveKindMask
	if kind != movePromotion && m&(7<<12) != 0 {
		return false
	}
	ksq := p.KingSquare(us)
	occ := p.byType[0]
	switch kind {
	case moveCastling:
		if pc.Type() != King || p.checkers != 0 {
			return false
		}
		for i := 0; i < 2; i++ {
			right := 2*int(us) + i
			if p.castling&(1<<right) != 0 && p.castleRook[right] == to {
				return p.canCastle(us, from, to)
			}
		}
		return false
	case moveEnPassant:
		return pc.Type() == Pawn && to == p.ep && PawnAttacks(us, from).Has(to) && p.epLegal(from, to, ksq)
	}
	if p.byColor[us].Has(to) {
		return false
	}
	pt := pc.Type()
	switch pt {
	case Pawn:
		lastRank := to.Rank() == 7 || to.Rank() == 0
		if (kind == movePromotion) != lastRank {
			return false
		}
		if kind == movePromotion {
			if promo := m.Promotion(); promo < Knight || promo > Queen {
				return false
			}
		}
		up := 8
		if us == Black {
			up = -8
		}
		switch {
		case PawnAttacks(us, from).Has(to):
			if !p.byColor[them].Has(to) {
				return false
			}
		case int(to) == int(from)+up:
			if occ.Has(to) {
				return false
			}
		case int(to) == int(from)+2*up:
			if from.Rank() != 1+5*int(us) || occ.Has(to) || occ.Has(Square(int(from)+up)) {
				return false
			}
		default:
			return false
		}
	case King:
		return kind == moveNormal && KingAttacks(from).Has(to) && !p.attacked(to, them, occ^SquareBB(from))
	default:
		if kind != moveNormal || !p.pieceAttacks(pt, from, occ).Has(to) {
			return false
		}
	}
	// A non-king move: it must answer any check and not expose the king.
	if p.checkers != 0 {
		if p.checkers.more() || !(p.checkers | Between(ksq, p.checkers.LSB())).Has(to) {
			return false
		}
	}
	if Line(ksq, from) == 0 {
		return true
	}
	occ2 := occ ^ SquareBB(from) | SquareBB(to)
	enemy := p.byColor[them] &^ SquareBB(to)
	return RookAttacks(ksq, occ2)&enemy&(p.byType[Rook]|p.byType[Queen]) == 0 &&
		BishopAttacks(ksq, occ2)&enemy&(p.byType[Bishop]|p.byType[Queen]) == 0
}

// pieceAttacks returns the attacks of a knight, bishop, rook, queen or king
// of type pt standing on sq.
func (p *Position) pieceAttacks(pt PieceType, sq Square, occ Bitboard) Bitboard {
	switch pt {
	case Knight:
		return KnightAttacks(sq)
	case Bishop:
		return BishopAttacks(sq, occ)
	case Rook:
		return RookAttacks(sq, occ)
	case Queen:
		return QueenAttacks(sq, occ)
	case King:
		return KingAttacks(sq)
	}
	return 0
}

// GivesCheck reports whether the legal move m gives check, directly or by
// discovery, without making it.
func (p *Position) GivesCheck(m Move) bool {
	kind := m & moveKindMask
	if kind == moveCastling || kind == moveEnPassant {
		var child Position
		p.MakeMove(m, &child)
		return child.checkers != 0
	}
	us := p.side
	from, to := m.From(), m.To()
	ksq := p.KingSquare(us.Other())
	occ := p.byType[0] ^ SquareBB(from) | SquareBB(to)
	pt := p.board[from].Type()
	if kind == movePromotion {
		pt = m.Promotion()
	}
	switch pt {
	case Pawn:
		if PawnAttacks(us, to).Has(ksq) {
			return true
		}
	case King:
	default:
		if p.pieceAttacks(pt, to, occ).Has(ksq) {
			return true
		}
	}
	// Discovered check: one of our sliders sees the king once from is empty.
	if Line(ksq, from) == 0 {
		return false
	}
	own := p.byColor[us] &^ SquareBB(from)
	return RookAttacks(ksq, occ)&own&(p.byType[Rook]|p.byType[Queen]) != 0 ||
		BishopAttacks(ksq, occ)&own&(p.byType[Bishop]|p.byType[Queen]) != 0
}

// CheckInfo holds what GivesCheckWith needs to know about a position, so
// that a search asking about many moves of one position computes it once.
type CheckInfo struct {
	checkSquares [8]Bitboard // by piece type: squares from which it would attack the enemy king
	discoverers  Bitboard    // own pieces that alone block an own slider's line to the enemy king
	ksq          Square      // the enemy king
}

// SetCheckInfo fills ci for p.
func (p *Position) SetCheckInfo(ci *CheckInfo) {
	us, them := p.side, p.side.Other()
	ksq := p.KingSquare(them)
	occ := p.byType[0]
	own := p.byColor[us]
	ci.ksq = ksq
	ci.checkSquares[Pawn] = PawnAttacks(them, ksq)
	ci.checkSquares[Knight] = KnightAttacks(ksq)
	ci.checkSquares[Bishop] = BishopAttacks(ksq, occ)
	ci.checkSquares[Rook] = RookAttacks(ksq, occ)
	ci.checkSquares[Queen] = ci.checkSquares[Bishop] | ci.checkSquares[Rook]
	snipers := own & ((RookAttacks(ksq, 0) & (p.byType[Rook] | p.byType[Queen])) |
		(BishopAttacks(ksq, 0) & (p.byType[Bishop] | p.byType[Queen])))
	var disc Bitboard
	for snipers != 0 {
		b := Between(ksq, snipers.PopLSB()) & occ
		if b != 0 && !b.more() {
			disc |= b & own
		}
	}
	ci.discoverers = disc
}

// GivesCheckWith is GivesCheck for a legal move m of p, with ci filled by
// p.SetCheckInfo: the same answer, cheaper for ordinary moves.
func (p *Position) GivesCheckWith(m Move, ci *CheckInfo) bool {
	if m&moveKindMask != moveNormal {
		return p.GivesCheck(m)
	}
	// An ordinary move checks directly when the piece attacks the king from
	// its new square: the squares it would check from are those the king
	// would attack as that piece, with the board as it is (in a legal
	// position the vacated square cannot lie between: the piece would
	// already be giving check). Or it uncovers a slider, when it alone
	// blocked that slider's line and leaves the line.
	from, to := m.From(), m.To()
	if ci.checkSquares[p.board[from]&7].Has(to) {
		return true
	}
	return ci.discoverers.Has(from) && !Line(ci.ksq, from).Has(to)
}
