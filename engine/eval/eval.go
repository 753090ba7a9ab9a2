// Package eval is Ponderosa's static evaluation: a hand-crafted tapered
// (middlegame/endgame) evaluation with material, piece-square tables,
// mobility, pawn structure (doubled, isolated, backward, phalanx, supported,
// passed pawns by rank with king proximity and free path), king safety
// (attacks on the king zone, safe checks, pawn shield, open files), bishop
// pair, rooks on open files and the seventh rank, outposts, threats,
// hanging pieces, tempo, and endgame scaling (opposite-coloured bishops,
// drawish material without pawns).
//
// Every term is linear in the weights of Params, so a Trace of feature
// counts reproduces the evaluation exactly (up to rounding); the Texel tuner
// in engine/eval/tune relies on that.
package eval

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Evaluator evaluates positions with a pawn-structure cache. It is not safe
// for concurrent use: each search thread owns one.
type Evaluator struct {
	params *Params
	pawns  []pawnEntry
}

const pawnTableSize = 1 << 14

type pawnEntry struct {
	key    uint64
	score  S // white's view
	passed board.Bitboard
	valid  bool
}

// NewEvaluator returns an evaluator using the Default weights.
func NewEvaluator() *Evaluator { return NewEvaluatorWith(playing) }

// NewEvaluatorWith returns an evaluator using weights p (not copied).
func NewEvaluatorWith(p *Params) *Evaluator {
	return &Evaluator{params: p, pawns: make([]pawnEntry, pawnTableSize)}
}

// Clear empties the pawn cache.
func (ev *Evaluator) Clear() { clear(ev.pawns) }

// Evaluate returns the evaluation of pos in centipawns from the side to
// move's point of view.
func (ev *Evaluator) Evaluate(pos *board.Position) int {
	return evaluate(pos, ev.params, ev, nil)
}

// Evaluate evaluates pos with the Default weights and no cache.
func Evaluate(pos *board.Position) int { return evaluate(pos, playing, nil, nil) }

// Trace is the feature vector of one position: for every weight, the number
// of times it applies for White minus for Black, plus the game phase and
// endgame scale used to blend them.
type Trace struct {
	Coef  [NumParams]int16
	Phase int // 0 (bare kings and pawns) .. 24 (all pieces)
	Scale int // endgame scale, out of 64
	Tempo int // +1 when White is to move, -1 for Black
}

// Features fills t for pos and returns the white-relative evaluation.
func Features(pos *board.Position, p *Params, t *Trace) int {
	*t = Trace{}
	v := evaluate(pos, p, nil, t)
	if pos.SideToMove() == board.Black {
		v = -v
	}
	return v
}

// Blend computes the white-relative evaluation from mg/eg sums the way
// evaluate does.
func Blend(mg, eg float64, phase, scale int) float64 {
	return (mg*float64(phase) + eg*float64(24-phase)*float64(scale)/64) / 24
}

type evalState struct {
	pos           *board.Position
	p             *Params
	tr            *Trace
	occ           board.Bitboard
	att           [2][7]board.Bitboard // [color][piece type], [c][0] = all
	att2          [2]board.Bitboard    // squares attacked at least twice
	zone          [2]board.Bitboard    // king zone of color
	kingAttackers [2]int               // pieces of color attacking the enemy zone
	kingAttackW   [2][7]int            // zone squares attacked, by attacker type
	sc            [2]S                 // each colour's terms; the score is White's minus Black's
}

// add adds n times weight idx for color c.
func (e *evalState) add(c board.Color, idx, n int) {
	e.sc[c&1] += e.p[idx] * S(n)
	if e.tr != nil {
		if c == board.White {
			e.tr.Coef[idx] += int16(n)
		} else {
			e.tr.Coef[idx] -= int16(n)
		}
	}
}

// score returns the sum so far from White's point of view.
func (e *evalState) score() S { return e.sc[board.White] - e.sc[board.Black] }

