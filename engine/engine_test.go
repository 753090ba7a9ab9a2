package engine

import (
	"context"
	"errors"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// longTests reports whether the slow variants are enabled.
func longTests() bool { return os.Getenv("PONDEROSA_LONG") == "1" }

func mustGame(t testing.TB, fen string, moves ...string) *board.Game {
	t.Helper()
	pos, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("ParseFEN(%q): %v", fen, err)
	}
	g := board.NewGame(pos)
	for _, m := range moves {
		if err := g.PlayUCI(m); err != nil {
			t.Fatalf("PlayUCI(%s): %v", m, err)
		}
	}
	return g
}

func uciOf(g *board.Game, m board.Move) string {
	pos := g.Position()
	if m == board.NoMove {
		return "0000"
	}
	return pos.UCI(m)
}

func assertLegal(t *testing.T, g *board.Game, m board.Move) {
	t.Helper()
	pos := g.Position()
	if m == board.NoMove || !pos.IsLegal(m) {
		t.Fatalf("best move %v is not legal in %s", m, pos.FEN())
	}
}

func TestMateAtFixedDepth(t *testing.T) {
	tests := []struct {
		name, fen string
		depth     int
		want      []string
		mateIn    int
	}{
		{"back rank mate in 1", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 3, []string{"d1d8"}, 1},
		{"queen mate in 1", "k7/8/1K6/8/8/8/8/6Q1 w - - 0 1", 3, []string{"g1g8", "g1a7"}, 1},
		{"black mates in 1", "3r2k1/8/8/8/8/8/5PPP/6K1 b - - 0 1", 3, []string{"d8d1"}, 1},
		{"mate in 2 (rook ladder)", "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 5, []string{"b1b7", "a2a7"}, 2},
		{"mate in 2 queen+rook", "6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", 6, []string{"g2g1"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, tc.fen)
			e := New(Options{HashMB: 4})
			res := e.Search(context.Background(), g, Limits{Depth: tc.depth}, nil)
			got := uciOf(g, res.Best)
			if !slices.Contains(tc.want, got) {
				t.Errorf("best = %s, want one of %v (score %v)", got, tc.want, res.Score)
			}
			if res.Score.MateIn() != tc.mateIn {
				t.Errorf("score %v, want mate %d", res.Score, tc.mateIn)
			}
		})
	}
}

func TestBeingMatedScore(t *testing.T) {
	// White's only move Kg1 allows ...Rb1#: mated in 1.
	g := mustGame(t, "7k/8/8/8/8/1r6/r7/7K w - - 0 1")
	e := New(Options{HashMB: 4})
	res := e.Search(context.Background(), g, Limits{Depth: 4}, nil)
	assertLegal(t, g, res.Best)
	if res.Score.MateIn() != -1 {
		t.Errorf("score %v, want mate -1", res.Score)
	}
}

func TestNoLegalMoves(t *testing.T) {
	for _, tc := range []struct {
		name, fen string
		score     Score
	}{
		{"checkmated", "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", -MateScore},
		{"stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{})
			res := e.Search(context.Background(), mustGame(t, tc.fen), Limits{Depth: 5}, nil)
			if res.Best != board.NoMove {
				t.Errorf("best = %v, want NoMove", res.Best)
			}
			if res.Score != tc.score {
				t.Errorf("score = %v, want %v", res.Score, tc.score)
			}
		})
	}
}

