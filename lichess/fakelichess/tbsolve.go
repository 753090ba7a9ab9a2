package fakelichess

// A retrograde solver for the fake's tablebase: every position of a
// pawnless material signature of two to four pieces (KQvK, KRvK, KBNvK,
// KRvKR, KQvKR, ...), solved lazily per signature on the first request and
// kept. Each table is solved twice: for the distance to mate (DTM, plies)
// and for the distance to zeroing (DTZ, plies to the next capture or
// mate: without pawns, captures are the only zeroing moves). A capture
// leaves the signature; its value comes from the smaller signature's
// table, solved first.
//
// Positions are indexed by the side to move and the squares of the pieces
// (white king, black king, then the others), with the eight symmetries of
// a pawnless board folded: the white king stands in the a1-d1-d4
// triangle, and of two placements equal under the diagonal flip (the
// white king on the diagonal) the smaller index is kept. The moves come
// from engine/board's attack tables; tbsolve_test checks them against
// engine/board's legal moves, the longest mates against the known ones
// (KQvK 10 moves, KRvK 16, KBNvK 33) and sampled DTMs against the engine's
// search.

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// tbMaxPieces is the largest signature the fake solves.
const tbMaxPieces = 4

// tbPiece is one piece of a signature.
type tbPiece struct {
	color board.Color
	pt    board.PieceType
}

// tbValue of a position: 0 a draw (or not yet known while solving), +n a
// win for the side to move in n plies, -n-1 a loss in n plies (-1:
// checkmated). tbInvalid marks indices that are no position.
const tbInvalid = int16(-32768)

// tbTable is one solved signature.
type tbTable struct {
	key      string
	pieces   []tbPiece // white king, black king, then the others
	dtm, dtz []int16
}

// tbSolver solves and keeps tables; safe for concurrent use.
type tbSolver struct {
	mu     sync.Mutex
	tables map[string]*tbEntryOnce
}

type tbEntryOnce struct {
	once sync.Once
	t    *tbTable
}

var tbLetters = map[board.PieceType]byte{board.King: 'K', board.Queen: 'Q', board.Rook: 'R', board.Bishop: 'B', board.Knight: 'N'}

// tbOrder sorts a side's pieces: king, queen, rook, bishop, knight.
var tbOrder = map[board.PieceType]int{board.King: 0, board.Queen: 1, board.Rook: 2, board.Bishop: 3, board.Knight: 4}

// sideKey writes one side's material, "KRB".
func sideKey(pts []board.PieceType) string {
	sort.Slice(pts, func(i, j int) bool { return tbOrder[pts[i]] < tbOrder[pts[j]] })
	b := make([]byte, len(pts))
	for i, p := range pts {
		b[i] = tbLetters[p]
	}
	return string(b)
}

// strongerKey orders two sides' keys: the longer one, then the one with
// the stronger pieces first; the stronger side is White in a table.
func strongerKey(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	for i := range a {
		if a[i] != b[i] {
			return strings.IndexByte("KQRBN", a[i]) < strings.IndexByte("KQRBN", b[i])
		}
	}
	return false
}

// parseSig reads a key such as "KRvKR".
func parseSig(key string) ([]tbPiece, error) {
	w, b, ok := strings.Cut(key, "v")
	if !ok || !strings.HasPrefix(w, "K") || !strings.HasPrefix(b, "K") || len(w)+len(b) > tbMaxPieces {
		return nil, fmt.Errorf("tablebase: bad material %q", key)
	}
	pieces := []tbPiece{{board.White, board.King}, {board.Black, board.King}}
	for _, side := range []struct {
		c board.Color
		s string
	}{{board.White, w[1:]}, {board.Black, b[1:]}} {
		for i := 0; i < len(side.s); i++ {
			pt, ok := map[byte]board.PieceType{'Q': board.Queen, 'R': board.Rook, 'B': board.Bishop, 'N': board.Knight}[side.s[i]]
			if !ok {
				return nil, fmt.Errorf("tablebase: bad material %q", key)
			}
			pieces = append(pieces, tbPiece{side.c, pt})
		}
	}
	return pieces, nil
}