var (
	fileMasks     [8]board.Bitboard
	adjacentFiles [8]board.Bitboard
	forwardFile   [2][64]board.Bitboard // squares in front on the same file
	passedMask    [2][64]board.Bitboard // front span on own and adjacent files
	attackSpan    [2][64]board.Bitboard // squares in front on adjacent files
)

func init() {
	for f := 0; f < 8; f++ {
		for r := 0; r < 8; r++ {
			fileMasks[f] |= board.SquareBB(board.Square(r*8 + f))
		}
	}
	for f := 0; f < 8; f++ {
		if f > 0 {
			adjacentFiles[f] |= fileMasks[f-1]
		}
		if f < 7 {
			adjacentFiles[f] |= fileMasks[f+1]
		}
	}
	for sq := 0; sq < 64; sq++ {
		f, r := sq&7, sq>>3
		for rr := 0; rr < 8; rr++ {
			var row board.Bitboard
			for ff := max(0, f-1); ff <= min(7, f+1); ff++ {
				row |= board.SquareBB(board.Square(rr*8 + ff))
			}
			same := board.SquareBB(board.Square(rr*8 + f))
			if rr > r {
				forwardFile[0][sq] |= same
				passedMask[0][sq] |= row
				attackSpan[0][sq] |= row &^ same
			}
			if rr < r {
				forwardFile[1][sq] |= same
				passedMask[1][sq] |= row
				attackSpan[1][sq] |= row &^ same
			}
		}
	}
}

func relRank(c board.Color, sq board.Square) int {
	if c == board.White {
		return sq.Rank()
	}
	return 7 - sq.Rank()
}

func pawnAttacksBB(c board.Color, pawns board.Bitboard) board.Bitboard {
	const notA, notH = 0xfefefefefefefefe, 0x7f7f7f7f7f7f7f7f
	if c == board.White {
		return (pawns&notA)<<7 | (pawns&notH)<<9
	}
	return (pawns&notA)>>9 | (pawns&notH)>>7
}

func dist(a, b board.Square) int {
	df := a.File() - b.File()
	if df < 0 {
		df = -df
	}
	dr := a.Rank() - b.Rank()
	if dr < 0 {
		dr = -dr
	}
	return max(df, dr)
}

func evaluate(pos *board.Position, p *Params, ev *Evaluator, tr *Trace) int {
	e := evalState{pos: pos, p: p, tr: tr, occ: pos.Occupied()}
	for c := board.White; c <= board.Black; c++ {
		pawns := pos.Pieces(c, board.Pawn)
		e.att[c][board.Pawn] = pawnAttacksBB(c, pawns)
		ksq := pos.KingSquare(c)
		e.att[c][board.King] = board.KingAttacks(ksq)
		e.att2[c] = e.att[c][board.Pawn] & e.att[c][board.King]
		e.att[c][0] = e.att[c][board.Pawn] | e.att[c][board.King]
		zone := board.KingAttacks(ksq) | board.SquareBB(ksq)
		if c == board.White {
			zone |= zone << 8
		} else {
			zone |= zone >> 8
		}
		e.zone[c] = zone
	}

	// Pawn structure (cached by pawn key).
	var passed board.Bitboard
	if ev != nil && tr == nil {
		pe := &ev.pawns[pos.PawnKey()&(pawnTableSize-1)]
		if pe.valid && pe.key == pos.PawnKey() {
			e.sc[board.White] += pe.score
			passed = pe.passed
		} else {
			before := e.score()
			passed = e.pawnStructure()
			*pe = pawnEntry{key: pos.PawnKey(), score: e.score() - before, passed: passed, valid: true}
		}
	} else {
		passed = e.pawnStructure()
	}

	for c := board.White; c <= board.Black; c++ {
		e.pieces(c)
	}
	for c := board.White; c <= board.Black; c++ {
		e.kingSafety(c)
		e.threats(c)
		e.passedPawns(c, passed&pos.ByColor(c))
	}
	if pos.SideToMove() == board.White {
		e.add(board.White, IdxTempo, 1)
	} else {
		e.add(board.Black, IdxTempo, 1)
	}

	phase := pos.ByType(board.Knight).Count() + pos.ByType(board.Bishop).Count() +
		2*pos.ByType(board.Rook).Count() + 4*pos.ByType(board.Queen).Count()
	if phase > 24 {
		phase = 24
	}
	scale := e.endgameScale()
	if tr != nil {
		tr.Phase, tr.Scale = phase, scale
		tr.Tempo = 1
		if pos.SideToMove() == board.Black {
			tr.Tempo = -1
		}
	}
	score := e.score()
	v := (score.MG()*phase + score.EG()*(24-phase)*scale/64) / 24
	if pos.SideToMove() == board.Black {
		v = -v
	}
	return v
}