func TestStopAtDepthOneReturnsLegalMove(t *testing.T) {
	g := mustGame(t, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	for i := 0; i < 20; i++ {
		e := New(Options{Threads: 1 + i%2})
		e.Stop() // a stray stop while idle is ignored
		done := make(chan Result)
		go func() { done <- e.Search(context.Background(), g, Limits{Infinite: true}, nil) }()
		// Stop as early as possible, possibly before the search registers:
		// keep calling Stop until it returns.
		var res Result
	loop:
		for {
			e.Stop()
			select {
			case res = <-done:
				break loop
			case <-time.After(time.Millisecond):
			}
		}
		assertLegal(t, g, res.Best)
	}
}

func TestCancelContextReturnsPromptly(t *testing.T) {
	g := mustGame(t, board.StartFEN)
	e := New(Options{Threads: 2})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	searching := make(chan struct{})
	var once sync.Once
	go func() {
		done <- e.Search(ctx, g, Limits{Infinite: true}, func(Info) { once.Do(func() { close(searching) }) })
	}()
	<-searching // the first iteration reported: the search is under way
	cancel()
	select {
	case res := <-done:
		assertLegal(t, g, res.Best)
	case <-time.After(2 * time.Second):
		t.Fatal("Search did not return after ctx cancel")
	}
	// An already cancelled context still yields a legal move.
	res := e.Search(ctx, g, Limits{}, nil)
	assertLegal(t, g, res.Best)
}

func TestPonderWaitsForPonderHit(t *testing.T) {
	// A mate in 1 is found at once, but a ponder search must not return
	// before PonderHit.
	g := mustGame(t, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
	e := New(Options{})
	done := make(chan Result, 1)
	go func() {
		done <- e.Search(context.Background(), g, Limits{Ponder: true, WTime: time.Second, BTime: time.Second}, nil)
	}()
	select {
	case <-done:
		t.Fatal("ponder search returned before ponderhit")
	case <-time.After(100 * time.Millisecond):
	}
	e.PonderHit()
	select {
	case res := <-done:
		if uciOf(g, res.Best) != "d1d8" {
			t.Errorf("best = %s, want d1d8", uciOf(g, res.Best))
		}
	case <-time.After(2 * time.Second):
		t.Fatal("ponder search did not return after ponderhit")
	}
}

func TestInfiniteWaitsForStop(t *testing.T) {
	g := mustGame(t, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
	e := New(Options{})
	done := make(chan Result, 1)
	go func() { done <- e.Search(context.Background(), g, Limits{Infinite: true, Depth: 3}, nil) }()
	select {
	case <-done:
		t.Fatal("infinite search returned before stop")
	case <-time.After(100 * time.Millisecond):
	}
	e.PonderHit() // not a ponder search: ignored
	select {
	case <-done:
		t.Fatal("infinite search returned on ponderhit")
	case <-time.After(50 * time.Millisecond):
	}
	e.Stop()
	select {
	case res := <-done:
		assertLegal(t, g, res.Best)
	case <-time.After(2 * time.Second):
		t.Fatal("infinite search did not return after stop")
	}
}

// TestPonderHitStartsClock ponders for longer than the whole budget of the
// clock it was given, then sends ponderhit: the search must go on searching
// for its soft budget from the hit (had the clock run while pondering, the
// hard limit would be long past and it would stop at once) and stop within
// the hard limit from the hit.
func TestPonderHitStartsClock(t *testing.T) {
	g := mustGame(t, board.StartFEN)
	const overhead = 10 * time.Millisecond
	l := Limits{Ponder: true, WTime: time.Second, BTime: time.Second, MovesToGo: 1}
	b := computeBudget(l, board.White, overhead, 0) // 792 ms soft and hard: 80% of one move's clock
	e := New(Options{Threads: 2, MoveOverhead: overhead})
	started := make(chan struct{})
	var once sync.Once
	h := e.Start(context.Background(), g, l, func(Info) { once.Do(func() { close(started) }) })
	<-started
	// Let the pondering outlast the hard limit (the only wall-clock wait:
	// the clock is what is under test).
	time.Sleep(b.hard + 100*time.Millisecond)
	select {
	case <-h.Done():
		t.Fatal("a ponder search returned before ponderhit")
	default:
	}
	hit := time.Now()
	h.PonderHit()
	res := h.Wait()
	after := time.Since(hit)
	assertLegal(t, g, res.Best)
	// No iteration starts past the soft limit, lowered for the pondering
	// (to a third at least) and scaled by stability (0.6 at least), nor
	// past half the hard limit; until then the search goes on.
	least := min(time.Duration(float64(b.soft/3)*0.6), b.hard/2)
	if after < least {
		t.Errorf("the search stopped %v after ponderhit, before %v: its clock ran while pondering", after, least)
	}
	if after > b.hard+time.Second {
		t.Errorf("the search ran %v after ponderhit, past its hard limit %v", after, b.hard)
	}
}

func TestPonderStopSequencesRace(t *testing.T) {
	// Random interleavings of ponder, ponderhit and stop from several
	// goroutines (run with -race).
	g := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	e := New(Options{Threads: 2, HashMB: 2})
	for i := 0; i < 10; i++ {
		done := make(chan Result, 1)
		go func() {
			done <- e.Search(context.Background(), g, Limits{Ponder: true, WTime: 50 * time.Millisecond, BTime: 50 * time.Millisecond, WInc: 0}, func(Info) {})
		}()
		var wg sync.WaitGroup
		for j := 0; j < 3; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i+j) * time.Millisecond)
				if (i+j)%2 == 0 {
					e.PonderHit()
				} else {
					e.Stop()
				}
			}()
		}
		wg.Wait()
		var res Result
	loop:
		for {
			select {
			case res = <-done:
				break loop
			case <-time.After(5 * time.Millisecond):
				e.Stop() // the search may have started after the calls
			}
		}
		assertLegal(t, g, res.Best)
		_ = e.Options()
	}
	e.NewGame()
}

