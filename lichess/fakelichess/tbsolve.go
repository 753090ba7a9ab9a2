package fakelichess

// A retrograde solver for the fake's tablebase: every position of a king
// and one piece (queen, rook, bishop or knight) against a bare king, with
// depth to mate in plies. It has its own small move generator (three
// pieces, no pawns, no castling); tbsolve_test checks it against
// engine/board's legal moves and against the known longest mates (KQvK 10
// moves, KRvK 16 moves).

import (
	"sync"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// tbIndex packs (strong side to move?, strong king, weak king, piece).
func tbIndex(strongToMove bool, sk, wk, x int) int {
	i := (sk*64+wk)*64 + x
	if strongToMove {
		i += 64 * 64 * 64
	}
	return i
}

const tbSize = 2 * 64 * 64 * 64

// tbValue of a position: 0 unknown (draw once solved), or +n a win for the
// side to move in n plies, or -n-1 a loss in n plies (-1: checkmated).
// invalid marks impossible placements.
type tbTable struct {
	piece board.PieceType
	val   []int16
}

const tbInvalid = int16(-32768)

type tbSolver struct {
	mu     sync.Mutex
	tables map[board.PieceType]*tbTable
}

func (s *tbSolver) table(pt board.PieceType) *tbTable {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tables == nil {
		s.tables = map[board.PieceType]*tbTable{}
	}
	if t, ok := s.tables[pt]; ok {
		return t
	}
	t := solveKXK(pt)
	s.tables[pt] = t
	return t
}

func sqFile(s int) int { return s & 7 }
func sqRank(s int) int { return s >> 3 }

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

func kingNear(a, b int) bool {
	return a != b && abs(sqFile(a)-sqFile(b)) <= 1 && abs(sqRank(a)-sqRank(b)) <= 1
}

var (
	rookDirs   = [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	bishopDirs = [][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
	knightJump = [][2]int{{1, 2}, {2, 1}, {-1, 2}, {-2, 1}, {1, -2}, {2, -1}, {-1, -2}, {-2, -1}}
)

func dirsOf(pt board.PieceType) (dirs [][2]int, slide bool) {
	switch pt {
	case board.Queen:
		return append(append([][2]int{}, rookDirs...), bishopDirs...), true
	case board.Rook:
		return rookDirs, true
	case board.Bishop:
		return bishopDirs, true
	}
	return knightJump, false
}

// pieceTargets calls f for each square the piece on x reaches (attacks),
// with the other pieces on block1, block2 stopping sliders (the first
// blocker is included).
func pieceTargets(pt board.PieceType, x, block1, block2 int, f func(int)) {
	dirs, slide := dirsOf(pt)
	for _, d := range dirs {
		fl, rk := sqFile(x), sqRank(x)
		for {
			fl, rk = fl+d[0], rk+d[1]
			if fl < 0 || fl > 7 || rk < 0 || rk > 7 {
				break
			}
			s := rk*8 + fl
			f(s)
			if !slide || s == block1 || s == block2 {
				break
			}
		}
	}
}

// attacked reports whether the piece on x (which may be captured: x<0)
// attacks sq, with the kings on k1, k2 as blockers.
func attacked(pt board.PieceType, x, sq, k1, k2 int) bool {
	if x < 0 {
		return false
	}
	hit := false
	pieceTargets(pt, x, k1, k2, func(s int) {
		if s == sq {
			hit = true
		}
	})
	return hit
}

// tbMove is one legal move of a KXK position: the child index, or
// capture (the piece is taken: a dead draw).
type tbMove struct {
	from, to int
	child    int
	capture  bool
}

// kxkMoves lists the legal moves of the position (sk, wk, x), the strong
// side to move or not.
func kxkMoves(pt board.PieceType, strongToMove bool, sk, wk, x int, out []tbMove) []tbMove {
	out = out[:0]
	if strongToMove {
		for d := 0; d < 64; d++ {
			if kingNear(sk, d) && d != x && d != wk && !kingNear(d, wk) {
				out = append(out, tbMove{from: sk, to: d, child: tbIndex(false, d, wk, x)})
			}
		}
		pieceTargets(pt, x, sk, wk, func(s int) {
			if s != sk && s != wk {
				out = append(out, tbMove{from: x, to: s, child: tbIndex(false, sk, wk, s)})
			}
		})
		return out
	}
	for d := 0; d < 64; d++ {
		if !kingNear(wk, d) || d == sk || kingNear(d, sk) {
			continue
		}
		if d == x { // the strong king does not guard x (d is not next to it)
			out = append(out, tbMove{from: wk, to: d, capture: true})
			continue
		}
		if !attacked(pt, x, d, sk, -1) { // wk's own square is empty now
			out = append(out, tbMove{from: wk, to: d, child: tbIndex(true, sk, d, x)})
		}
	}
	return out
}

// weakInCheck reports whether the weak king on wk is attacked by the
// piece on x (blocked by the strong king).
func weakInCheck(pt board.PieceType, sk, wk, x int) bool {
	return attacked(pt, x, wk, sk, -1)
}

// validKXK reports whether the placement can occur: distinct squares,
// kings apart, and the side not to move not in check.
func validKXK(pt board.PieceType, strongToMove bool, sk, wk, x int) bool {
	if sk == wk || sk == x || wk == x || kingNear(sk, wk) {
		return false
	}
	if strongToMove && weakInCheck(pt, sk, wk, x) {
		return false
	}
	return true
}

// solveKXK builds the table for king and pt against king by retrograde
// analysis over the move graph.
func solveKXK(pt board.PieceType) *tbTable {
	t := &tbTable{piece: pt, val: make([]int16, tbSize)}
	// children as CSR, parents as CSR.
	start := make([]int32, tbSize+1)
	edges := make([]int32, 0, 8<<20)
	left := make([]int16, tbSize) // weak side: moves not yet known to lose
	var buf []tbMove
	var queue []int32
	for i := 0; i < tbSize; i++ {
		start[i] = int32(len(edges))
		stm := i >= 64*64*64
		j := i % (64 * 64 * 64)
		sk, wk, x := j/4096, (j/64)%64, j%64
		if !validKXK(pt, stm, sk, wk, x) {
			t.val[i] = tbInvalid
			continue
		}
		buf = kxkMoves(pt, stm, sk, wk, x, buf)
		n := 0
		for _, m := range buf {
			if m.capture {
				n = -1000 // a capture draws: this position never loses
				continue
			}
			edges = append(edges, int32(m.child))
			if n >= 0 {
				n++
			}
		}
		if len(buf) == 0 {
			if !stm && weakInCheck(pt, sk, wk, x) {
				t.val[i] = -1 // checkmated
				queue = append(queue, int32(i))
			}
			continue
		}
		if !stm {
			if n < 0 {
				left[i] = -1
			} else {
				left[i] = int16(n)
			}
		}
	}
	start[tbSize] = int32(len(edges))
	// Parents: reverse the edges.
	pcount := make([]int32, tbSize+1)
	for _, c := range edges {
		pcount[c+1]++
	}
	for i := 1; i <= tbSize; i++ {
		pcount[i] += pcount[i-1]
	}
	parents := make([]int32, len(edges))
	fill := append([]int32(nil), pcount[:tbSize]...)
	for p := 0; p < tbSize; p++ {
		for e := start[p]; e < start[p+1]; e++ {
			c := edges[e]
			parents[fill[c]] = int32(p)
			fill[c]++
		}
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		v := t.val[c]
		for e := pcount[c]; e < pcount[c+1]; e++ {
			p := parents[e]
			if t.val[p] != 0 {
				continue
			}
			if v < 0 { // child lost: the parent (strong to move) wins
				t.val[p] = -v // loss in n plies (-n-1) → win in n+1 plies
				queue = append(queue, p)
				continue
			}
			// child won for the strong side: one weak move fewer escapes.
			if left[p] > 0 {
				left[p]--
				if left[p] == 0 {
					t.val[p] = -(v + 2) // loss in v+1 plies
					queue = append(queue, p)
				}
			}
		}
	}
	return t
}

// plies returns the distance to mate of a solved value: >0 win in n plies,
// <0 loss in n plies (0: checkmated), ok false for a draw.
func tbPlies(v int16) (n int, win bool, decided bool) {
	switch {
	case v > 0:
		return int(v), true, true
	case v < 0 && v != tbInvalid:
		return int(-v - 1), false, true
	}
	return 0, false, false
}