// pawnStructure scores pawns of both sides and returns the passed pawns.
func (e *evalState) pawnStructure() board.Bitboard {
	pos := e.pos
	var passed board.Bitboard
	for c := board.White; c <= board.Black; c++ {
		them := c.Other()
		ours := pos.Pieces(c, board.Pawn)
		theirs := pos.Pieces(them, board.Pawn)
		for b := ours; b != 0; {
			sq := b.PopLSB()
			f := sq.File()
			r := relRank(c, sq)
			e.add(c, IdxMaterial, 1)
			e.add(c, IdxPST+pstIndex(c, board.Pawn, sq), 1)
			if forwardFile[c][sq]&ours != 0 {
				e.add(c, IdxDoubled, 1)
			}
			neighbours := ours & adjacentFiles[f]
			if neighbours == 0 {
				e.add(c, IdxIsolated, 1)
			} else {
				if rankOf(sq)&neighbours != 0 {
					e.add(c, IdxPhalanx+r, 1)
				}
				if board.PawnAttacks(them, sq)&ours != 0 {
					e.add(c, IdxSupported+r, 1)
				} else if neighbours&^passedMask[c][sq] == 0 {
					// All neighbours are ahead: the pawn cannot be supported
					// by advancing them. Backward if its stop square is
					// attacked by an enemy pawn.
					stop := stopSquare(c, sq)
					if stop < 64 && board.PawnAttacks(c, board.Square(stop))&theirs != 0 {
						e.add(c, IdxBackward, 1)
					}
				}
			}
			if passedMask[c][sq]&theirs == 0 && forwardFile[c][sq]&ours == 0 {
				passed |= board.SquareBB(sq)
			}
		}
	}
	return passed
}

func rankOf(sq board.Square) board.Bitboard { return board.Bitboard(0xff) << (8 * uint(sq.Rank())) }

func stopSquare(c board.Color, sq board.Square) int {
	if c == board.White {
		return int(sq) + 8
	}
	return int(sq) - 8
}

func pstIndex(c board.Color, pt board.PieceType, sq board.Square) int {
	if c == board.Black {
		sq ^= 56
	}
	return (int(pt)-1)*64 + int(sq)
}

// attackAcc gathers one side's attack maps piece by piece: all squares
// attacked, those attacked twice, the current piece type's squares, and the
// attacks on the enemy king zone.
type attackAcc struct {
	zone, all, twice, typeAtt board.Bitboard
	attackers, kingW          int
}

// note adds one piece's attacks.
func (a *attackAcc) note(att board.Bitboard) {
	a.twice |= a.all & att
	a.all |= att
	a.typeAtt |= att
	if z := att & a.zone; z != 0 {
		a.attackers++
		a.kingW += z.Count()
	}
}

// flush returns the finished piece type's attack map and king-zone weight
// and starts the next type.
func (a *attackAcc) flush() (board.Bitboard, int) {
	att, w := a.typeAtt, a.kingW
	a.typeAtt, a.kingW = 0, 0
	return att, w
}

