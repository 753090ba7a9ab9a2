package nnue

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

var testFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
}

// randomWalk plays up to plies random legal moves from fen, calling f
// before each move with the position and the move.
func randomWalk(t testing.TB, rng *rand.Rand, fen string, plies int, f func(pos *board.Position, m board.Move)) {
	pos, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	for range plies {
		var ml board.MoveList
		pos.GenerateLegal(&ml)
		if ml.N == 0 {
			return
		}
		m := ml.Moves[rng.IntN(ml.N)]
		f(&pos, m)
		var child board.Position
		pos.MakeMove(m, &child)
		pos = child
	}
}

// kernels runs f with the pure-Go kernels and, where the CPU has them,
// the AVX2 kernels.
func kernels(t *testing.T, net *Network, f func(t *testing.T, net *Network)) {
	t.Run("go", func(t *testing.T) { f(t, net.WithSIMD(false)) })
	t.Run("avx2", func(t *testing.T) {
		if !hasAVX2 {
			t.Skip("no AVX2 on this CPU")
		}
		f(t, net.WithSIMD(true))
	})
}

func TestQuantisedMatchesFloat(t *testing.T) {
	for _, buckets := range []int{1, 8} {
		t.Run(fmt.Sprintf("buckets=%d", buckets), func(t *testing.T) {
			fn := NewRandomFloatNet(32, buckets, 1)
			net, err := fn.Quantize()
			if err != nil {
				t.Fatal(err)
			}
			kernels(t, net, func(t *testing.T, net *Network) { quantisedMatchesFloat(t, fn, net) })
		})
	}
}

func TestOutputBucket(t *testing.T) {
	for _, c := range []struct{ pieces, buckets, want int }{
		{32, 1, 0}, {2, 1, 0},
		{2, 8, 0}, {5, 8, 0}, {6, 8, 1}, {17, 8, 3}, {29, 8, 6}, {30, 8, 7}, {32, 8, 7},
		{12, 3, 0}, {13, 3, 1}, {24, 3, 2}, {32, 3, 2},
		{0, 8, 0}, {40, 8, 7}, // out of a legal position's range: clamped
	} {
		if got := OutputBucket(c.pieces, c.buckets); got != c.want {
			t.Errorf("OutputBucket(%d, %d) = %d, want %d", c.pieces, c.buckets, got, c.want)
		}
	}
}

// TestBucketSelection: a network with 8 output buckets evaluates each
// position exactly as the one-bucket network made of the same feature
// transformer and the output layer of that position's bucket; the buckets
// differ, so a wrong choice shows.
func TestBucketSelection(t *testing.T) {
	fn := NewRandomFloatNet(32, 8, 11)
	net, err := fn.Quantize()
	if err != nil {
		t.Fatal(err)
	}
	single := make([]*Network, fn.Buckets)
	for b := range single {
		one := *fn
		one.Buckets = 1
		w, bias := fn.OutLayer(b)
		one.OutW, one.OutB = w, []float32{*bias}
		if single[b], err = one.Quantize(); err != nil {
			t.Fatal(err)
		}
	}
	kernels(t, net, func(t *testing.T, net *Network) {
		rng := rand.New(rand.NewPCG(12, 13))
		seen := map[int]bool{}
		differ, n := 0, 0
		for i := range 40 {
			randomWalk(t, rng, testFENs[i%len(testFENs)], 80, func(pos *board.Position, _ board.Move) {
				b := OutputBucket(pos.Occupied().Count(), 8)
				seen[b] = true
				got, want := net.EvaluatePosition(pos), single[b].EvaluatePosition(pos)
				if got != want {
					t.Fatalf("%s: %d, bucket %d's layer alone %d", pos.FEN(), got, b, want)
				}
				if single[(b+1)%8].EvaluatePosition(pos) != got {
					differ++
				}
				n++
			})
		}
		if len(seen) < 3 || differ < n*9/10 {
			t.Fatalf("buckets seen %v; another bucket's layer differed on %d of %d positions", seen, differ, n)
		}
	})
}