func TestSearchMovesAndMultiPV(t *testing.T) {
	g := mustGame(t, board.StartFEN)
	pos := g.Position()
	a3, _ := pos.ParseUCIMove("a2a3")
	h3, _ := pos.ParseUCIMove("h2h3")
	e := New(Options{})
	res := e.Search(context.Background(), g, Limits{Depth: 4, SearchMoves: []board.Move{a3, h3}}, nil)
	if res.Best != a3 && res.Best != h3 {
		t.Errorf("best %s not among searchmoves", uciOf(g, res.Best))
	}
	e.SetOptions(Options{MultiPV: 3})
	lines := map[int]board.Move{}
	e.Search(context.Background(), g, Limits{Depth: 5}, func(in Info) {
		if in.Depth == 5 && in.PV != nil {
			lines[in.MultiPV] = in.PV[0]
		}
	})
	if len(lines) != 3 {
		t.Fatalf("got %d MultiPV lines at depth 5, want 3: %v", len(lines), lines)
	}
	if lines[1] == lines[2] || lines[2] == lines[3] || lines[1] == lines[3] {
		t.Errorf("MultiPV lines share a first move: %v", lines)
	}
}

func TestNodeLimit(t *testing.T) {
	g := mustGame(t, board.StartFEN)
	e := New(Options{})
	res := e.Search(context.Background(), g, Limits{Nodes: 20000}, nil)
	assertLegal(t, g, res.Best)
	if res.Nodes > 20000+2048 {
		t.Errorf("searched %d nodes with a 20000 node limit", res.Nodes)
	}
}

func TestMateLimit(t *testing.T) {
	g := mustGame(t, "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1")
	e := New(Options{})
	res := e.Search(context.Background(), g, Limits{Mate: 2}, nil)
	if res.Score.MateIn() != 2 {
		t.Errorf("score %v, want mate 2", res.Score)
	}
}

// TestMoveTimeIsHonoured: a movetime search uses its time less the move
// overhead, all of it (no early stop) and not more than a poll interval
// and scheduling noise beyond it.
func TestMoveTimeIsHonoured(t *testing.T) {
	g := mustGame(t, board.StartFEN)
	e := New(Options{MoveOverhead: 5 * time.Millisecond})
	const want = 45 * time.Millisecond // 50 ms movetime less 5 ms overhead
	res := e.Search(context.Background(), g, Limits{MoveTime: 50 * time.Millisecond}, nil)
	assertLegal(t, g, res.Best)
	t.Logf("movetime 50ms, overhead 5ms: searched %v", res.Time)
	if res.Time < want || res.Time > want+moveTimeNoise {
		t.Errorf("movetime 50ms with 5ms overhead took %v, want %v to %v", res.Time, want, want+moveTimeNoise)
	}
}