// table returns the solved table of key, solving it (and the tables its
// captures reach) on first use.
func (s *tbSolver) table(key string) (*tbTable, error) {
	pieces, err := parseSig(key)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.tables == nil {
		s.tables = map[string]*tbEntryOnce{}
	}
	e := s.tables[key]
	if e == nil {
		e = &tbEntryOnce{}
		s.tables[key] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		t := &tbTable{key: key, pieces: pieces}
		in := s.forward(t)
		t.dtm = s.solve(t, in, false)
		t.dtz = s.solve(t, in, true)
		e.t = t
	})
	return e.t, nil
}

// tbPos is a placement: squares in the order of its table's pieces.
type tbPos struct {
	sq  [tbMaxPieces]int8
	n   int
	stm board.Color
}

// The symmetries of a pawnless board: bit 0 flips files, bit 1 ranks, bit
// 2 the a1-h8 diagonal (applied last).
func symSquare(sym int, s int8) int8 {
	if sym&1 != 0 {
		s ^= 7
	}
	if sym&2 != 0 {
		s ^= 56
	}
	if sym&4 != 0 {
		s = (s&7)<<3 | s>>3
	}
	return s
}

var (
	tbTri    [64]int8  // index of a square in the a1-d1-d4 triangle, -1 outside
	tbSyms   [64][]int // the symmetries taking a white king square into the triangle
	tbTriSqs []int8
)

func init() {
	for s := range tbTri {
		tbTri[s] = -1
	}
	for r := int8(0); r < 4; r++ {
		for f := r; f < 4; f++ {
			tbTri[r*8+f] = int8(len(tbTriSqs))
			tbTriSqs = append(tbTriSqs, r*8+f)
		}
	}
	for s := int8(0); s < 64; s++ {
		for sym := range 8 {
			if tbTri[symSquare(sym, s)] >= 0 {
				tbSyms[s] = append(tbSyms[s], sym)
			}
		}
	}
}

func tbSize(n int) int {
	size := 2 * len(tbTriSqs)
	for range n - 1 {
		size *= 64
	}
	return size
}

// rawIndex indexes a placement whose white king is in the triangle.
func rawIndex(p *tbPos) int {
	i := int(p.stm)*len(tbTriSqs) + int(tbTri[p.sq[0]])
	for k := 1; k < p.n; k++ {
		i = i*64 + int(p.sq[k])
	}
	return i
}

// decode is the inverse of rawIndex.
func decode(i, n int) tbPos {
	p := tbPos{n: n}
	for k := n - 1; k >= 1; k-- {
		p.sq[k] = int8(i % 64)
		i /= 64
	}
	p.sq[0] = tbTriSqs[i%len(tbTriSqs)]
	p.stm = board.Color(i / len(tbTriSqs))
	return p
}

// canon returns the index of p's class under the symmetries (and, for two
// equal pieces, their order).
func (t *tbTable) canon(p *tbPos) int {
	best := -1
	for _, sym := range tbSyms[p.sq[0]] {
		q := tbPos{n: p.n, stm: p.stm}
		for k := 0; k < p.n; k++ {
			q.sq[k] = symSquare(sym, p.sq[k])
		}
		// Equal pieces (KNNvK): the lower square first.
		for k := 2; k+1 < p.n; k++ {
			if t.pieces[k] == t.pieces[k+1] && q.sq[k] > q.sq[k+1] {
				q.sq[k], q.sq[k+1] = q.sq[k+1], q.sq[k]
			}
		}
		if i := rawIndex(&q); best < 0 || i < best {
			best = i
		}
	}
	return best
}