// pieces scores material, placement and mobility of c's pieces, and
// gathers attack maps. One loop per piece type; the attack maps are unions
// and the terms sums, so the order does not matter.
func (e *evalState) pieces(c board.Color) {
	pos := e.pos
	c &= 1
	them := c ^ 1
	own := pos.ByColor(c)
	area := ^(own | e.att[them][board.Pawn])
	theirPawns := pos.Pieces(them, board.Pawn)
	ourPawns := pos.Pieces(c, board.Pawn)
	ourQueens := pos.Pieces(c, board.Queen)
	pawnAtt := e.att[c][board.Pawn]
	acc := attackAcc{zone: e.zone[them], all: e.att[c][0], twice: e.att2[c]}
	for b := pos.Pieces(c, board.Knight); b != 0; {
		sq := b.PopLSB()
		e.add(c, IdxMaterial+int(board.Knight)-1, 1)
		e.add(c, IdxPST+pstIndex(c, board.Knight, sq), 1)
		a := board.KnightAttacks(sq)
		e.add(c, IdxMobKnight+(a&area).Count(), 1)
		if r := relRank(c, sq); r >= 3 && r <= 5 && pawnAtt.Has(sq) && attackSpan[c][sq]&theirPawns == 0 {
			e.add(c, IdxOutpost+0, 1)
		}
		acc.note(a)
	}
	e.att[c][board.Knight], e.kingAttackW[c][board.Knight] = acc.flush()

	occB := e.occ ^ ourQueens
	for b := pos.Pieces(c, board.Bishop); b != 0; {
		sq := b.PopLSB()
		e.add(c, IdxMaterial+int(board.Bishop)-1, 1)
		e.add(c, IdxPST+pstIndex(c, board.Bishop, sq), 1)
		a := board.BishopAttacks(sq, occB)
		e.add(c, IdxMobBishop+(a&area).Count(), 1)
		if r := relRank(c, sq); r >= 3 && r <= 5 && pawnAtt.Has(sq) && attackSpan[c][sq]&theirPawns == 0 {
			e.add(c, IdxOutpost+1, 1)
		}
		acc.note(a)
	}
	e.att[c][board.Bishop], e.kingAttackW[c][board.Bishop] = acc.flush()

	rooks := pos.Pieces(c, board.Rook)
	occR := e.occ ^ ourQueens ^ rooks
	for b := rooks; b != 0; {
		sq := b.PopLSB()
		e.add(c, IdxMaterial+int(board.Rook)-1, 1)
		e.add(c, IdxPST+pstIndex(c, board.Rook, sq), 1)
		a := board.RookAttacks(sq, occR)
		e.add(c, IdxMobRook+(a&area).Count(), 1)
		f := sq.File()
		if fileMasks[f]&ourPawns == 0 {
			if fileMasks[f]&theirPawns == 0 {
				e.add(c, IdxRookOpen, 1)
			} else {
				e.add(c, IdxRookSemiOpen, 1)
			}
		}
		if relRank(c, sq) == 6 && (relRank(c, pos.KingSquare(them)) == 7 ||
			theirPawns&rankOf(sq) != 0) {
			e.add(c, IdxRookSeventh, 1)
		}
		acc.note(a)
	}
	e.att[c][board.Rook], e.kingAttackW[c][board.Rook] = acc.flush()

	for b := ourQueens; b != 0; {
		sq := b.PopLSB()
		e.add(c, IdxMaterial+int(board.Queen)-1, 1)
		e.add(c, IdxPST+pstIndex(c, board.Queen, sq), 1)
		a := board.QueenAttacks(sq, e.occ)
		e.add(c, IdxMobQueen+(a&area).Count(), 1)
		acc.note(a)
	}
	e.att[c][board.Queen], e.kingAttackW[c][board.Queen] = acc.flush()

	for b := pos.Pieces(c, board.King); b != 0; {
		e.add(c, IdxPST+pstIndex(c, board.King, b.PopLSB()), 1)
	}
	e.att[c][0], e.att2[c] = acc.all, acc.twice
	e.kingAttackers[c] = acc.attackers
	if pos.Pieces(c, board.Bishop).Count() >= 2 {
		e.add(c, IdxBishopPair, 1)
	}
}

