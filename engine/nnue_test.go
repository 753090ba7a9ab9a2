package engine

import (
	"context"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

func testNet(t *testing.T) *nnue.Network { return testNetBuckets(t, 1) }

func testNetBuckets(t *testing.T, buckets int) *nnue.Network {
	t.Helper()
	n, err := nnue.NewRandomFloatNet(32, buckets, 4).Quantize()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestNNUESearchAccumulatorsMatchRefresh(t *testing.T) {
	// Every evaluation the search makes from its lazily updated
	// accumulators equals one from a fresh accumulator (the verifynnue
	// knob panics otherwise), through null moves, castling, en passant
	// and promotions; with one output layer and with eight buckets (the
	// bucket follows the pieces captured along the line).
	for _, buckets := range []int{1, 8} {
		searchMatchesRefresh(t, testNetBuckets(t, buckets))
	}
}

func searchMatchesRefresh(t *testing.T, net *nnue.Network) {
	e := New(Options{HashMB: 2, Net: net})
	e.verifyNNUE = true
	for _, fen := range []string{
		board.StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
	} {
		g := mustGame(t, fen)
		res := e.Search(context.Background(), g, Limits{Depth: 6}, nil)
		assertLegal(t, g, res.Best)
	}
	pos := board.StartPosition()
	if got, want := e.Evaluate(&pos), Score(net.EvaluatePosition(&pos)); got != want {
		t.Errorf("Evaluate with a network: %v, want %v", got, want)
	}
}

func TestNNUESearchAllocations(t *testing.T) {
	g := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	e := New(Options{HashMB: 2, Net: testNet(t)})
	shallow := testing.AllocsPerRun(3, func() { e.Search(context.Background(), g, Limits{Depth: 3}, nil) })
	deep := testing.AllocsPerRun(3, func() { e.Search(context.Background(), g, Limits{Depth: 7}, nil) })
	if deep > shallow {
		t.Errorf("depth 7 search with a network allocates %.0f times, depth 3 %.0f: the tree search allocates", deep, shallow)
	}
}

// TestDefaultsPlayTheBuiltInNetwork: the engine's defaults evaluate with the
// built-in network, and the strength limit (calibrated with the
// hand-crafted evaluation) plays the hand-crafted evaluation.
func TestDefaultsPlayTheBuiltInNetwork(t *testing.T) {
	net, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultOptions()
	if d.Net != net {
		t.Fatalf("DefaultOptions().Net = %v, want the built-in network %s", d.Net, net.ID())
	}
	pos, _ := board.ParseFEN("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	e := New(d)
	if got, want := e.Evaluate(&pos), clampEval(net.EvaluatePosition(&pos)); got != want {
		t.Errorf("default Evaluate %v, the network's %v", got, want)
	}
	hce := New(Options{}).Evaluate(&pos)
	if hce == e.Evaluate(&pos) {
		t.Fatalf("the test position evaluates %v with both evaluations: pick another", hce)
	}
	limited := d
	limited.LimitStrength = true
	if err := e.SetOptions(limited); err != nil {
		t.Fatal(err)
	}
	if got := e.Evaluate(&pos); got != hce {
		t.Errorf("under LimitStrength Evaluate %v, want the hand-crafted %v", got, hce)
	}
	if len(e.workers) != 1 || e.workers[0].net != nil {
		t.Errorf("under LimitStrength the search threads evaluate with a network")
	}
	if err := e.SetOptions(d); err != nil {
		t.Fatal(err)
	}
	if len(e.workers) != 1 || e.workers[0].net != net {
		t.Errorf("after LimitStrength is off again the search threads do not use the built-in network")
	}
}