// occupancy returns the occupied squares and those of each color.
func (t *tbTable) occupancy(p *tbPos) (occ board.Bitboard, by [2]board.Bitboard) {
	for k := 0; k < p.n; k++ {
		b := board.SquareBB(board.Square(p.sq[k]))
		occ |= b
		by[t.pieces[k].color] |= b
	}
	return occ, by
}

// attacks returns the squares piece k attacks from sq with occupancy occ.
func (t *tbTable) attacks(k int, sq int8, occ board.Bitboard) board.Bitboard {
	s := board.Square(sq)
	switch t.pieces[k].pt {
	case board.King:
		return board.KingAttacks(s)
	case board.Queen:
		return board.QueenAttacks(s, occ)
	case board.Rook:
		return board.RookAttacks(s, occ)
	case board.Bishop:
		return board.BishopAttacks(s, occ)
	}
	return board.KnightAttacks(s)
}

// attacked reports whether a piece of color by (other than the captured
// one, skip) attacks sq.
func (t *tbTable) attacked(p *tbPos, sq int8, by board.Color, skip int, occ board.Bitboard) bool {
	for k := 0; k < p.n; k++ {
		if k != skip && t.pieces[k].color == by && t.attacks(k, p.sq[k], occ).Has(board.Square(sq)) {
			return true
		}
	}
	return false
}

// king returns the index of c's king.
func king(c board.Color) int { return int(c) }

// valid reports whether p is a position: distinct squares, the side not
// to move not in check (kings apart follows).
func (t *tbTable) valid(p *tbPos) bool {
	occ, _ := t.occupancy(p)
	if occ.Count() != p.n {
		return false
	}
	them := p.stm.Other()
	return !t.attacked(p, p.sq[king(them)], p.stm, -1, occ)
}

// tbMove is a legal move of a position: piece k to square to, capturing
// piece cap (-1 none).
type tbMove struct {
	k   int
	to  int8
	cap int
}

// moves appends p's legal moves to out.
func (t *tbTable) moves(p *tbPos, out []tbMove) []tbMove {
	out = out[:0]
	occ, by := t.occupancy(p)
	us, them := p.stm, p.stm.Other()
	ks := p.sq[king(us)]
	inCheck := t.attacked(p, ks, them, -1, occ)
	for k := 0; k < p.n; k++ {
		if t.pieces[k].color != us {
			continue
		}
		from := board.SquareBB(board.Square(p.sq[k]))
		// A piece other than the king can only expose the king when we
		// are in check already or it stands on a line to an enemy slider
		// (pinned): only then is each of its moves checked.
		check := k == king(us) || inCheck || t.attacked(p, ks, them, -1, occ&^from)
		targets := t.attacks(k, p.sq[k], occ) &^ by[us]
		for targets != 0 {
			to := int8(targets.LSB())
			targets &= targets - 1
			cap := -1
			if by[them].Has(board.Square(to)) {
				for j := 0; j < p.n; j++ {
					if p.sq[j] == to {
						cap = j
					}
				}
			}
			if cap == king(them) {
				continue // never in a valid position
			}
			if check {
				q := *p
				q.sq[k] = to
				nocc := occ&^from | board.SquareBB(board.Square(to))
				if t.attacked(&q, q.sq[king(us)], them, cap, nocc) {
					continue
				}
			}
			out = append(out, tbMove{k: k, to: to, cap: cap})
		}
	}
	return out
}

// child is p after m.
func (p *tbPos) child(m tbMove) tbPos {
	q := *p
	q.sq[m.k] = m.to
	q.stm = p.stm.Other()
	return q
}

// exitValue is the result of capture m for the side to move after it (1
// a win, -1 a loss, 0 a draw) and its DTM from the smaller table.
func (s *tbSolver) exitValue(t *tbTable, p *tbPos, m tbMove) (wdl, dist int) {
	q := p.child(m)
	var pieces [tbMaxPieces]tbPiece
	var sqs [tbMaxPieces]int8
	n := 0
	for k := 0; k < p.n; k++ {
		if k != m.cap {
			pieces[n], sqs[n] = t.pieces[k], q.sq[k]
			n++
		}
	}
	dtm, _ := s.value(pieces[:n], sqs[:n], q.stm)
	d, win, decided := tbPlies(dtm)
	if !decided {
		return 0, 0
	}
	if win {
		return 1, d
	}
	return -1, d
}