// TestFileVersions: a one-bucket network is written as version 1 (the
// format of every network before output buckets), a bucketed one as
// version 2 with its bucket count; both read back to the same file.
func TestFileVersions(t *testing.T) {
	for _, c := range []struct{ buckets, version int }{{1, 1}, {8, 2}} {
		net, err := NewRandomFloatNet(16, c.buckets, 3).Quantize()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := net.MarshalBinary()
		if v := binary.LittleEndian.Uint32(b[8:]); int(v) != c.version {
			t.Errorf("%d buckets: written as version %d, want %d", c.buckets, v, c.version)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("%d buckets: %v", c.buckets, err)
		}
		if back.Buckets() != c.buckets || back.ID() != net.ID() {
			t.Errorf("%d buckets: read back %d buckets, id %s (was %s)", c.buckets, back.Buckets(), back.ID(), net.ID())
		}
	}
}

func quantisedMatchesFloat(t *testing.T, fn *FloatNet, net *Network) {
	deq := dequantize(net)
	rng := rand.New(rand.NewPCG(3, 4))
	var n int
	var sumErr, maxErr, sumBound float64
	for n < 3000 {
		randomWalk(t, rng, testFENs[n%len(testFENs)], 60, func(pos *board.Position, _ board.Move) {
			want := fn.EvaluatePosition(pos)
			got := float64(net.EvaluatePosition(pos))
			d := math.Abs(got - want)
			sumErr += d
			maxErr = max(maxErr, d)
			// Against the float network with the quantised weights the
			// integer path is exact but for float32 rounding and the
			// truncating divisions (under 1 cp each).
			if dq := deq.EvaluatePosition(pos); math.Abs(got-dq) > 2+1e-4*math.Abs(dq) {
				t.Fatalf("%s: quantised %v, float with the same weights %.3f", pos.FEN(), got, dq)
			}
			bound := quantBound(fn, pos)
			sumBound += bound
			if d > bound {
				t.Fatalf("%s: quantised %v, float %.2f: error above the bound %.2f", pos.FEN(), got, want, bound)
			}
			n++
		})
	}
	t.Logf("%d positions: mean |error| %.2f cp, max %.2f cp, mean bound %.2f cp", n, sumErr/float64(n), maxErr, sumBound/float64(n))
}

// dequantize returns the float network whose weights are exactly those
// of n.
func dequantize(n *Network) *FloatNet {
	f := NewFloatNet(n.hidden, n.buckets)
	f.Scale = int(n.scale)
	for i, v := range n.ftW {
		f.FTW[i] = float32(v) / QA
	}
	for i, v := range n.ftB {
		f.FTB[i] = float32(v) / QA
	}
	for i, v := range n.outW {
		f.OutW[i] = float32(v) / QB
	}
	for i, v := range n.outB {
		f.OutB[i] = float32(v) / (QA * QB)
	}
	return f
}

// quantBound returns the largest error, in centipawns, that rounding the
// weights of fn can cause on pos: each accumulator is off by at most e =
// (features+1)·½/QA; the activation's slope is at most 2·(|a|+e) clipped
// to 2; each output weight is off by at most ½/QB; the output bias by
// ½/(QA·QB); the integer divisions truncate (at most 1 unit of the output
// scale and 1 centipawn).
func quantBound(fn *FloatNet, pos *board.Position) float64 {
	stm := pos.SideToMove()
	feats := [2][]int{Features(nil, pos, stm), Features(nil, pos, stm^1)}
	h := fn.Hidden
	ow, _ := fn.OutLayer(OutputBucket(len(feats[0]), fn.Buckets))
	var logit float64
	for side, fs := range feats {
		e := float64(len(fs)+1) * 0.5 / QA
		for j := 0; j < h; j++ {
			a := float64(fn.FTB[j])
			for _, f := range fs {
				a += float64(fn.FTW[f*h+j])
			}
			w := math.Abs(float64(ow[side*h+j]))
			slope := min(2*(math.Abs(a)+e), 2)
			act := min(max(a+e, 0), 1)
			act *= act
			logit += slope*e*w + act*0.5/QB + 1.0/QA*(w+0.5/QB)
		}
	}
	logit += 0.5/(QA*QB) + 1.0/(QA*QB)
	return logit*float64(fn.Scale) + 1
}