func TestRepetitionDetection(t *testing.T) {
	shuffle := []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"}
	const fen = "6nk/8/8/8/8/8/8/6NK w - - 0 1"
	for n, want := range map[int]bool{3: false, 4: true, 7: true} {
		g := mustGame(t, fen, shuffle[:n]...)
		root := g.Position()
		w := newWorker(0, newTransTable(1), nil, nil)
		w.prepare(newRun(Limits{}, timeBudget{}), &root, g.Keys(), legalRootMoves(&root, nil), 1)
		if got := w.isRepetition(0); got != want {
			t.Errorf("after %d moves: isRepetition = %v, want %v", n, got, want)
		}
	}
}

func TestBenchDeterministic(t *testing.T) {
	e := New(Options{Threads: 1, HashMB: 16})
	depth := 5
	n1, _ := e.Bench(context.Background(), depth)
	n2, _ := e.Bench(context.Background(), depth)
	if n1 != n2 || n1 == 0 {
		t.Errorf("bench node counts differ: %d vs %d", n1, n2)
	}
	e2 := New(Options{Threads: 1, HashMB: 16})
	if n3, _ := e2.Bench(context.Background(), depth); n3 != n1 {
		t.Errorf("a fresh engine benches %d nodes, want %d", n3, n1)
	}
}

// TestTwoEnginesIndependent checks that two Engines share no table: one
// thread's search is deterministic, so engine b searching while engine a
// searches the same position deeper (and fills its own table with it) must
// count exactly the nodes and choose the move that a lone engine does.
func TestTwoEnginesIndependent(t *testing.T) {
	g := mustGame(t, board.StartFEN)
	opts := Options{HashMB: 2, Threads: 1}
	lone := New(opts).Search(context.Background(), g, Limits{Depth: 7}, nil)
	a, b := New(opts), New(opts)
	aDone := make(chan Result, 1)
	go func() { aDone <- a.Search(context.Background(), g, Limits{Depth: 9}, nil) }()
	res := b.Search(context.Background(), g, Limits{Depth: 7}, nil)
	resA := <-aDone
	if res.Nodes != lone.Nodes || res.Best != lone.Best || res.Score != lone.Score {
		t.Errorf("beside another engine: %d nodes, %v, %v; alone: %d nodes, %v, %v",
			res.Nodes, res.Best, res.Score, lone.Nodes, lone.Best, lone.Score)
	}
	assertLegal(t, g, res.Best)
	assertLegal(t, g, resA.Best)
}

func TestSearchAllocations(t *testing.T) {
	// The tree search itself allocates nothing: a deeper search costs no
	// more allocations than a shallow one (the facade allocates a fixed few).
	g := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	e := New(Options{HashMB: 2})
	shallow := testing.AllocsPerRun(3, func() { e.Search(context.Background(), g, Limits{Depth: 3}, nil) })
	deep := testing.AllocsPerRun(3, func() { e.Search(context.Background(), g, Limits{Depth: 7}, nil) })
	if deep > shallow {
		t.Errorf("depth 7 search allocates %.0f times, depth 2 %.0f: the tree search allocates", deep, shallow)
	}
}

func TestScoreFormatting(t *testing.T) {
	tests := []struct {
		s    Score
		want string
		mate int
	}{
		{23, "cp 23", 0},
		{-150, "cp -150", 0},
		{mateIn(1), "mate 1", 1},
		{mateIn(3), "mate 2", 2},
		{matedIn(2), "mate -1", -1},
		{matedIn(4), "mate -2", -2},
		{matedIn(0), "mate 0", 0},
	}
	for _, tc := range tests {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("Score(%d).String() = %q, want %q", tc.s, got, tc.want)
		}
		if got := tc.s.MateIn(); got != tc.mate {
			t.Errorf("Score(%d).MateIn() = %d, want %d", tc.s, got, tc.mate)
		}
	}
}

