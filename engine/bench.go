package engine

import (
	"context"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// benchFENs is the fixed bench set: openings, middlegames with tactics,
// endgames (including pawn races and mating material), positions in check.
var benchFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	"r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
	"r2q1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 9",
	"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
	"r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
	"3r1rk1/p4ppp/1qp1b3/2b1p3/4P3/1PN2N2/P1Q2PPP/R4RK1 b - - 0 1",
	"4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
	"r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
	"1r2r1k1/p4p1p/2p3p1/8/3bP3/1P1R2P1/P4PKP/4R3 w - - 0 24",
	"8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54",
	"8/3p4/8/2PK4/8/8/5k2/8 w - - 0 1",
	"6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 1",
	"8/8/8/4k3/8/8/3KB3/5N2 w - - 0 1",
	"5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
	"6k1/6p1/p7/3Pn3/5p2/4rBqP/P4RP1/5QK1 b - - 1 32",
	"2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - - 0 1",
	"r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
	"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
	"rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
}

// BenchPositions returns the FENs of the bench set.
func BenchPositions() []string {
	out := make([]string, len(benchFENs))
	copy(out, benchFENs)
	return out
}

// DefaultBenchDepth is the bench depth when none is given.
const DefaultBenchDepth = 11

// Bench searches every bench position to depth with the engine's current
// options, clearing the hash and histories first, and returns the total
// node count and the search time. With one thread the node count is
// deterministic: it is the engine's signature.
func (e *Engine) Bench(ctx context.Context, depth int) (nodes uint64, elapsed time.Duration) {
	return e.BenchEach(ctx, depth, nil)
}

// BenchEach is Bench with a callback after each position (i counts from 0).
func (e *Engine) BenchEach(ctx context.Context, depth int, each func(i int, fen string, r Result)) (nodes uint64, elapsed time.Duration) {
	if depth <= 0 {
		depth = DefaultBenchDepth
	}
	e.NewGame()
	for i, fen := range benchFENs {
		if ctx.Err() != nil {
			break
		}
		pos, err := board.ParseFEN(fen)
		if err != nil {
			panic("engine: bad bench FEN " + fen + ": " + err.Error())
		}
		res := e.Search(ctx, board.NewGame(pos), Limits{Depth: depth}, nil)
		nodes += res.Nodes
		elapsed += res.Time
		if each != nil {
			each(i, fen, res)
		}
	}
	return nodes, elapsed
}