func checkIncremental(t testing.TB, net *Network, rng *rand.Rand, fen string, plies int) {
	acc := [2]Accumulator{net.NewAccumulator(), net.NewAccumulator()}
	fresh := net.NewAccumulator()
	pos0, _ := board.ParseFEN(fen)
	net.Refresh(&acc[0], &pos0)
	i := 0
	randomWalk(t, rng, fen, plies, func(pos *board.Position, m board.Move) {
		src, dst := &acc[i&1], &acc[(i+1)&1]
		net.Update(dst, src, pos, m)
		var child board.Position
		pos.MakeMove(m, &child)
		net.Refresh(&fresh, &child)
		for c := board.White; c <= board.Black; c++ {
			if !slicesEqual(dst.Values(c), fresh.Values(c)) {
				t.Fatalf("after %s %s: incremental accumulator (%v) differs from a refresh", pos.FEN(), pos.UCI(m), c)
			}
		}
		i++
	})
}

func slicesEqual(a, b []int16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestIncrementalMatchesRefresh(t *testing.T) {
	net, err := NewRandomFloatNet(32, 1, 5).Quantize()
	if err != nil {
		t.Fatal(err)
	}
	kernels(t, net, func(t *testing.T, net *Network) {
		rng := rand.New(rand.NewPCG(6, 7))
		for i := range 100 {
			checkIncremental(t, net, rng, testFENs[i%len(testFENs)], 60)
		}
	})
}

func TestKernelsAgree(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	vec := func(n, lo, hi int) []int16 {
		v := make([]int16, n)
		for i := range v {
			v[i] = int16(lo + rng.IntN(hi-lo+1))
		}
		return v
	}
	for _, n := range []int{16, 32, 128, 1024, 2048} {
		for range 20 {
			// Accumulators past both ends of the clamp; output weights at
			// the bound Parse allows.
			acc, w := vec(n, -600, 600), vec(n, -127, 127)
			if a, b := screluDot(acc, w), screluDotSIMD(acc, w); a != b {
				t.Fatalf("n=%d: screluDot %d, AVX2 %d", n, a, b)
			}
			sat := vec(n, 255, 32767)
			wmax := vec(n, 127, 127)
			if a, b := screluDot(sat, wmax), screluDotSIMD(sat, wmax); a != b {
				t.Fatalf("n=%d saturated: screluDot %d, AVX2 %d", n, a, b)
			}
			src, x, y, z := vec(n, -8000, 8000), vec(n, -500, 500), vec(n, -500, 500), vec(n, -500, 500)
			d1, d2 := make([]int16, n), make([]int16, n)
			addSub(d1, src, x, y)
			addSubSIMD(d2, src, x, y)
			if !slicesEqual(d1, d2) {
				t.Fatalf("n=%d: addSub differs", n)
			}
			addSubSub(d1, src, x, y, z)
			addSubSubSIMD(d2, src, x, y, z)
			if !slicesEqual(d1, d2) {
				t.Fatalf("n=%d: addSubSub differs", n)
			}
		}
	}
}

func FuzzIncremental(f *testing.F) {
	net, err := NewRandomFloatNet(16, 1, 9).Quantize()
	if err != nil {
		f.Fatal(err)
	}
	for i := range testFENs {
		f.Add(uint64(i), uint8(i))
	}
	f.Fuzz(func(t *testing.T, seed uint64, which uint8) {
		rng := rand.New(rand.NewPCG(seed, 1))
		// Odd seeds use the AVX2 kernels where the CPU has them.
		checkIncremental(t, net.WithSIMD(seed&1 == 1), rng, testFENs[int(which)%len(testFENs)], 30)
	})
}

func TestEvaluateSymmetric(t *testing.T) {
	// The same position with colours swapped (board flipped, other side
	// to move) evaluates the same: the perspective is the side to move.
	net, err := NewRandomFloatNet(32, 1, 8).Quantize()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := board.ParseFEN("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	b, _ := board.ParseFEN("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3")
	if x, y := net.EvaluatePosition(&a), net.EvaluatePosition(&b); x != y {
		t.Fatalf("mirrored positions: %d and %d", x, y)
	}
}

func TestParseRejects(t *testing.T) {
	net, err := NewRandomFloatNet(16, 1, 3).Quantize()
	if err != nil {
		t.Fatal(err)
	}
	good, _ := net.MarshalBinary()
	back, err := Parse(good)
	if err != nil {
		t.Fatalf("parsing a marshalled network: %v", err)
	}
	if back.ID() != net.ID() || back.ID() == "" {
		t.Fatalf("ids %q and %q", back.ID(), net.ID())
	}
	mod := func(f func(b []byte) []byte) []byte {
		b := bytes.Clone(good)
		return f(b)
	}
	fixCRC := func(b []byte) []byte {
		body := len(b) - 4
		binary.LittleEndian.PutUint32(b[body:], crc32Of(b[:body]))
		return b
	}
	cases := map[string][]byte{
		"empty":        {},
		"header":       good[:headerSize-1],
		"truncated":    good[:len(good)-1],
		"trailing":     append(bytes.Clone(good), 0),
		"magic":        mod(func(b []byte) []byte { b[0] = 'X'; return b }),
		"version":      mod(func(b []byte) []byte { b[8] = 3; return fixCRC(b) }),
		"reserved":     mod(func(b []byte) []byte { b[22] = 1; return fixCRC(b) }),
		"v2 0 buckets": mod(func(b []byte) []byte { b[8] = 2; return fixCRC(b) }),
		"v2 1 bucket":  mod(func(b []byte) []byte { b[8], b[22] = 2, 1; return fixCRC(b) }),
		"v2 size":      mod(func(b []byte) []byte { b[8], b[22] = 2, 2; return fixCRC(b) }),
		"v2 buckets":   mod(func(b []byte) []byte { b[8], b[22] = 2, MaxBuckets+1; return fixCRC(b) }),
		"hidden":       mod(func(b []byte) []byte { b[12] = 17; return b }),
		"hidden big":   mod(func(b []byte) []byte { b[14] = 1; return b }),
		"qa":           mod(func(b []byte) []byte { b[16]++; return b }),
		"scale":        mod(func(b []byte) []byte { b[20], b[21] = 0, 0; return b }),
		"corrupted":    mod(func(b []byte) []byte { b[headerSize+100] ^= 1; return b }),
		"weight":       mod(func(b []byte) []byte { b[headerSize+1] = 0x7f; return fixCRC(b) }),
	}
	for name, b := range cases {
		if _, err := Parse(b); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	net, err := NewRandomFloatNet(16, 1, 3).Quantize()
	if err != nil {
		f.Fatal(err)
	}
	good, _ := net.MarshalBinary()
	f.Add(good)
	f.Add(good[:headerSize])
	f.Add(good[:len(good)-3])
	bucketed, err := NewRandomFloatNet(16, 4, 3).Quantize()
	if err != nil {
		f.Fatal(err)
	}
	v2, _ := bucketed.MarshalBinary()
	f.Add(v2)
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not wrapping ErrFormat: %v", err)
			}
			return
		}
		// A network that parses evaluates without panicking.
		pos := board.StartPosition()
		_ = n.EvaluatePosition(&pos)
	})
}