// kingSafety scores c's attack on the enemy king and the enemy's shelter.
func (e *evalState) kingSafety(c board.Color) {
	pos := e.pos
	them := c.Other()
	ksq := pos.KingSquare(them)
	if e.kingAttackers[c] >= 2 || (e.kingAttackers[c] >= 1 && pos.Pieces(c, board.Queen) != 0) {
		for pt := board.Knight; pt <= board.Queen; pt++ {
			if n := e.kingAttackW[c][pt]; n > 0 {
				// Stored as a penalty for the defender.
				e.add(them, IdxKingAttack+int(pt-board.Knight), n)
			}
		}
	}
	safe := ^e.att[them][0] &^ pos.ByColor(c)
	bChecks := board.BishopAttacks(ksq, e.occ) & safe
	rChecks := board.RookAttacks(ksq, e.occ) & safe
	if n := (board.KnightAttacks(ksq) & safe & e.att[c][board.Knight]).Count(); n > 0 {
		e.add(them, IdxSafeCheck+0, n)
	}
	if n := (bChecks & e.att[c][board.Bishop]).Count(); n > 0 {
		e.add(them, IdxSafeCheck+1, n)
	}
	if n := (rChecks & e.att[c][board.Rook]).Count(); n > 0 {
		e.add(them, IdxSafeCheck+2, n)
	}
	if n := ((bChecks | rChecks) & e.att[c][board.Queen]).Count(); n > 0 {
		e.add(them, IdxSafeCheck+3, n)
	}
	// Shelter of the enemy king (scored for them).
	ownPawns := pos.Pieces(them, board.Pawn)
	kf, kr := ksq.File(), ksq.Rank()
	var ahead board.Bitboard // the ranks in front of the king
	if them == board.White {
		ahead = ^board.Bitboard(0) << (8 * uint(kr+1))
	} else {
		ahead = board.Bitboard(1)<<(8*uint(kr)) - 1
	}
	for f := max(0, kf-1); f <= min(7, kf+1); f++ {
		front := ownPawns & fileMasks[f]
		if front == 0 {
			e.add(them, IdxKingOpenFile, 1)
			continue
		}
		// Nearest own pawn in front of the king's rank on this file.
		front &= ahead
		if front == 0 {
			continue
		}
		var d int
		if them == board.White {
			d = front.LSB().Rank() - kr
		} else {
			d = kr - (63-bits.LeadingZeros64(uint64(front)))/8
		}
		if d <= 3 {
			e.add(them, IdxShield+d-1, 1)
		}
	}
}

// threats scores c's attacks on enemy pieces.
func (e *evalState) threats(c board.Color) {
	pos := e.pos
	them := c.Other()
	targets := pos.ByColor(them) &^ pos.Pieces(them, board.King)
	nonPawns := targets &^ pos.Pieces(them, board.Pawn)
	if n := (e.att[c][board.Pawn] & nonPawns).Count(); n > 0 {
		e.add(c, IdxThreatPawn, n)
	}
	// One term per attacked piece, by its type: few pieces are attacked,
	// so this beats counting by type.
	for b := (e.att[c][board.Knight] | e.att[c][board.Bishop]) & targets; b != 0; {
		e.add(c, IdxThreatMinor+int(pos.PieceAt(b.PopLSB()).Type()), 1)
	}
	for b := e.att[c][board.Rook] & targets; b != 0; {
		e.add(c, IdxThreatRook+int(pos.PieceAt(b.PopLSB()).Type()), 1)
	}
	if n := (e.att[c][0] &^ e.att[them][0] & nonPawns).Count(); n > 0 {
		e.add(c, IdxHanging, n)
	}
}

