package nnuetrain

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
	"github.com/ponderosa-chess/ponderosa/internal/testpos"
)

// syntheticData writes n records of random positions whose score is a
// material count (White's view) and whose result follows the score.
func syntheticData(t testing.TB, path string, n int) {
	w, err := nnuedata.OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	values := [7]int{0, 100, 300, 300, 500, 900, 0}
	written := 0
	testpos.Walk(rand.New(rand.NewPCG(1, 2)), 120, func(ply int, pos *board.Position) bool {
		if ply < 10 {
			return true
		}
		score := 0
		for pt := board.Pawn; pt <= board.Queen; pt++ {
			score += values[pt] * (pos.Pieces(board.White, pt).Count() - pos.Pieces(board.Black, pt).Count())
		}
		res := nnuedata.DrawGame
		switch {
		case score > 150:
			res = nnuedata.WhiteWin
		case score < -150:
			res = nnuedata.BlackWin
		}
		r := nnuedata.FromPosition(pos, int16(score), res)
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
		written++
		return written < n
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// smallRun writes 4000 synthetic records into dir and returns the
// configuration of a small, fast training run on them (no files out).
func smallRun(t *testing.T, dir string) Config {
	data := filepath.Join(dir, "synthetic.bin")
	syntheticData(t, data, 4000)
	return Config{
		Data: data, Hidden: 16, Epochs: 4, BatchSize: 256, LR: 0.01, Lambda: 0.3, Threads: 2,
		ValEvery: 10, ChunkSize: 1000, Seed: 3,
	}
}

func TestLossFalls(t *testing.T) {
	for _, buckets := range []int{1, 4} {
		t.Run(fmt.Sprintf("buckets=%d", buckets), func(t *testing.T) { lossFalls(t, buckets) })
	}
}

func lossFalls(t *testing.T, buckets int) {
	dir := t.TempDir()
	cfg := smallRun(t, dir)
	cfg.Buckets = buckets
	cfg.Checkpoint, cfg.Out = filepath.Join(dir, "ckpt"), filepath.Join(dir, "net.nnue")
	m, stats, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 5 {
		t.Fatalf("%d epoch stats, want 5 (epoch 0 and four)", len(stats))
	}
	first, last := stats[0].Val, stats[len(stats)-1].Val
	t.Logf("validation loss %.5f -> %.5f", first, last)
	if !(last < 0.7*first) {
		t.Fatalf("validation loss went from %.5f to %.5f, want a fall of at least 30%%", first, last)
	}
	if a, b := stats[0].ValMAE, stats[len(stats)-1].ValMAE; !(b < 0.8*a) || stats[len(stats)-1].ValMAEBalanced <= 0 {
		t.Fatalf("validation MAE went from %.1f to %.1f cp (balanced %.1f), want a fall of at least 20%%", a, b, stats[len(stats)-1].ValMAEBalanced)
	}
	// The exported network loads and agrees with the float model in sign
	// on a clearly won position.
	net, err := nnue.Load(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if net.Buckets() != buckets {
		t.Errorf("exported network has %d output buckets, want %d", net.Buckets(), buckets)
	}
	pos, _ := board.ParseFEN("4k3/8/8/8/8/8/PPPP4/QR2K3 w - - 0 1")
	if e := net.EvaluatePosition(&pos); e <= 0 {
		t.Errorf("White a queen, a rook and four pawns up: network says %d", e)
	}
	if f := m.Net.EvaluatePosition(&pos); f <= 0 {
		t.Errorf("float model says %.1f", f)
	}
	// Resuming from the checkpoint goes on from epoch 4.
	cfg.Epochs = 5
	m2, stats2, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Epoch != 5 || len(stats2) != 1 || stats2[0].Epoch != 5 {
		t.Fatalf("resumed run: epoch %d, stats %+v", m2.Epoch, stats2)
	}
}

func TestMirrorSample(t *testing.T) {
	// The mirrored sample of a position is the sample of the position
	// with files a↔h swapped.
	a, _ := board.ParseFEN("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R b - - 0 5")
	b, _ := board.ParseFEN("r2kqb1r/ppp1pppp/2n2n2/3p1b2/3P1B2/2N1P3/PPP2PPP/R2KQBNR b - - 0 5")
	ra, rb := nnuedata.FromPosition(&a, 30, nnuedata.DrawGame), nnuedata.FromPosition(&b, 30, nnuedata.DrawGame)
	var sa, sb sample
	makeSample(&ra, 0.5, 400, &sa)
	makeSample(&rb, 0.5, 400, &sb)
	mirrorSample(&sa)
	for side := range 2 {
		got := map[uint16]bool{}
		for _, f := range sa.feats[side][:sa.n] {
			got[f] = true
		}
		for _, f := range sb.feats[side][:sb.n] {
			if !got[f] {
				t.Fatalf("side %d: feature %d of the mirrored position missing", side, f)
			}
		}
	}
	if sa.n != sb.n || sa.target != sb.target {
		t.Fatalf("counts %d/%d, targets %v/%v", sa.n, sb.n, sa.target, sb.target)
	}
}

func TestMirrorSkipsCastlingPositions(t *testing.T) {
	// A position in which a side may still castle is not mirrored: its
	// mirror image (king on d1, castling to neither side) is not worth the
	// same. The others are.
	fens := []string{
		"4k3/8/8/8/8/8/8/4K3 w - - 0 1",                                        // held out (record 0)
		"r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R b - - 0 5",   // both may castle
		"r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w - - 0 7", // both castled
		"4k2r/8/8/8/8/8/8/R3K3 w - - 0 1",                                      // both may castle
		"4k3/8/8/8/8/8/8/R2K3R w - - 0 1",                                      // white king moved, rooks on corners
		"r3k3/8/8/8/8/8/8/3K4 b - - 0 1",                                       // black may castle
		"1r2k1r1/8/8/8/8/8/8/3K4 b - - 0 1",                                    // black rooks off the corners
	}
	want := []bool{false, true, false, true, false, true, false}
	dir := t.TempDir()
	data := filepath.Join(dir, "d.bin")
	w, err := nnuedata.OpenAppend(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, fen := range fens {
		pos, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		r := nnuedata.FromPosition(&pos, 0, nnuedata.DrawGame)
		if got := mayCastle(&r); got != want[i] {
			t.Errorf("mayCastle(%s) = %v, want %v", fen, got, want[i])
		}
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Data: data, Mirror: true, ValEvery: 100}
	cfg.defaults()
	n := 0
	err = streamChunks(cfg, rand.New(rand.NewPCG(1, 1)), func(c []sample) error { n += len(c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	// Six training records, three of them mirrored.
	if n != 9 {
		t.Fatalf("%d samples, want 9 (6 records, the 3 where nobody may castle mirrored)", n)
	}
}

func TestWeightDecay(t *testing.T) {
	// With a zero gradient Adam moves nothing; the decay shrinks the
	// weights by lr·wd and leaves the biases alone.
	m := NewModel(16, 1, 400, 1)
	ftw, ftb, outw, outb := m.Net.FTW[5], m.Net.FTB[3], m.Net.OutW[7], m.Net.OutB[0]
	g := newGrads(16, 1)
	m.step([]*grads{g}, 1, 0.01, 2)
	if got, want := m.Net.FTW[5], ftw*(1-0.02); math.Abs(float64(got-want)) > 1e-7 {
		t.Errorf("feature weight %v, want %v", got, want)
	}
	if got, want := m.Net.OutW[7], outw*(1-0.02); math.Abs(float64(got-want)) > 1e-7 {
		t.Errorf("output weight %v, want %v", got, want)
	}
	if m.Net.FTB[3] != ftb || m.Net.OutB[0] != outb {
		t.Errorf("biases moved: %v→%v, %v→%v", ftb, m.Net.FTB[3], outb, m.Net.OutB[0])
	}
}

// TestProgressCounts: with mirrored copies an epoch has more positions than
// records, so a progress line names its epoch's total only once a first
// epoch has counted it, and never counts past it.
func TestProgressCounts(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "synthetic.bin")
	syntheticData(t, data, 1500)
	var out strings.Builder
	cfg := Config{
		Data: data, Hidden: 16, Epochs: 2, BatchSize: 64, LR: 0.01, Threads: 1, Mirror: true,
		ValEvery: 10, ChunkSize: 500, Seed: 3, Progress: &out, Every: time.Nanosecond,
	}
	_, stats, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	records := 1500 - 150
	if stats[1].Samples <= records {
		t.Fatalf("%d positions in epoch 1 from %d records: no mirrored copies to count", stats[1].Samples, records)
	}
	lines := 0
	for line := range strings.Lines(out.String()) {
		var epoch, n, of int
		if k, _ := fmt.Sscanf(line, "train: epoch %d: %d of %d positions,", &epoch, &n, &of); k == 3 {
			lines++
			if epoch == 1 || of != stats[1].Samples || n > of {
				t.Errorf("epoch %d: %d of %d positions (epoch 1 had %d)", epoch, n, of, stats[1].Samples)
			}
		} else if k, _ := fmt.Sscanf(line, "train: epoch %d: %d positions,", &epoch, &n); k == 2 && epoch != 1 {
			t.Errorf("epoch %d progress without its total: %q", epoch, line)
		}
	}
	if lines == 0 {
		t.Fatalf("no progress lines with a total:\n%s", out.String())
	}
}

// TestInitFromNetwork: a run started from an exported network (--init)
// begins where that network's training ended — its epoch-0 validation
// loss is the exported network's, up to the quantisation, far below a
// random start's — and trains on from there; a network of another size
// or scale, or a file that is not a network, is refused.
func TestInitFromNetwork(t *testing.T) {
	dir := t.TempDir()
	base := smallRun(t, dir)
	base.Out = filepath.Join(dir, "a.nnue")
	_, statsA, err := Train(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	random, trained := statsA[0].Val, statsA[len(statsA)-1].Val

	cfg := base
	cfg.Init, cfg.Out, cfg.Epochs, cfg.LR, cfg.Seed = base.Out, filepath.Join(dir, "b.nnue"), 2, 0.002, 9
	cfg.Checkpoint = filepath.Join(dir, "b.ckpt")
	m, statsB, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	start, end := statsB[0].Val, statsB[len(statsB)-1].Val
	t.Logf("first run %.5f -> %.5f; from its network %.5f -> %.5f", random, trained, start, end)
	if math.Abs(start-trained) > 0.05*trained || !(start < 0.5*random) {
		t.Errorf("started from the network: validation loss %.5f, the network's training ended at %.5f (random weights: %.5f)", start, trained, random)
	}
	if !(end < 1.1*start) || m.Epoch != 2 {
		t.Errorf("training on from the network: loss %.5f -> %.5f over %d epochs", start, end, m.Epoch)
	}
	// A checkpoint, once written, wins over --init: the run resumes.
	cfg.Epochs = 3
	if m, stats, err := Train(context.Background(), cfg); err != nil {
		t.Errorf("resuming a run begun with --init: %v", err)
	} else if m.Epoch != 3 || len(stats) != 1 {
		t.Errorf("resuming a run begun with --init: epoch %d, %d stats, want epoch 3 and one", m.Epoch, len(stats))
	}

	// A one-bucket network starts a bucketed run: every bucket a copy of
	// its output layer, so the run begins at the same loss.
	four := base
	four.Init, four.Out, four.Epochs, four.Buckets = base.Out, filepath.Join(dir, "c.nnue"), 1, 4
	_, statsC, err := Train(context.Background(), four)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(statsC[0].Val-start) > 1e-9*start {
		t.Errorf("four buckets from a one-bucket network: validation loss %.8f, the network's %.8f", statsC[0].Val, start)
	}

	bad := base
	bad.Out = ""
	for name, mod := range map[string]func(c *Config){
		"fewer buckets": func(c *Config) { c.Init, c.Buckets = four.Out, 2 },
		"one bucket":    func(c *Config) { c.Init = four.Out },
		"other size":    func(c *Config) { c.Init, c.Hidden = base.Out, 32 },
		"other scale":   func(c *Config) { c.Init, c.Scale = base.Out, 250 },
		"not a net":     func(c *Config) { c.Init = base.Data },
		"missing":       func(c *Config) { c.Init = filepath.Join(dir, "none.nnue") },
	} {
		c := bad
		mod(&c)
		if _, _, err := Train(context.Background(), c); err == nil {
			t.Errorf("%s: Train started", name)
		}
	}
}

// trainingSamples returns the samples one epoch of cfg (completed with
// its defaults) trains on, in the order of a shuffle seeded (1, 1).
func trainingSamples(tb testing.TB, cfg Config) []sample {
	cfg.defaults()
	var samples []sample
	if err := streamChunks(cfg, rand.New(rand.NewPCG(1, 1)), func(c []sample) error {
		samples = append(samples, c...)
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return samples
}

// TestGradient checks accumulate's gradient against central differences of
// the loss, for weights of every kind, with several output buckets (the
// gradient must reach the layer of the sample's bucket and no other).
func TestGradient(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "synthetic.bin")
	syntheticData(t, data, 40)
	samples := trainingSamples(t, Config{Data: data, Mirror: false, ValEvery: 1000, Lambda: 0.3, Scale: 200})
	m := NewModel(16, 4, 200, 5)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range m.Net.OutB {
		m.Net.OutB[i] = float32(rng.NormFloat64() * 0.3)
	}
	g := newGrads(16, 4)
	loss := func(s *sample) float64 {
		g.reset()
		accumulate(m.Net, s, g, false)
		return g.loss
	}
	checked := 0
	for i := range samples[:8] {
		s := &samples[i]
		g.reset()
		accumulate(m.Net, s, g, true)
		grad := [4][]float32{}
		for k := range grad {
			grad[k] = append([]float32(nil), g.g[k]...)
		}
		b := nnue.OutputBucket(int(s.n), 4)
		for k, p := range m.params() {
			// Weights the sample touches: its features' rows, any bias,
			// its bucket's output layer, and one weight of another bucket
			// (gradient 0).
			var idx []int
			switch k {
			case 0:
				ft := int(s.feats[0][i%int(s.n)])
				idx = []int{ft*16 + 3, ft*16 + 9}
			case 1:
				idx = []int{2, 11}
			case 2:
				idx = []int{b*32 + 5, b*32 + 16 + 7, ((b+1)%4)*32 + 5}
			case 3:
				idx = []int{b, (b + 1) % 4}
			}
			for _, j := range idx {
				const eps = 1e-3
				old := p[j]
				p[j] = old + eps
				up := loss(s)
				p[j] = old - eps
				down := loss(s)
				p[j] = old
				num := (up - down) / (2 * eps)
				if d := math.Abs(num - float64(grad[k][j])); d > 1e-4+0.02*math.Abs(num) {
					t.Errorf("sample %d (bucket %d), param %d[%d]: gradient %.6g, numerically %.6g", i, b, k, j, grad[k][j], num)
				}
				checked++
			}
		}
	}
	t.Logf("%d partial derivatives checked", checked)
}

// TestQuantizeCorrectsRoundingShift builds networks whose output weights
// all lie the same distance off a multiple of 1/QB within each bucket, so
// that rounding moves every weight of a bucket the same way: plain
// quantisation then shifts the evaluation of every position, and the
// export's bias correction, measured on some positions, must take the
// shift away on others.
func TestQuantizeCorrectsRoundingShift(t *testing.T) {
	for _, buckets := range []int{1, 4} {
		t.Run(fmt.Sprintf("buckets=%d", buckets), func(t *testing.T) {
			f := nnue.NewRandomFloatNet(32, buckets, 11)
			rng := rand.New(rand.NewPCG(5, 6))
			for b := range buckets {
				w, _ := f.OutLayer(b)
				// Every weight of the bucket rounds down by 0.4/QB
				// (even buckets) or up by 0.25/QB (odd ones).
				off := 0.4
				if b%2 == 1 {
					off = -0.25
				}
				for i := range w {
					w[i] = float32((float64(rng.IntN(21)-10) + off) / nnue.QB)
				}
			}
			var calib, check []sample
			var checkPos []board.Position
			testpos.Walk(rand.New(rand.NewPCG(8, 9)), 160, func(ply int, pos *board.Position) bool {
				var s sample
				r := nnuedata.FromPosition(pos, 0, nnuedata.DrawGame)
				makeSample(&r, 0, float64(f.Scale), &s)
				if len(calib) <= len(check) {
					calib = append(calib, s)
				} else {
					check, checkPos = append(check, s), append(checkPos, *pos)
				}
				return len(check) < 3000
			})
			// meanAbs is the mean |quantised − float| evaluation.
			meanAbs := func(q *nnue.Network) float64 {
				sum := 0.0
				for i := range checkPos {
					sum += math.Abs(float64(q.EvaluatePosition(&checkPos[i])) - f.EvaluatePosition(&checkPos[i]))
				}
				return sum / float64(len(checkPos))
			}
			plain, err := f.Quantize()
			if err != nil {
				t.Fatal(err)
			}
			gs := []*grads{newGrads(32, buckets), newGrads(32, buckets)}
			fixed, shifts, err := quantize(f, calib, gs)
			if err != nil {
				t.Fatal(err)
			}
			before, after := meanAbs(plain), meanAbs(fixed)
			t.Logf("mean |quantised − float|: %.2f cp plainly rounded, %.2f cp corrected; shifts measured %.2f", before, after, shifts)
			if before < 10 {
				t.Fatalf("the test's weights should make rounding shift the evaluation: %.2f cp", before)
			}
			if after > 0.25*before {
				t.Errorf("after the correction the quantised network is %.2f cp off the float one on average (%.2f before)", after, before)
			}
			for b, sh := range shifts {
				if (b%2 == 0) != (sh < 0) {
					t.Errorf("bucket %d's weights round %s, measured shift %.2f cp", b, map[bool]string{true: "down", false: "up"}[b%2 == 0], sh)
				}
			}
			// The weights themselves are those of plain rounding: only
			// the biases moved.
			a, b := plain.Float(), fixed.Float()
			if !slices.Equal(a.OutW, b.OutW) || !slices.Equal(a.FTW, b.FTW) {
				t.Error("the correction changed weights, not only output biases")
			}
		})
	}
}

// TestFinishedCheckpointIsExported: a run whose checkpoint already has all
// its epochs trains nothing and writes its network again, bias-corrected
// against this run's validation records, with the export's measures.
func TestFinishedCheckpointIsExported(t *testing.T) {
	dir := t.TempDir()
	cfg := smallRun(t, dir)
	cfg.Epochs = 2
	cfg.Checkpoint, cfg.Out = filepath.Join(dir, "ckpt"), filepath.Join(dir, "net.nnue")
	_, first, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	last := first[len(first)-1]
	if last.QuantMAE <= 0 || len(last.RoundingShift) != 1 {
		t.Fatalf("an epoch's export left no measures: %+v", last)
	}
	cfg.Out = filepath.Join(dir, "again.nnue")
	m, stats, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Epoch != 2 || len(stats) != 1 || stats[0].QuantMAE != last.QuantMAE {
		t.Fatalf("exporting a finished checkpoint: epoch %d, stats %+v; the last epoch's export had MAE %.3f", m.Epoch, stats, last.QuantMAE)
	}
	a, errA := nnue.Load(filepath.Join(dir, "net.nnue"))
	b, errB := nnue.Load(cfg.Out)
	if errA != nil || errB != nil || a.ID() != b.ID() {
		t.Errorf("the network exported again differs from the last epoch's: %v %v", errA, errB)
	}
}

func TestStepSharesOutBitForBit(t *testing.T) {
	// Adam's step shared out among three goroutines moves every weight
	// exactly as one step with the three threads' gradients summed first
	// (in thread order) does, and leaves every gradient buffer zero.
	const h, b = 40, 2 // 768·40 feature weights: more than one block per share
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(gs []*grads) {
		for _, g := range gs {
			for k := range g.g {
				for i := range g.g[k] {
					g.g[k][i] = float32(rng.NormFloat64())
				}
			}
		}
	}
	shared, single := NewModel(h, b, 400, 9), NewModel(h, b, 400, 9)
	for range 3 {
		gs := []*grads{newGrads(h, b), newGrads(h, b), newGrads(h, b)}
		fill(gs)
		sum := newGrads(h, b)
		for k := range sum.g {
			for _, g := range gs {
				for i, v := range g.g[k] {
					sum.g[k][i] += v
				}
			}
		}
		shared.step(gs, 100, 0.001, 0.01)
		single.step([]*grads{sum}, 100, 0.001, 0.01)
		for ti, g := range append(gs, sum) {
			for k := range g.g {
				if i := slices.IndexFunc(g.g[k], func(v float32) bool { return v != 0 }); i >= 0 {
					t.Fatalf("buffer %d: gradient %d[%d] = %v after the step, want 0", ti, k, i, g.g[k][i])
				}
			}
		}
	}
	a, c := shared.params(), single.params()
	for k := range a {
		if !slices.Equal(a[k], c[k]) || !slices.Equal(shared.M[k], single.M[k]) || !slices.Equal(shared.V[k], single.V[k]) {
			t.Fatalf("parameter array %d differs between the shared and the single step", k)
		}
	}
	if shared.Step != 3 {
		t.Errorf("step count %d, want 3", shared.Step)
	}
}

// BenchmarkBatch times training batches of 1024 positions on a network of
// 512 hidden units with GOMAXPROCS threads (run -cpu 2,4,8,16 to see it
// scale): the threads' gradients (run) and then Adam's step, either shared
// out among the threads (step, what Train does) or on one goroutine after
// summing the threads' gradients there (how Train did it before), with the
// vector kernel Train uses (kernel=simd: AVX where the CPU has it) or the
// pure-Go one (kernel=go).
func BenchmarkBatch(b *testing.B) {
	const h = 512
	data := filepath.Join(b.TempDir(), "synthetic.bin")
	syntheticData(b, data, 1100)
	samples := trainingSamples(b, Config{Data: data, Mirror: false, ValEvery: 1 << 20, Hidden: h})
	if len(samples) < 1024 {
		b.Fatalf("%d samples, want 1024", len(samples))
	}
	samples = samples[:1024]
	for _, kernel := range []string{"simd", "go"} {
		if kernel == "simd" && simdKernels == nil {
			continue
		}
		for _, shared := range []bool{true, false} {
			name := "kernel=" + kernel + "/" + map[bool]string{true: "step=shared", false: "step=one-goroutine"}[shared]
			b.Run(name, func(b *testing.B) {
				m := NewModel(h, 1, 400, 1)
				gs := make([]*grads, runtime.GOMAXPROCS(0))
				for i := range gs {
					gs[i] = newGrads(h, 1)
					if kernel == "go" {
						gs[i].k = goKernels
					}
				}
				for b.Loop() {
					run(m.Net, samples, gs, true)
					if shared {
						m.step(gs, len(samples), 1e-4, 0)
						continue
					}
					for _, g := range gs[1:] {
						for k := range g.g {
							gs[0].k.add(gs[0].g[k], g.g[k])
							clear(g.g[k])
						}
					}
					m.step(gs[:1], len(samples), 1e-4, 0)
				}
				b.ReportMetric(float64(b.N*len(samples))/b.Elapsed().Seconds(), "pos/s")
			})
		}
	}
}

// TestValidationBlocks checks that --val-block holds out whole runs of
// consecutive records, and that the trainer's two readers (validation and
// training) agree on which: each record lands in exactly one of them.
func TestValidationBlocks(t *testing.T) {
	const n = 30
	pos, err := board.ParseFEN("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "d.bin")
	w, err := nnuedata.OpenAppend(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		r := nnuedata.FromPosition(&pos, int16(i), nnuedata.DrawGame) // the score names the record
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		every, block int
		held         []int
	}{
		{3, 4, []int{0, 1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27}},
		{3, 0, []int{0, 3, 6, 9, 12, 15, 18, 21, 24, 27}},
		{3, 1, []int{0, 3, 6, 9, 12, 15, 18, 21, 24, 27}},
		{2, 7, []int{0, 1, 2, 3, 4, 5, 6, 14, 15, 16, 17, 18, 19, 20, 28, 29}},
	} {
		cfg := Config{Data: data, ValEvery: tc.every, ValBlock: tc.block, ChunkSize: 8}
		cfg.defaults()
		val, total, err := loadValidation(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if total != n {
			t.Fatalf("every %d block %d: %d records counted, want %d", tc.every, tc.block, total, n)
		}
		seen := make(map[int]string)
		for _, s := range val {
			seen[int(s.score)] = "validation"
		}
		err = streamChunks(cfg, rand.New(rand.NewPCG(1, 2)), func(c []sample) error {
			for _, s := range c {
				if where, ok := seen[int(s.score)]; ok {
					t.Errorf("every %d block %d: record %d both in %s and in training", tc.every, tc.block, s.score, where)
				}
				seen[int(s.score)] = "training"
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var held []int
		for i := range n {
			switch seen[i] {
			case "validation":
				held = append(held, i)
			case "":
				t.Errorf("every %d block %d: record %d in neither", tc.every, tc.block, i)
			}
		}
		if fmt.Sprint(held) != fmt.Sprint(tc.held) {
			t.Errorf("every %d block %d: held out %v, want %v", tc.every, tc.block, held, tc.held)
		}
	}
}