// value returns the DTM and DTZ of the placement of pieces on sqs (any
// colours and order), stm to move, from the table of its material.
func (s *tbSolver) value(pieces []tbPiece, sqs []int8, stm board.Color) (dtm, dtz int16) {
	if len(pieces) <= 2 {
		return 0, 0 // bare kings
	}
	var w, b []board.PieceType
	for _, pc := range pieces {
		if pc.color == board.White {
			w = append(w, pc.pt)
		} else {
			b = append(b, pc.pt)
		}
	}
	wk, bk := sideKey(w), sideKey(b)
	flip := strongerKey(bk, wk)
	key := wk + "v" + bk
	if flip {
		key = bk + "v" + wk
	}
	t, err := s.table(key)
	if err != nil {
		return 0, 0
	}
	// Place each piece on the table's slot of its kind.
	p := tbPos{n: len(pieces), stm: stm}
	if flip {
		p.stm = stm.Other()
	}
	var used [tbMaxPieces]bool
	for slot, want := range t.pieces {
		for k, pc := range pieces {
			c, sq := pc.color, sqs[k]
			if flip {
				c, sq = c.Other(), sq^56
			}
			if !used[k] && c == want.color && pc.pt == want.pt {
				used[k] = true
				p.sq[slot] = sq
				break
			}
		}
	}
	i := t.canon(&p)
	return t.dtm[i], t.dtz[i]
}

// tbForward is what one forward pass over a table learns, for both
// metrics: per index, the number of distinct positions inside the table
// its moves reach (tbNoLoss: a capture draws or wins, tbNotPos: no
// position), and aux: the DTM of the fastest winning capture (with
// tbNoLoss; 0 for a drawing one) or else the longest DTM of a capture
// into a lost game (-1 none).
type tbForward struct {
	left  []uint8
	aux   []int16
	mates []int32
}

const (
	tbNoLoss = 255
	tbNotPos = 254
)

// forward makes the forward pass over t; captures are valued from the
// smaller tables.
func (s *tbSolver) forward(t *tbTable) *tbForward {
	n := len(t.pieces)
	size := tbSize(n)
	in := &tbForward{left: make([]uint8, size), aux: make([]int16, size)}
	var ms []tbMove
	children := make([]int, 0, 64)
	for i := range size {
		p := decode(i, n)
		if !t.valid(&p) || t.canon(&p) != i {
			in.left[i] = tbNotPos
			continue
		}
		ms = t.moves(&p, ms)
		if len(ms) == 0 {
			if t.attacked(&p, p.sq[king(p.stm)], p.stm.Other(), -1, occOf(t, &p)) {
				in.mates = append(in.mates, int32(i))
			} else {
				in.left[i] = tbNoLoss // stalemate: a draw
			}
			continue
		}
		children = children[:0]
		win, maxLoss, draw := -1, -1, false
		for _, m := range ms {
			if m.cap < 0 {
				q := p.child(m)
				children = append(children, t.canon(&q))
				continue
			}
			switch wdl, d := s.exitValue(t, &p, m); wdl {
			case -1: // the opponent is lost: we win one ply later
				if win < 0 || d+1 < win {
					win = d + 1
				}
			case 1:
				maxLoss = max(maxLoss, d)
			default:
				draw = true
			}
		}
		sort.Ints(children)
		distinct := 0
		for k, c := range children {
			if k == 0 || c != children[k-1] {
				distinct++
			}
		}
		switch {
		case win > 0:
			in.left[i], in.aux[i] = tbNoLoss, int16(win)
		case draw:
			in.left[i] = tbNoLoss
		default:
			in.left[i], in.aux[i] = uint8(distinct), int16(maxLoss)
		}
	}
	return in
}