// passedPawns scores c's passed pawns (outside the pawn cache, since they
// depend on kings and pieces).
func (e *evalState) passedPawns(c board.Color, passed board.Bitboard) {
	pos := e.pos
	them := c.Other()
	for b := passed; b != 0; {
		sq := b.PopLSB()
		r := relRank(c, sq)
		e.add(c, IdxPassed+r, 1)
		stop := stopSquare(c, sq)
		if stop < 0 || stop > 63 {
			continue
		}
		st := board.Square(stop)
		e.add(c, IdxPassedOwnKing+r, dist(pos.KingSquare(c), st))
		e.add(c, IdxPassedThemKing+r, dist(pos.KingSquare(them), st))
		path := forwardFile[c][sq]
		if path&e.occ == 0 && path&e.att[them][0] == 0 {
			e.add(c, IdxPassedFree+r, 1)
		}
	}
}

// endgameScale returns the endgame scale (out of 64) for drawish material.
func (e *evalState) endgameScale() int {
	pos := e.pos
	strong := board.White
	if e.score().EG() < 0 {
		strong = board.Black
	}
	weak := strong.Other()
	npm := func(c board.Color) int {
		return 3*(pos.Pieces(c, board.Knight).Count()+pos.Pieces(c, board.Bishop).Count()) +
			5*pos.Pieces(c, board.Rook).Count() + 9*pos.Pieces(c, board.Queen).Count()
	}
	if pos.Pieces(strong, board.Pawn) == 0 && npm(strong)-npm(weak) <= 3 {
		if npm(strong) <= 3 {
			return 0 // a lone minor cannot win
		}
		return 8
	}
	wb, bb := pos.Pieces(board.White, board.Bishop), pos.Pieces(board.Black, board.Bishop)
	if wb.Count() == 1 && bb.Count() == 1 {
		const dark = 0xaa55aa55aa55aa55
		if (wb&dark == 0) != (bb&dark == 0) {
			others := pos.ByType(board.Knight) | pos.ByType(board.Rook) | pos.ByType(board.Queen)
			if others == 0 {
				return 24
			}
			return 48
		}
	}
	return 64
}

// Explain returns a readable breakdown of the evaluation of pos by term
// group, from White's point of view, and the final side-to-move score.
func Explain(pos *board.Position) string {
	var t Trace
	p := playing
	total := Features(pos, p, &t)
	groups := []struct {
		name   string
		lo, hi int
	}{
		{"Material", IdxMaterial, IdxPST},
		{"Piece squares", IdxPST, IdxMobKnight},
		{"Mobility", IdxMobKnight, IdxDoubled},
		{"Pawn structure", IdxDoubled, IdxPassed},
		{"Passed pawns", IdxPassed, IdxKingAttack},
		{"King safety", IdxKingAttack, IdxBishopPair},
		{"Pieces", IdxBishopPair, IdxThreatPawn},
		{"Threats", IdxThreatPawn, IdxTempo},
		{"Tempo", IdxTempo, NumParams},
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-16s %7s %7s\n", "Term (White)", "MG", "EG")
	for _, g := range groups {
		mg, eg := 0, 0
		for i := g.lo; i < g.hi; i++ {
			mg += int(t.Coef[i]) * p[i].MG()
			eg += int(t.Coef[i]) * p[i].EG()
		}
		fmt.Fprintf(&sb, "%-16s %7.2f %7.2f\n", g.name, float64(mg)/100, float64(eg)/100)
	}
	fmt.Fprintf(&sb, "Phase %d/24, endgame scale %d/64\n", t.Phase, t.Scale)
	stm := total
	if pos.SideToMove() == board.Black {
		stm = -total
	}
	fmt.Fprintf(&sb, "Final evaluation: %+.2f (White), %+.2f (side to move)\n", float64(total)/100, float64(stm)/100)
	return sb.String()
}
