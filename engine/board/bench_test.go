package board

import "testing"

const kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

func benchPerft(b *testing.B, fen string, depth int, want uint64) {
	p := mustFEN(b, fen)
	var nodes uint64
	for b.Loop() {
		if n := p.Perft(depth); n != want {
			b.Fatalf("perft(%d) = %d, want %d", depth, n, want)
		}
		nodes += want
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkPerftStart5(b *testing.B)    { benchPerft(b, StartFEN, 5, 4865609) }
func BenchmarkPerftKiwipete4(b *testing.B) { benchPerft(b, kiwipete, 4, 4085603) }

// benchPositions are middlegame-ish positions for the generator benchmarks.
var benchPositions = []string{
	StartFEN,
	kiwipete,
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
}

func loadBench(b *testing.B) []Position {
	ps := make([]Position, len(benchPositions))
	for i, f := range benchPositions {
		ps[i] = mustFEN(b, f)
	}
	return ps
}

func BenchmarkGenerateLegal(b *testing.B)    { benchGenerate(b, (*Position).GenerateLegal) }
func BenchmarkGenerateCaptures(b *testing.B) { benchGenerate(b, (*Position).GenerateCaptures) }

// benchGenerate times gen over the benchmark positions (one op: all of them).
func benchGenerate(b *testing.B, gen func(*Position, *MoveList)) {
	ps := loadBench(b)
	var l MoveList
	for b.Loop() {
		for i := range ps {
			l.N = 0
			gen(&ps[i], &l)
		}
	}
}

// BenchmarkMakeMove makes every legal move of the benchmark positions
// (reported per move made).
func BenchmarkMakeMove(b *testing.B) {
	ps := loadBench(b)
	lists := make([]MoveList, len(ps))
	total := 0
	for i := range ps {
		ps[i].GenerateLegal(&lists[i])
		total += lists[i].N
	}
	var child Position
	b.ResetTimer()
	for i := 0; i < b.N; {
		for j := range ps {
			for _, m := range lists[j].Slice() {
				ps[j].MakeMove(m, &child)
				i++
			}
		}
	}
}

func BenchmarkIsLegal(b *testing.B) {
	ps := loadBench(b)
	lists := make([]MoveList, len(ps))
	for i := range ps {
		ps[i].GenerateLegal(&lists[i])
	}
	b.ResetTimer()
	for i := 0; i < b.N; {
		for j := range ps {
			for _, m := range lists[j].Slice() {
				if !ps[j].IsLegal(m) {
					b.Fatal("legal move rejected")
				}
				i++
			}
		}
	}
}

func BenchmarkGivesCheck(b *testing.B) {
	ps := loadBench(b)
	lists := make([]MoveList, len(ps))
	for i := range ps {
		ps[i].GenerateLegal(&lists[i])
	}
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; {
		for j := range ps {
			for _, m := range lists[j].Slice() {
				if ps[j].GivesCheck(m) {
					n++
				}
				i++
			}
		}
	}
}

func BenchmarkInitAttacks(b *testing.B) {
	for b.Loop() {
		fillMagics(&rookMagics, &rookMagicNumbers, rookTable[:], rookDirs)
		fillMagics(&bishopMagics, &bishopMagicNumbers, bishopTable[:], bishopDirs)
		initLeapers()
		initLines()
	}
}

func TestHotPathAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	p := mustFEN(t, kiwipete)
	var l MoveList
	var child Position
	allocs := testing.AllocsPerRun(100, func() {
		l.N = 0
		p.GenerateLegal(&l)
		for _, m := range l.Slice() {
			p.MakeMove(m, &child)
			_ = p.GivesCheck(m)
			_ = p.IsLegal(m)
			_ = p.IsCapture(m)
		}
		l.N = 0
		p.GenerateCaptures(&l)
		p.GenerateQuiets(&l)
		p.MakeNullMove(&child)
		_ = p.Perft(2)
		_ = p.AttackersTo(E4, p.Occupied())
	})
	if allocs != 0 {
		t.Errorf("hot path allocates %.1f times per run, want 0", allocs)
	}
}
