package engine

import "github.com/ponderosa-chess/ponderosa/engine/board"

// Picker stages.
const (
	stageTT = iota
	stageGenCaptures
	stageGoodCaptures
	stageKiller1
	stageKiller2
	stageCounter
	stageGenQuiets
	stageQuiets
	stageBadCaptures
	stageDone
)

// picker hands out moves one at a time in a good order, generating lazily.
// In quiescence mode (qs) only captures and promotions are produced, and
// with qsChecks then the quiet moves that give check.
type picker struct {
	pos                       *board.Position
	hist                      *history
	cont1, cont2              *contTable
	stage                     int
	qs                        bool
	qsChecks                  bool // in qs mode, also quiet moves that give check
	ciOK                      bool // ci is filled for pos
	ci                        board.CheckInfo
	tt, killer1, killer2, ctr board.Move

	// gen receives the generated moves of a stage; list holds them with
	// their scores, list[idx:n] still to be picked. Captures and quiets
	// share list: the good captures are all handed out (and the bad ones
	// moved to bad) before the quiets are generated.
	gen    board.MoveList
	list   [board.MaxMoves]scoredMove
	n, idx int

	bad        [board.MaxMoves]board.Move
	nBad, bIdx int
}

// scoredMove is a move with its ordering score, kept side by side so the
// selection scan reads one array.
type scoredMove struct {
	move  board.Move
	score int32
}

func (p *picker) init(pos *board.Position, tt board.Move, killers [2]board.Move, counter board.Move, qs bool,
	h *history, cont1, cont2 *contTable) {
	p.pos, p.hist, p.cont1, p.cont2 = pos, h, cont1, cont2
	p.stage = stageTT
	p.qs = qs
	p.qsChecks = false
	p.ciOK = false
	p.tt = tt
	p.killer1, p.killer2, p.ctr = killers[0], killers[1], counter
	p.n, p.idx, p.nBad, p.bIdx = 0, 0, 0, 0
	if qs && tt != board.NoMove && !pos.IsCapture(tt) && !tt.IsPromotion() {
		p.tt = board.NoMove
	}
}

// seeValue are piece values for SEE, MVV-LVA and delta pruning.
var seeValue = [8]int{0, 100, 320, 330, 500, 950, 20000, 0}

// next returns the next move, or NoMove when there are no more.
func (p *picker) next() board.Move {
	for {
		switch p.stage {
		case stageTT:
			p.stage++
			if p.tt != board.NoMove {
				return p.tt
			}
		case stageGenCaptures:
			p.gen.N = 0
			p.pos.GenerateCaptures(&p.gen)
			moves := p.gen.Slice()
			list := p.list[:len(moves)]
			for i, m := range moves {
				victim := capturedType(p.pos, m)
				pc := p.pos.PieceAt(m.From())
				s := int32(seeValue[victim])*16 + int32(p.hist.capture[pc][m.To()][victim])/8
				if m.IsPromotion() {
					s += int32(seeValue[m.Promotion()]) * 16
				}
				list[i] = scoredMove{m, s}
			}
			p.n, p.idx = len(moves), 0
			p.stage++
		case stageGoodCaptures:
			for p.idx < p.n {
				m := pickBest(p.list[p.idx:p.n])
				p.idx++
				if m == p.tt {
					continue
				}
				if !p.qs && !see(p.pos, m, 0) {
					p.bad[p.nBad] = m
					p.nBad++
					continue
				}
				return m
			}
			if p.qs && p.qsChecks {
				p.stage = stageGenQuiets
			} else if p.qs {
				p.stage = stageDone
			} else {
				p.stage++
			}
		case stageKiller1:
			p.stage++
			if p.usableQuiet(p.killer1) {
				return p.killer1
			}
		case stageKiller2:
			p.stage++
			if p.killer2 != p.killer1 && p.usableQuiet(p.killer2) {
				return p.killer2
			}
		case stageCounter:
			p.stage++
			if p.ctr != p.killer1 && p.ctr != p.killer2 && p.usableQuiet(p.ctr) {
				return p.ctr
			}
		case stageGenQuiets:
			p.genQuiets()
		case stageQuiets:
			for p.idx < p.n {
				m := pickBest(p.list[p.idx:p.n])
				p.idx++
				if m == p.tt || m == p.killer1 || m == p.killer2 || m == p.ctr {
					continue
				}
				return m
			}
			p.stage++
		case stageBadCaptures:
			for p.bIdx < p.nBad {
				m := p.bad[p.bIdx]
				p.bIdx++
				if m != p.tt {
					return m
				}
			}
			p.stage++
		default:
			return board.NoMove
		}
	}
}

// genQuiets generates and scores the quiet moves and moves on to
// stageQuiets.
func (p *picker) genQuiets() {
	p.gen.N = 0
	if p.qs {
		p.pos.GenerateQuietChecks(&p.gen, p.checkInfo())
	} else {
		p.pos.GenerateQuiets(&p.gen)
	}
	moves := p.gen.Slice()
	list := p.list[:len(moves)]
	us := p.pos.SideToMove()
	for i, m := range moves {
		list[i] = scoredMove{m, int32(p.hist.quietScore(us, p.pos.PieceAt(m.From()), m, p.cont1, p.cont2))}
	}
	p.n, p.idx = len(moves), 0
	p.stage = stageQuiets
}