func TestIllegalSearchMovesFallBack(t *testing.T) {
	g := mustGame(t, board.StartFEN)
	bogus := board.NewMove(board.Square(0), board.Square(63))
	res := New(Options{}).Search(context.Background(), g, Limits{Depth: 3, SearchMoves: []board.Move{bogus}}, nil)
	assertLegal(t, g, res.Best)
}

func TestLimitStrength(t *testing.T) {
	g := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	weak := New(Options{LimitStrength: true, Elo: MinElo})
	seen := map[board.Move]bool{}
	for i := 0; i < 12; i++ {
		res := weak.Search(context.Background(), g, Limits{MoveTime: time.Second}, nil)
		assertLegal(t, g, res.Best)
		seen[res.Best] = true
	}
	if len(seen) < 2 {
		t.Errorf("weakest setting always plays the same move: %v", seen)
	}
	// A weak engine still takes a free queen.
	g2 := mustGame(t, "rnb1kbnr/pppp1ppp/8/4p3/3qP3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 0 1")
	res := weak.Search(context.Background(), g2, Limits{Depth: 10}, nil)
	if got := uciOf(g2, res.Best); got != "f3d4" {
		t.Errorf("weak engine plays %s instead of taking the queen", got)
	}
	sp := planStrength(MinElo)
	strong := planStrength(MaxElo)
	if sp.nodes >= strong.nodes || sp.margin <= strong.margin {
		t.Errorf("strength plans not monotonic: %+v vs %+v", sp, strong)
	}
}