// go test -bench . ./engine/nnue: the kernels per evaluation and per move
// with N = 256, pure Go against AVX2.
func BenchmarkKernels(b *testing.B) {
	net, err := NewRandomFloatNet(256, 1, 1).Quantize()
	if err != nil {
		b.Fatal(err)
	}
	pos, _ := board.ParseFEN(testFENs[1])
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	for _, simd := range []bool{false, true} {
		if simd && !hasAVX2 {
			continue
		}
		n := net.WithSIMD(simd)
		name := map[bool]string{false: "go", true: "avx2"}[simd]
		src, dst := n.NewAccumulator(), n.NewAccumulator()
		n.Refresh(&src, &pos)
		b.Run("evaluate/"+name, func(b *testing.B) {
			for b.Loop() {
				n.Evaluate(&src, &pos)
			}
		})
		b.Run("update/"+name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				n.Update(&dst, &src, &pos, ml.Moves[i%ml.N])
				i++
			}
		})
	}
}

// TestDefaultNetwork: the built-in network parses, is the file in the
// repository (its ID is that file's hash), is shared, and evaluates like a
// chess network: the start position near level, a queen up clearly ahead
// for whichever side has it.
func TestDefaultNetwork(t *testing.T) {
	net, err := Default()
	if err != nil {
		t.Fatalf("the built-in network: %v", err)
	}
	again, _ := Default()
	if again != net {
		t.Error("Default parsed the built-in network twice")
	}
	fromFile, err := Load("default.nnue")
	if err != nil {
		t.Fatal(err)
	}
	if net.ID() != fromFile.ID() || net.Hidden() != fromFile.Hidden() {
		t.Errorf("built in %s (N=%d), default.nnue is %s (N=%d)", net.ID(), net.Hidden(), fromFile.ID(), fromFile.Hidden())
	}
	checkSane(t, net)
}

