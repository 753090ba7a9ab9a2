package engine

import (
	"context"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func TestCorrectionHistoryAveragesAndClamps(t *testing.T) {
	var h history
	pos := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").Position()
	// Same pawns, other side to move; and other pawns, same side.
	other := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3").Position()
	pawns := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R w KQkq - 2 3").Position()

	if c := h.correction(&pos); c != 0 {
		t.Fatalf("empty table corrects by %d", c)
	}
	h.updateCorrection(&pos, 40, 0) // weight 1/256 of 40 cp: under a centipawn
	if c := h.correction(&pos); c != 0 {
		t.Errorf("one shallow update of 40 corrects by %d, want 0", c)
	}
	for range 200 {
		h.updateCorrection(&pos, 40, 20)
	}
	if c := h.correction(&pos); c < 38 || c > 40 {
		t.Errorf("after many deep updates of 40 the correction is %d, want about 40", c)
	}
	if c := h.correction(&other); c != 0 {
		t.Errorf("the other side to move is corrected by %d", c)
	}
	if c := h.correction(&pawns); c != 0 {
		t.Errorf("another pawn structure is corrected by %d", c)
	}
	for range 200 {
		h.updateCorrection(&pos, -5000, 20)
	}
	if c := h.correction(&pos); c != -corrMax/corrGrain {
		t.Errorf("after updates of −5000 the correction is %d, want the limit %d", c, -corrMax/corrGrain)
	}
	h.clear()
	if c := h.correction(&pos); c != 0 {
		t.Errorf("a cleared table corrects by %d", c)
	}
}

// With the correction history on, the search learns corrections, still
// finds mates, allocates nothing in the tree, and the hash table keeps the
// evaluator's raw evaluation (a corrected one would be corrected twice).
func TestCorrectionHistorySearch(t *testing.T) {
	g := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	e := New(Options{HashMB: 4, CorrectionHistory: true})
	e.Search(context.Background(), g, Limits{Depth: 9}, nil)

	learnt := 0
	for _, side := range e.workers[0].hist.pawnCorr {
		for _, v := range side {
			if v != 0 {
				learnt++
			}
		}
	}
	if learnt == 0 {
		t.Error("a depth-9 search left the correction history empty")
	}

	root := g.Position()
	checked := 0
	for _, m := range legalRootMoves(&root, nil) {
		var child board.Position
		root.MakeMove(m, &child)
		h, ok := e.tt.probe(child.Key())
		if !ok || h.eval <= -mateBound || h.eval >= mateBound {
			continue
		}
		checked++
		if raw := e.Evaluate(&child); h.eval != raw {
			t.Errorf("after %s the hash table holds evaluation %d, the evaluator says %d", root.UCI(m), h.eval, raw)
		}
	}
	if checked == 0 {
		t.Error("no root child with a stored evaluation to check")
	}

	shallow := testing.AllocsPerRun(3, func() { e.Search(context.Background(), g, Limits{Depth: 3}, nil) })
	deep := testing.AllocsPerRun(3, func() { e.Search(context.Background(), g, Limits{Depth: 7}, nil) })
	if deep > shallow {
		t.Errorf("depth 7 search allocates %.0f times, depth 3 %.0f: the tree search allocates", deep, shallow)
	}

	mate := mustGame(t, "6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1")
	res := e.Search(context.Background(), mate, Limits{Depth: 6}, nil)
	if got := uciOf(mate, res.Best); got != "g2g1" || res.Score.MateIn() != 2 {
		t.Errorf("mate in 2: best %s score %v, want g2g1 and mate 2", got, res.Score)
	}
}

// With Options.TTPV a node counts as a PV node when its hash entry says it
// was one; without it only its window decides. A search with it on keeps
// the flag on the principal variation's entries, still finds mates and
// allocates nothing in the tree.
func TestTTPV(t *testing.T) {
	flagged := ttHit{pv: true}
	for _, tc := range []struct {
		on, pvNode, hit bool
		h               ttHit
		want            bool
	}{
		{false, true, false, ttHit{}, true},
		{false, false, true, flagged, false},
		{true, false, true, flagged, true},
		{true, false, false, flagged, false}, // no hit: the entry says nothing
		{true, false, true, ttHit{}, false},
		{true, true, true, ttHit{}, true},
	} {
		w := &worker{ttPV: tc.on}
		if got := w.nodeTTPV(tc.pvNode, tc.h, tc.hit); got != tc.want {
			t.Errorf("option %v, PV node %v, hit %v (flag %v): %v, want %v", tc.on, tc.pvNode, tc.hit, tc.h.pv, got, tc.want)
		}
	}

	g := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	e := New(Options{HashMB: 4, TTPV: true})
	res := e.Search(context.Background(), g, Limits{Depth: 9}, nil)
	// The position after the best move was searched as a PV node.
	root := g.Position()
	var child board.Position
	root.MakeMove(res.Best, &child)
	if h, ok := e.tt.probe(child.Key()); !ok || !h.pv {
		t.Errorf("after the best move %s the hash entry (found %v) lacks the PV flag", root.UCI(res.Best), ok)
	}
	shallow := testing.AllocsPerRun(3, func() { e.Search(context.Background(), g, Limits{Depth: 3}, nil) })
	deep := testing.AllocsPerRun(3, func() { e.Search(context.Background(), g, Limits{Depth: 7}, nil) })
	if deep > shallow {
		t.Errorf("depth 7 search allocates %.0f times, depth 3 %.0f: the tree search allocates", deep, shallow)
	}
	mate := mustGame(t, "6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1")
	res = e.Search(context.Background(), mate, Limits{Depth: 6}, nil)
	if got := uciOf(mate, res.Best); got != "g2g1" || res.Score.MateIn() != 2 {
		t.Errorf("mate in 2: best %s score %v, want g2g1 and mate 2", got, res.Score)
	}
}