// TestStartHandleNeverLosesStopOrPonderHit calls Stop or PonderHit the
// instant Start returns: the search must see them every time (with Search
// on a goroutine of its own, such calls could run before it registers).
func TestStartHandleNeverLosesStopOrPonderHit(t *testing.T) {
	g := mustGame(t, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	e := New(Options{Threads: 2, HashMB: 2, MoveOverhead: time.Millisecond})
	wait := func(h *Handle, what string) Result {
		t.Helper()
		select {
		case <-h.Done():
			return h.Wait()
		case <-time.After(5 * time.Second):
			h.Stop()
			t.Fatalf("%s was lost: the search did not return", what)
			return Result{}
		}
	}
	for i := 0; i < 50; i++ {
		h := e.Start(context.Background(), g, Limits{Infinite: true}, nil)
		if i%2 == 0 {
			h.Stop()
		} else {
			e.Stop()
		}
		assertLegal(t, g, wait(h, "Stop").Best)

		h = e.Start(context.Background(), g, Limits{Ponder: true, WTime: 20 * time.Millisecond, BTime: 20 * time.Millisecond}, nil)
		if i%2 == 0 {
			h.PonderHit()
		} else {
			e.PonderHit()
		}
		assertLegal(t, g, wait(h, "PonderHit").Best)
	}
	// Calls on a finished handle do nothing.
	h := e.Start(context.Background(), g, Limits{Depth: 1}, nil)
	res := h.Wait()
	h.Stop()
	h.PonderHit()
	assertLegal(t, g, res.Best)
}

// TestStartSerialises checks that a second Start waits for the first search.
func TestStartSerialises(t *testing.T) {
	g := mustGame(t, board.StartFEN)
	e := New(Options{HashMB: 2})
	h1 := e.Start(context.Background(), g, Limits{Infinite: true}, nil)
	second := make(chan *Handle)
	go func() { second <- e.Start(context.Background(), g, Limits{Depth: 2}, nil) }()
	select {
	case <-second:
		t.Fatal("Start returned while another search was running")
	case <-time.After(50 * time.Millisecond):
	}
	h1.Stop()
	assertLegal(t, g, h1.Wait().Best)
	assertLegal(t, g, (<-second).Wait().Best)
}

func TestSearchWithNegativeClocksReturns(t *testing.T) {
	e := New(Options{HashMB: 1})
	done := make(chan Result, 1)
	go func() {
		done <- e.Search(context.Background(), mustGame(t, board.StartFEN), Limits{WTime: -time.Second, BTime: -time.Second}, nil)
	}()
	select {
	case res := <-done:
		if res.Best == board.NoMove {
			t.Error("no move")
		}
	case <-time.After(10 * time.Second):
		e.Stop()
		t.Fatal("a search with both clocks negative did not return within 10 s")
	}
}

// A hash table bigger than the memory left is refused with ErrNoMemory and
// the old table stays; the engine still searches.
func TestSetOptionsRefusesHashThatDoesNotFit(t *testing.T) {
	avail, ok := AvailableMemory()
	if !ok {
		t.Skip("available memory cannot be measured here")
	}
	if HashBytes(MaxHashMB) <= avail {
		t.Skipf("this machine has %d MiB available: the largest hash fits", avail>>20)
	}
	e := New(Options{HashMB: 2, Threads: 1})
	err := e.SetOptions(Options{HashMB: MaxHashMB, Threads: 2})
	if !errors.Is(err, ErrNoMemory) {
		t.Fatalf("SetOptions(Hash %d) = %v, want ErrNoMemory", MaxHashMB, err)
	}
	if o := e.Options(); o.HashMB != 2 || o.Threads != 2 {
		t.Errorf("after the refusal: Hash %d Threads %d, want 2 (kept) and 2 (applied)", o.HashMB, o.Threads)
	}
	if n := len(e.tt.buckets); n != 2<<20/64 {
		t.Errorf("table has %d buckets, want the old %d", n, 2<<20/64)
	}
	if res := e.Search(context.Background(), mustGame(t, board.StartFEN), Limits{Depth: 3}, nil); res.Best == board.NoMove {
		t.Error("no move after the refused resize")
	}
	// New with a size that does not fit falls back instead of dying.
	if got := New(Options{HashMB: MaxHashMB}).Options().HashMB; got != DefaultHashMB {
		t.Errorf("New(Hash %d) uses %d MB, want the default %d", MaxHashMB, got, DefaultHashMB)
	}
}

// Threads dropped by SetOptions are garbage: their history tables are not
// kept alive by the engine (or by a finished search).
func TestDroppedWorkersAreFreed(t *testing.T) {
	e := New(Options{HashMB: 1, Threads: 4})
	e.Search(context.Background(), mustGame(t, board.StartFEN), Limits{Depth: 2}, nil)
	freed := make(chan int, 3)
	for i, w := range e.workers[1:] {
		runtime.AddCleanup(w, func(i int) { freed <- i }, i)
	}
	e.SetOptions(Options{HashMB: 1, Threads: 1})
	deadline := time.After(10 * time.Second)
	for n := 0; n < 3; {
		runtime.GC()
		select {
		case <-freed:
			n++
		case <-time.After(20 * time.Millisecond): // give the cleanup goroutine a turn, then collect again
		case <-deadline:
			t.Fatalf("%d of 3 dropped workers freed after 10 s", n)
		}
	}
	if len(e.workers) != 1 {
		t.Errorf("%d workers, want 1", len(e.workers))
	}
}

// TestDefaultOptions: the defaults front-ends announce are the ones an
// engine built from DefaultOptions keeps (Move Overhead included: zero is a
// valid overhead, so New never fills it in).
func TestDefaultOptions(t *testing.T) {
	d := DefaultOptions()
	if d.MoveOverhead != DefaultMoveOverhead || d.HashMB != DefaultHashMB || d.Threads != 1 || d.MultiPV != 1 || d.Elo != DefaultElo {
		t.Fatalf("DefaultOptions() = %+v", d)
	}
	got := New(d).Options()
	if got.MoveOverhead != d.MoveOverhead || got.HashMB != d.HashMB || got.Threads != d.Threads || got.Elo != d.Elo {
		t.Fatalf("New(DefaultOptions()).Options() = %+v, want %+v", got, d)
	}
	if o := New(Options{}).Options(); o.MoveOverhead != 0 {
		t.Fatalf("a zero Move Overhead became %v", o.MoveOverhead)
	}
}