// TestCandidateNetworks loads every network kept in candidates/ (trained,
// not yet built in: candidates/README.md): each parses, is named by its
// id, and evaluates sanely.
func TestCandidateNetworks(t *testing.T) {
	files, err := filepath.Glob("candidates/*.nnue")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		net, err := Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if want := net.ID() + ".nnue"; filepath.Base(f) != want {
			t.Errorf("%s is network %s: name it %s", f, net.ID(), want)
		}
		checkSane(t, net)
	}
}

// checkSane checks that net sees the start position as about level and a
// queen as a queen for either side to move.
func checkSane(t *testing.T, net *Network) {
	t.Helper()
	eval := func(fen string) int {
		pos, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		return net.EvaluatePosition(&pos)
	}
	if v := eval(board.StartFEN); v < -60 || v > 60 {
		t.Errorf("%s: start position %d cp", net.ID(), v)
	}
	for fen, sign := range map[string]int{
		"rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1": 1,  // White a queen up, to move
		"rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1": -1, // the same, Black to move
	} {
		if v := eval(fen) * sign; v < 400 {
			t.Errorf("%s: %s: %d cp for the side a queen up", net.ID(), fen, v)
		}
	}
}

// TestFloatRoundTrip: Float undoes the quantisation — quantising the
// dequantised built-in network gives back its file byte for byte — and
// the float network evaluates like the integer one.
func TestFloatRoundTrip(t *testing.T) {
	net, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	f := net.Float()
	if f.Hidden != net.Hidden() || f.Scale != net.Scale() {
		t.Fatalf("Float: N=%d scale %d, network N=%d scale %d", f.Hidden, f.Scale, net.Hidden(), net.Scale())
	}
	back, err := f.Quantize()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := net.MarshalBinary()
	b, _ := back.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Fatalf("quantising Float() changed the network: %s became %s", net.ID(), back.ID())
	}
	for _, fen := range []string{board.StartFEN, "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"} {
		pos, _ := board.ParseFEN(fen)
		i, fl := net.EvaluatePosition(&pos), f.EvaluatePosition(&pos)
		if math.Abs(float64(i)-fl) > 2 {
			t.Errorf("%s: integer %d cp, float %.1f cp", fen, i, fl)
		}
	}
}