// checkInfo returns the position's check information, computing it on the
// first call at a node.
func (p *picker) checkInfo() *board.CheckInfo {
	if !p.ciOK {
		p.pos.SetCheckInfo(&p.ci)
		p.ciOK = true
	}
	return &p.ci
}

// givesCheck reports whether the legal move m gives check.
func (p *picker) givesCheck(m board.Move) bool { return p.pos.GivesCheckWith(m, p.checkInfo()) }

// atQuiets reports whether the next move comes from the quiet stage:
// killers and counter move have been handed out, quiets remain.
func (p *picker) atQuiets() bool { return p.stage == stageGenQuiets || p.stage == stageQuiets }

// dropQuiets serves late-move pruning. The caller has found that every
// quiet move still to come will be pruned unless it gives check. dropQuiets
// skips the quiet moves that would come next, up to the first one that
// gives check (or all of them), and returns how many it skipped, not
// counting excluded, which the search skips uncounted. The moves after them
// come in the same order as without it; the search only adds the count to
// its move counter instead of picking the moves one by one.
func (p *picker) dropQuiets(excluded board.Move) int {
	if p.stage == stageGenQuiets {
		p.genQuiets()
	}
	if p.stage != stageQuiets {
		return 0
	}
	skipped := func(m board.Move) bool {
		return m == p.tt || m == p.killer1 || m == p.killer2 || m == p.ctr || m == excluded
	}
	// Usually no quiet move left gives check: drop them all.
	n := 0
	for _, sm := range p.list[p.idx:p.n] {
		if skipped(sm.move) {
			continue
		}
		if p.givesCheck(sm.move) {
			n = -1
			break
		}
		n++
	}
	if n >= 0 {
		p.idx = p.n
		p.stage = stageBadCaptures
		return n
	}
	// Else pick them in order up to the first check. That one stays in
	// front: pickBest hands it out again, as the first of the best.
	n = 0
	for p.idx < p.n {
		m := pickBest(p.list[p.idx:p.n])
		if skipped(m) {
			p.idx++
			continue
		}
		if p.givesCheck(m) {
			break
		}
		p.idx++
		n++
	}
	return n
}

// usableQuiet reports whether a killer/counter move may be tried here.
func (p *picker) usableQuiet(m board.Move) bool {
	return m != board.NoMove && m != p.tt && !m.IsPromotion() && p.pos.IsLegal(m) && !p.pos.IsCapture(m)
}

// pickBest swaps the best-scored move of l (the first of equals) into l[0]
// and returns it. l must not be empty.
func pickBest(l []scoredMove) board.Move {
	// Written so the compiler uses conditional moves: the comparison
	// outcome is data, not a branch to predict.
	best, bs := 0, l[0].score
	for j, sm := range l {
		gt := -b2i(sm.score > bs) // all ones when sm is better
		best ^= (best ^ j) & gt
		bs = max(bs, sm.score)
	}
	l[0], l[best] = l[best], l[0]
	return l[0].move
}

// see reports whether the static exchange evaluation of m is at least
// threshold (in centipawns), considering x-ray attackers. Pins are ignored.
func see(pos *board.Position, m board.Move, threshold int) bool {
	if m.IsCastling() {
		return threshold <= 0
	}
	from, to := m.From(), m.To()
	victim := capturedType(pos, m)
	swap := seeValue[victim] - threshold
	if m.IsPromotion() {
		swap += seeValue[m.Promotion()] - seeValue[board.Pawn]
	}
	if swap < 0 {
		return false
	}
	mover := pos.PieceAt(from).Type()
	if m.IsPromotion() {
		mover = m.Promotion()
	}
	swap = seeValue[mover] - swap
	if swap <= 0 {
		return true
	}
	occ := pos.Occupied() ^ board.SquareBB(from) ^ board.SquareBB(to)
	if m.IsEnPassant() {
		capSq := board.Square(int(to) ^ 8)
		occ ^= board.SquareBB(capSq)
	}
	stm := pos.SideToMove()
	attackers := pos.AttackersTo(to, occ) & occ
	bishops := pos.ByType(board.Bishop) | pos.ByType(board.Queen)
	rooks := pos.ByType(board.Rook) | pos.ByType(board.Queen)
	res := 1
	for {
		stm = stm.Other()
		attackers &= occ
		mine := attackers & pos.ByColor(stm)
		if mine == 0 {
			break
		}
		res ^= 1
		var pt board.PieceType
		var bb board.Bitboard
		for pt = board.Pawn; pt <= board.King; pt++ {
			bb = mine & pos.ByType(pt)
			if bb != 0 {
				break
			}
		}
		if pt == board.King {
			if attackers&^pos.ByColor(stm) != 0 {
				return res^1 != 0
			}
			return res != 0
		}
		swap = seeValue[pt] - swap
		if swap < res {
			break
		}
		occ ^= board.SquareBB(bb.LSB())
		switch pt {
		case board.Pawn, board.Bishop:
			attackers |= board.BishopAttacks(to, occ) & bishops
		case board.Rook:
			attackers |= board.RookAttacks(to, occ) & rooks
		case board.Queen:
			attackers |= (board.BishopAttacks(to, occ) & bishops) | (board.RookAttacks(to, occ) & rooks)
		}
	}
	return res != 0
}
