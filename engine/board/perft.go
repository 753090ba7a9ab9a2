package board

import (
	"fmt"
	"io"
	"sync/atomic"
)

// Perft counts the leaf nodes of the legal move tree to the given depth
// (counting the moves at the last ply rather than making them). Depth 0
// counts 1.
func (p *Position) Perft(depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	var st perftStack
	return st.perft(p, depth, 0)
}

// perftStack holds the move lists and positions of a perft walk, so the
// recursion neither allocates nor clears a fresh list at every node.
type perftStack struct {
	lists [perftStackDepth]MoveList
	pos   [perftStackDepth]Position
}

const perftStackDepth = 16

func (st *perftStack) perft(p *Position, depth, ply int) uint64 {
	if ply >= perftStackDepth {
		// Deeper than the stack (not a practical perft): plain recursion.
		var l MoveList
		p.GenerateLegal(&l)
		if depth == 1 {
			return uint64(l.N)
		}
		var child Position
		var n uint64
		for _, m := range l.Moves[:l.N] {
			p.MakeMove(m, &child)
			n += st.perft(&child, depth-1, ply+1)
		}
		return n
	}
	l := &st.lists[ply]
	l.N = 0
	p.GenerateLegal(l)
	if depth == 1 {
		return uint64(l.N)
	}
	child := &st.pos[ply]
	var n uint64
	for _, m := range l.Moves[:l.N] {
		p.MakeMove(m, child)
		n += st.perft(child, depth-1, ply+1)
	}
	return n
}

// perftPollDepth is the remaining depth at and below which PerftStop no
// longer looks at its stop flag: a subtree that shallow is counted in well
// under a millisecond, so the walk stops promptly at no cost to its speed.
const perftPollDepth = 3

// PerftStop is Perft that gives up when stop becomes true (checked before
// every subtree deeper than a few plies). It returns the count and whether
// the walk finished; a stopped walk's count is partial.
func (p *Position) PerftStop(depth int, stop *atomic.Bool) (uint64, bool) {
	if depth <= 0 {
		return 1, true
	}
	var st perftStack
	n := st.perftStop(p, depth, 0, stop)
	return n, !stop.Load()
}

func (st *perftStack) perftStop(p *Position, depth, ply int, stop *atomic.Bool) uint64 {
	if depth <= perftPollDepth || ply >= perftStackDepth {
		return st.perft(p, depth, ply)
	}
	l := &st.lists[ply]
	l.N = 0
	p.GenerateLegal(l)
	child := &st.pos[ply]
	var n uint64
	for _, m := range l.Moves[:l.N] {
		if stop.Load() {
			return n
		}
		p.MakeMove(m, child)
		n += st.perftStop(child, depth-1, ply+1, stop)
	}
	return n
}

// DivideEntry is one root move and the perft count below it.
type DivideEntry struct {
	Move  Move
	Nodes uint64
}

// Divide runs perft to depth below each legal root move, in generation
// order. With depth ≤ 1 every entry counts 1.
func (p *Position) Divide(depth int) []DivideEntry {
	var l MoveList
	p.GenerateLegal(&l)
	out := make([]DivideEntry, 0, l.N)
	var child Position
	for _, m := range l.Moves[:l.N] {
		p.MakeMove(m, &child)
		out = append(out, DivideEntry{Move: m, Nodes: child.Perft(depth - 1)})
	}
	return out
}

// WriteDivide prints divide results in the agreed format (as Stockfish
// does): one line per root move, "e2e4: 9726", with the move in p's UCI
// notation, then a blank line and "Nodes searched: N".
func WriteDivide(w io.Writer, p *Position, entries []DivideEntry) error {
	var total uint64
	for _, e := range entries {
		total += e.Nodes
		if _, err := fmt.Fprintf(w, "%s: %d\n", p.UCI(e.Move), e.Nodes); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\nNodes searched: %d\n", total)
	return err
}