// solve computes one metric of t by retrograde analysis, in order of
// distance: mates first, then the positions decided one ply later, and
// so on. A position is won at d+1 when a move reaches a position lost at
// d; it is lost when every move reaches a won position, one ply after the
// longest of them. For DTZ (zeroing) a capture ends the count: a winning
// capture wins in one ply, and a capture into a lost game counts 0.
func (s *tbSolver) solve(t *tbTable, in *tbForward, zeroing bool) []int16 {
	n := len(t.pieces)
	size := tbSize(n)
	val := make([]int16, size)
	left := append([]uint8(nil), in.left...)
	// buckets[d] holds index<<1 | lost of positions decided at distance d.
	var buckets [][]int32
	push := func(d int, i int, lost bool) {
		for len(buckets) <= d {
			buckets = append(buckets, nil)
		}
		e := int32(i) << 1
		if lost {
			e |= 1
		}
		buckets[d] = append(buckets[d], e)
	}
	exitMax := func(i int) int {
		if zeroing && in.aux[i] >= 0 {
			return 0
		}
		return int(in.aux[i])
	}
	for _, i := range in.mates {
		push(0, int(i), true)
	}
	for i := range size {
		switch l := left[i]; {
		case l == tbNotPos:
			val[i] = tbInvalid
		case l == tbNoLoss && in.aux[i] > 0:
			d := int(in.aux[i])
			if zeroing {
				d = 1
			}
			push(d, i, false)
		case l == 0 && in.aux[i] >= 0:
			push(exitMax(i)+1, i, true) // every move captures into a lost game
		}
	}
	preds := make([]int, 0, 128)
	for d := 0; d < len(buckets); d++ {
		for k := 0; k < len(buckets[d]); k++ {
			e := buckets[d][k]
			i, lost := int(e>>1), e&1 == 1
			if val[i] != 0 {
				continue // decided sooner
			}
			if lost {
				val[i] = int16(-d - 1)
			} else {
				val[i] = int16(d)
			}
			p := decode(i, n)
			preds = t.predecessors(&p, preds[:0])
			for _, q := range preds {
				if val[q] != 0 {
					continue
				}
				if lost {
					push(d+1, q, false)
					continue
				}
				if left[q] == tbNoLoss || left[q] == 0 {
					continue
				}
				left[q]--
				if left[q] == 0 {
					push(max(d, exitMax(q))+1, q, true)
				}
			}
		}
		buckets[d] = nil
	}
	return val
}

func occOf(t *tbTable, p *tbPos) board.Bitboard {
	occ, _ := t.occupancy(p)
	return occ
}

// predecessors appends the distinct indices of the positions from which a
// quiet move (no capture: those leave the table) leads to p.
func (t *tbTable) predecessors(p *tbPos, out []int) []int {
	occ, _ := t.occupancy(p)
	mover := p.stm.Other()
	for k := 0; k < p.n; k++ {
		if t.pieces[k].color != mover {
			continue
		}
		// The piece came from an empty square from which it reaches
		// its square; the moves of these pieces are reversible.
		from := t.attacks(k, p.sq[k], occ) &^ occ
		for from != 0 {
			f := int8(from.LSB())
			from &= from - 1
			q := *p
			q.sq[k] = f
			q.stm = mover
			if !t.valid(&q) {
				continue
			}
			out = append(out, t.canon(&q))
		}
	}
	sort.Ints(out)
	w := 0
	for i, v := range out {
		if i == 0 || v != out[i-1] {
			out[w] = v
			w++
		}
	}
	return out[:w]
}

// tbPlies reads a value: the distance in plies, whether the side to move
// wins, and whether the position is decided at all (false: a draw).
func tbPlies(v int16) (n int, win bool, decided bool) {
	switch {
	case v > 0:
		return int(v), true, true
	case v < 0 && v != tbInvalid:
		return int(-v - 1), false, true
	}
	return 0, false, false
}
