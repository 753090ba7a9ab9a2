// Package nnuetrain trains Ponderosa's NNUE (engine/nnue) on data from
// internal/nnuedata: mini-batch gradient descent with Adam on several
// cores, the loss the mean squared error between the network's win
// probability sigmoid(y) and a blend of the game result and the
// sigmoid-scaled search score.
package nnuetrain

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// Config configures a training run.
type Config struct {
	Data   string // data file (nnuedata records)
	Hidden int    // N
	// Buckets is the number of output layers, chosen by the number of
	// pieces on the board (nnue.OutputBucket); 1 when zero.
	Buckets   int
	Epochs    int     // passes over the training data
	BatchSize int     // positions per Adam step
	LR        float64 // Adam learning rate
	LRDrop    int     // multiply the rate by 0.1 from this epoch on (0: never)
	// WeightDecay shrinks the weights (not the biases) by lr·WeightDecay
	// every step, apart from Adam's update (AdamW): a regulariser for
	// little data.
	WeightDecay float64
	Lambda      float64 // weight of the game result in the target (0: score only, 1: result only)
	Scale       float64 // centipawns per logit unit: target sigmoid(score/Scale), eval y·Scale
	Threads     int
	ValEvery    int    // every ValEvery-th record (or run of ValBlock records) is held out for validation
	ValBlock    int    // above 1: hold out whole runs of this many consecutive records (Config.heldOut)
	ChunkSize   int    // records read, shuffled and trained on at a time
	MaxRecords  int    // use at most this many records of the file (0: all)
	Seed        uint64 // initial weights and shuffling
	Mirror      bool   // also train on every position mirrored left to right (files a↔h)
	Checkpoint  string // checkpoint file, written after every epoch (resumed from when it exists)
	// Init is a network file to start from instead of random weights (when
	// there is no checkpoint to resume): its dequantised weights, with
	// fresh Adam moments. Its N must be Hidden and its scale Scale.
	Init     string
	Out      string // quantised network, written after every epoch
	Progress io.Writer
	Every    time.Duration // progress interval inside an epoch
}

func (c *Config) defaults() {
	if c.Hidden == 0 {
		c.Hidden = 128
	}
	if c.Buckets == 0 {
		c.Buckets = 1
	}
	if c.Epochs == 0 {
		c.Epochs = 10
	}
	if c.BatchSize == 0 {
		c.BatchSize = 16384
	}
	if c.LR == 0 {
		c.LR = 0.001
	}
	if c.Scale == 0 {
		c.Scale = nnue.DefaultScale
	}
	if c.Threads <= 0 {
		c.Threads = 1
	}
	if c.ValEvery <= 0 {
		c.ValEvery = 50
	}
	if c.ChunkSize <= 0 {
		c.ChunkSize = 1 << 20
	}
	if c.Every <= 0 {
		c.Every = 30 * time.Second
	}
}

// sample is one decoded training position: the features of the side to
// move and of the other side, and the target.
type sample struct {
	feats  [2][32]uint16
	n      uint8
	target float32
	score  int16 // search score, side to move's view (for the validation MAE)
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// makeSample turns a record into features and a target.
func makeSample(r *nnuedata.Record, lambda, scale float64, s *sample) {
	stm := r.STM
	i := 0
	r.Each(func(sq board.Square, pc board.Piece) {
		s.feats[0][i] = uint16(nnue.Feature(stm, pc, sq))
		s.feats[1][i] = uint16(nnue.Feature(stm^1, pc, sq))
		i++
	})
	s.n = uint8(i)
	score := float64(r.Score)
	result := float64(r.Result) / 2
	if stm == board.Black {
		score, result = -score, 1-result
	}
	s.target = float32(lambda*result + (1-lambda)*sigmoid(score/scale))
	s.score = int16(score)
}

// mirrorSample mirrors s left to right: the same position with files
// a↔h swapped, which has the same value when no side can castle (see
// mayCastle).
func mirrorSample(s *sample) {
	for side := range s.feats {
		for i := range s.feats[side][:s.n] {
			s.feats[side][i] ^= 7
		}
	}
}

// mayCastle reports whether r may be a position in which a side can
// still castle: a king on its starting square (e1, e8) with a rook of its
// colour on a corner of its first rank. The records keep no castling
// rights, so this is the cautious answer. Such a position has no mirror
// image of the same value — castling rights are not symmetric under a↔h
// (the mirrored king on d1 can castle to neither side) — so the trainer
// does not mirror it.
func mayCastle(r *nnuedata.Record) bool {
	var grid [64]board.Piece
	r.Each(func(sq board.Square, pc board.Piece) { grid[sq] = pc })
	wr, br := board.MakePiece(board.White, board.Rook), board.MakePiece(board.Black, board.Rook)
	return (grid[board.E1] == board.MakePiece(board.White, board.King) && (grid[board.A1] == wr || grid[board.H1] == wr)) ||
		(grid[board.E8] == board.MakePiece(board.Black, board.King) && (grid[board.A8] == br || grid[board.H8] == br))
}

// Model is the float network with Adam's moments.
type Model struct {
	Net    *nnue.FloatNet
	M, V   [4][]float32 // first and second moments of FTW, FTB, OutW, OutB
	Step   int
	Epoch  int // epochs completed
	Config Config
}

// params returns the weights in the order of M, V and the gradients.
func (m *Model) params() [4][]float32 {
	return [4][]float32{m.Net.FTW, m.Net.FTB, m.Net.OutW, m.Net.OutB}
}

// NewModel returns a model with random initial weights: h hidden units
// and b output buckets.
func NewModel(h, b int, scale int, seed uint64) *Model {
	rng := rand.New(rand.NewPCG(seed, 0x6e6e7565))
	f := nnue.NewFloatNet(h, b)
	f.Scale = scale
	for i := range f.FTW {
		f.FTW[i] = float32(rng.NormFloat64() * 0.1)
	}
	for i := range f.FTB {
		f.FTB[i] = 0.1
	}
	for i := range f.OutW {
		f.OutW[i] = float32(rng.NormFloat64() / math.Sqrt(float64(2*h)))
	}
	return modelOf(f)
}

// modelOf returns a model of the weights f with zero Adam moments.
func modelOf(f *nnue.FloatNet) *Model {
	m := &Model{Net: f}
	for i, p := range m.params() {
		m.M[i] = make([]float32, len(p))
		m.V[i] = make([]float32, len(p))
	}
	return m
}

// grads is one thread's gradient buffers and scratch.
type grads struct {
	g    [4][]float32
	acc  [2][]float32
	k    *kernels // trainKernels, or in tests another set
	loss float64
	// Without learn: Σ |y·scale − score| in centipawns over all samples
	// and over those with |score| ≤ BalancedScore (nBal of them).
	mae, maeBal float64
	nBal        int
	n           int
}

func newGrads(h, b int) *grads {
	return &grads{
		g:   [4][]float32{make([]float32, nnue.Inputs*h), make([]float32, h), make([]float32, 2*h*b), make([]float32, b)},
		acc: [2][]float32{make([]float32, h), make([]float32, h)},
		k:   trainKernels,
	}
}

func (g *grads) reset() {
	for _, s := range g.g {
		clear(s)
	}
	g.resetStats()
}

// resetStats zeroes g's sums but not its gradients (which step leaves
// zero after every batch).
func (g *grads) resetStats() {
	g.loss, g.mae, g.maeBal, g.nBal, g.n = 0, 0, 0, 0, 0
}

// forward computes the accumulators of s into g.acc and returns the
// logit and s's output bucket.
func forward(f *nnue.FloatNet, s *sample, g *grads) (float32, int) {
	h := f.Hidden
	b := nnue.OutputBucket(int(s.n), f.Buckets)
	ow, bias := f.OutLayer(b)
	out := *bias
	for side := 0; side < 2; side++ {
		acc := g.acc[side][:h]
		copy(acc, f.FTB)
		for _, ft := range s.feats[side][:s.n] {
			g.k.add(acc, f.FTW[int(ft)*h:int(ft)*h+h])
		}
		ow := ow[side*h : side*h+h]
		for j, a := range acc {
			out += nnue.SCReLU(a) * ow[j]
		}
	}
	return out, b
}

// accumulate adds the gradient of s's loss to g (and the loss to g.loss).
func accumulate(f *nnue.FloatNet, s *sample, g *grads, learn bool) {
	y, b := forward(f, s, g)
	p := float32(sigmoid(float64(y)))
	d := p - s.target
	g.loss += float64(d * d)
	g.n++
	if !learn {
		d := math.Abs(max(-ScoreCap, min(ScoreCap, float64(y)*float64(f.Scale))) - float64(s.score))
		g.mae += d
		if s.score >= -BalancedScore && s.score <= BalancedScore {
			g.maeBal += d
			g.nBal++
		}
		return
	}
	gy := 2 * d * p * (1 - p)
	h := f.Hidden
	g.g[3][b] += gy
	ow, _ := f.OutLayer(b)
	gout := g.g[2][b*2*h : (b+1)*2*h]
	for side := 0; side < 2; side++ {
		acc := g.acc[side][:h]
		ow := ow[side*h : side*h+h]
		gow := gout[side*h : side*h+h]
		g.k.back(acc, ow, gow, g.g[1][:h], gy)
		for _, ft := range s.feats[side][:s.n] {
			g.k.add(g.g[0][int(ft)*h:int(ft)*h+h], acc)
		}
	}
}

// parallel calls f for every sample, the samples split into len(gs)
// consecutive shares, each share on a goroutine of its own with its
// thread's index and scratch buffers; it returns when all are done.
func parallel(samples []sample, gs []*grads, f func(t int, g *grads, s *sample)) {
	var wg sync.WaitGroup
	per := (len(samples) + len(gs) - 1) / len(gs)
	for t, g := range gs {
		lo := min(t*per, len(samples))
		hi := min(lo+per, len(samples))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				f(t, g, &samples[i])
			}
		}()
	}
	wg.Wait()
}

// run evaluates (and with learn, accumulates gradients of) the samples on
// len(gs) goroutines; it returns the summed loss. With learn the gradients
// are left in the threads' buffers (which must be zero beforehand) for
// step to sum and apply.
func run(f *nnue.FloatNet, samples []sample, gs []*grads, learn bool) float64 {
	for _, g := range gs {
		g.resetStats()
	}
	parallel(samples, gs, func(_ int, g *grads, s *sample) { accumulate(f, s, g, learn) })
	loss := 0.0
	for _, g := range gs {
		loss += g.loss
	}
	return loss
}

// validate fills st's validation loss and MAEs.
func validate(f *nnue.FloatNet, val []sample, gs []*grads, st *EpochStats) {
	st.Val = run(f, val, gs, false) / float64(len(val))
	var mae, maeBal float64
	nBal := 0
	for _, g := range gs {
		mae, maeBal, nBal = mae+g.mae, maeBal+g.maeBal, nBal+g.nBal
	}
	st.ValMAE = mae / float64(len(val))
	if nBal > 0 {
		st.ValMAEBalanced = maeBal / float64(nBal)
	}
}

// adamStep holds the constants of one Adam step.
type adamStep struct {
	alpha, inv float32
	decay      [4]float32
}

// Adam's moment decays and its guard against division by zero.
const adamB1, adamB2, adamEps = 0.9, 0.999, 1e-8

// step sums the gradients the threads accumulated in gs over a batch of
// n samples, applies one Adam step with the sum and zeroes the gradients
// for the next batch. With wd > 0 the weights (FTW and OutW) also shrink
// by lr·wd of themselves (decoupled weight decay). The parameters are shared out among
// len(gs) goroutines, so this part of a batch scales with the threads as
// the samples do (done on one goroutine it held a 16-thread run to the
// speed of a 2-thread one). Every gradient is summed in thread order,
// gs[0] first, whatever the share: the result is bit for bit that of
// summing into gs[0] on one goroutine.
func (m *Model) step(gs []*grads, n int, lr, wd float64) {
	m.Step++
	c1 := 1 - math.Pow(adamB1, float64(m.Step))
	c2 := 1 - math.Pow(adamB2, float64(m.Step))
	a := adamStep{alpha: float32(lr * math.Sqrt(c2) / c1), inv: 1 / float32(n), decay: [4]float32{1, 1, 1, 1}}
	a.decay[0] = float32(1 - lr*wd)
	a.decay[2] = a.decay[0]
	params := m.params()
	var wg sync.WaitGroup
	for t := range gs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range params {
				size := len(params[k])
				per := (size + len(gs) - 1) / len(gs)
				lo := min(t*per, size)
				m.adamRange(&a, k, gs, lo, min(lo+per, size))
			}
		}()
	}
	wg.Wait()
}

// adamRange does step's work for parameters lo to hi of array k, a block
// at a time so that the threads' gradients are read while in cache.
func (m *Model) adamRange(a *adamStep, k int, gs []*grads, lo, hi int) {
	const block = 1024
	p, mm, vv := m.params()[k], m.M[k], m.V[k]
	lim := float32(nnue.MaxWeight)
	for blo := lo; blo < hi; blo += block {
		bhi := min(blo+block, hi)
		sum := gs[0].g[k][blo:bhi]
		for _, g := range gs[1:] {
			src := g.g[k][blo:bhi]
			gs[0].k.add(sum, src)
			clear(src)
		}
		for j, gsum := range sum {
			i := blo + j
			gr := gsum * a.inv
			mm[i] = adamB1*mm[i] + (1-adamB1)*gr
			vv[i] = adamB2*vv[i] + (1-adamB2)*gr*gr
			w := p[i]*a.decay[k] - a.alpha*mm[i]/(float32(math.Sqrt(float64(vv[i])))+adamEps)
			if k < 3 {
				w = min(max(w, -lim), lim)
			}
			p[i] = w
		}
		clear(sum)
	}
}

// EpochStats is the outcome of one epoch.
type EpochStats struct {
	Epoch      int
	Train, Val float64 // mean losses
	// ValMAE is the float network's mean |evaluation − search score| on the
	// validation records in centipawns, ValMAEBalanced the same over those
	// with |score| ≤ BalancedScore (Quality's measures).
	ValMAE, ValMAEBalanced float64
	// QuantMAE and QuantMAEBalanced are the same measures of the exported
	// integer network (its weights as rounded, in float arithmetic), and
	// RoundingShift the mean change, in centipawns, that rounding the
	// output weights made to the evaluation before the export corrected
	// its bias for it (one per output bucket; see quantize).
	QuantMAE, QuantMAEBalanced float64
	RoundingShift              []float64
	Samples                    int
	Elapsed                    time.Duration
	CheckpointSaved            bool
}

// Train trains a network as cfg says and returns the model and the
// statistics of every epoch. It stops between batches when ctx ends (the
// last checkpoint stays valid).
func Train(ctx context.Context, cfg Config) (*Model, []EpochStats, error) {
	cfg.defaults()
	if cfg.Data == "" {
		return nil, nil, errors.New("nnuetrain: no data file")
	}
	m, err := loadOrNew(cfg)
	if err != nil {
		return nil, nil, err
	}
	gs := make([]*grads, cfg.Threads)
	for i := range gs {
		gs[i] = newGrads(cfg.Hidden, cfg.Buckets)
	}
	val, total, err := loadValidation(cfg)
	if err != nil {
		return nil, nil, err
	}
	if len(val) == 0 || total-len(val) < cfg.BatchSize/4 {
		return nil, nil, fmt.Errorf("nnuetrain: %d records are too few (validation %d)", total, len(val))
	}
	logf := func(format string, a ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, format, a...)
		}
	}
	logf("train: %d records (%d for validation), N=%d, %d output buckets, %d threads, batch %d, λ=%.2f\n", total, len(val), cfg.Hidden, cfg.Buckets, cfg.Threads, cfg.BatchSize, cfg.Lambda)
	var stats []EpochStats
	if m.Epoch == 0 {
		st := EpochStats{Epoch: 0}
		validate(m.Net, val, gs, &st)
		logf("train: epoch 0 validation loss %.6f, MAE %.1f cp, |score|≤%d: %.1f cp\n", st.Val, st.ValMAE, BalancedScore, st.ValMAEBalanced)
		stats = append(stats, st)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(m.Epoch)))
	// epochPositions is the number of training positions in an epoch, for
	// the progress lines: the records, or with Mirror the records and their
	// mirrored copies, which are known only after a first epoch.
	epochPositions := 0
	if !cfg.Mirror {
		epochPositions = total - len(val)
	}
	for m.Epoch < cfg.Epochs {
		epoch := m.Epoch + 1
		lr := cfg.LR
		if cfg.LRDrop > 0 && epoch >= cfg.LRDrop {
			lr *= 0.1
		}
		start := time.Now()
		last := start
		trainLoss, n := 0.0, 0
		err := streamChunks(cfg, rng, func(chunk []sample) error {
			for lo := 0; lo < len(chunk); lo += cfg.BatchSize {
				if err := ctx.Err(); err != nil {
					return err
				}
				b := chunk[lo:min(lo+cfg.BatchSize, len(chunk))]
				trainLoss += run(m.Net, b, gs, true)
				n += len(b)
				m.step(gs, len(b), lr, cfg.WeightDecay)
				if now := time.Now(); now.Sub(last) >= cfg.Every {
					last = now
					of := ""
					if epochPositions > 0 {
						of = fmt.Sprintf(" of %d", epochPositions)
					}
					logf("train: epoch %d: %d%s positions, loss %.6f, %.0f pos/s\n", epoch, n, of, trainLoss/float64(n), float64(n)/now.Sub(start).Seconds())
				}
			}
			return nil
		})
		if err != nil {
			return m, stats, err
		}
		m.Epoch = epoch
		epochPositions = n
		st := EpochStats{Epoch: epoch, Train: trainLoss / float64(max(n, 1)), Samples: n, Elapsed: time.Since(start)}
		validate(m.Net, val, gs, &st)
		if err := save(cfg, m, val, gs, &st); err != nil {
			return m, stats, err
		}
		st.CheckpointSaved = cfg.Checkpoint != "" || cfg.Out != ""
		stats = append(stats, st)
		logf("train: epoch %d: train loss %.6f, validation loss %.6f, MAE %.1f cp, |score|≤%d: %.1f cp, %d positions in %s (%.0f pos/s), lr %g\n",
			epoch, st.Train, st.Val, st.ValMAE, BalancedScore, st.ValMAEBalanced, n, st.Elapsed.Round(time.Second), float64(n)/st.Elapsed.Seconds(), lr)
		if cfg.Out != "" {
			logf("train: epoch %d: exported network: MAE %.1f cp, |score|≤%d: %.1f cp; output bias corrected by %s cp for the rounding of the output weights\n",
				epoch, st.QuantMAE, BalancedScore, st.QuantMAEBalanced, formatShifts(st.RoundingShift))
		}
	}
	if len(stats) == 0 && cfg.Out != "" {
		// A checkpoint that has all its epochs already: export it again
		// (with this run's validation records for the bias correction).
		st := EpochStats{Epoch: m.Epoch}
		validate(m.Net, val, gs, &st)
		if err := save(Config{Out: cfg.Out}, m, val, gs, &st); err != nil {
			return m, stats, err
		}
		stats = append(stats, st)
		logf("train: checkpoint at epoch %d of %d: exported again: MAE %.1f cp, |score|≤%d: %.1f cp (float %.1f, %.1f); output bias corrected by %s cp for the rounding of the output weights\n",
			m.Epoch, cfg.Epochs, st.QuantMAE, BalancedScore, st.QuantMAEBalanced, st.ValMAE, st.ValMAEBalanced, formatShifts(st.RoundingShift))
	}
	return m, stats, nil
}

func loadOrNew(cfg Config) (*Model, error) {
	if cfg.Checkpoint != "" {
		f, err := os.Open(cfg.Checkpoint)
		if err == nil {
			defer f.Close()
			var m Model
			if err := gob.NewDecoder(f).Decode(&m); err != nil {
				return nil, fmt.Errorf("nnuetrain: checkpoint %s: %w", cfg.Checkpoint, err)
			}
			if m.Net == nil || m.Net.Hidden != cfg.Hidden || m.Net.Buckets != cfg.Buckets {
				return nil, fmt.Errorf("nnuetrain: checkpoint %s is for another network size", cfg.Checkpoint)
			}
			return &m, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	if cfg.Init != "" {
		return modelFrom(cfg)
	}
	return NewModel(cfg.Hidden, cfg.Buckets, int(cfg.Scale), cfg.Seed), nil
}

// modelFrom returns a model whose weights are those of the network file
// cfg.Init, with zero Adam moments: training goes on from that network
// (fine-tuning it on new data) rather than from random weights. A network
// with one output layer can start a bucketed run: every bucket begins as
// a copy of its layer.
func modelFrom(cfg Config) (*Model, error) {
	n, err := nnue.Load(cfg.Init)
	if err != nil {
		return nil, fmt.Errorf("nnuetrain: --init: %w", err)
	}
	if n.Hidden() != cfg.Hidden || float64(n.Scale()) != cfg.Scale {
		return nil, fmt.Errorf("nnuetrain: %s has N=%d and scale %d, the run wants N=%d and scale %g", cfg.Init, n.Hidden(), n.Scale(), cfg.Hidden, cfg.Scale)
	}
	f := n.Float()
	switch {
	case f.Buckets == cfg.Buckets:
	case f.Buckets == 1:
		g := nnue.NewFloatNet(f.Hidden, cfg.Buckets)
		g.Scale = f.Scale
		copy(g.FTW, f.FTW)
		copy(g.FTB, f.FTB)
		for b := range cfg.Buckets {
			w, bias := g.OutLayer(b)
			copy(w, f.OutW)
			*bias = f.OutB[0]
		}
		f = g
	default:
		return nil, fmt.Errorf("nnuetrain: %s has %d output buckets, the run wants %d", cfg.Init, f.Buckets, cfg.Buckets)
	}
	return modelOf(f), nil
}

// formatShifts formats the rounding shifts of quantize for a log line.
func formatShifts(sh []float64) string {
	parts := make([]string, len(sh))
	for i, v := range sh {
		parts[i] = fmt.Sprintf("%+.1f", -v)
	}
	return strings.Join(parts, "/")
}

// quantize returns f's integer network with the bias of each output
// bucket corrected for the rounding of its output weights, and the mean
// shift (centipawns, one per bucket) that rounding made before the
// correction, measured on the samples.
//
// Rounding the output weights to 1/QB is not noise that averages out: the
// activations it multiplies are never negative, so when the rounding
// errors of the units that are usually active lean one way the whole
// evaluation moves with them (a network trained on 4.6 M records
// evaluated every position about 20 cp lower once quantised). That shift
// is nearly the same for every position, so moving the bias by it takes
// it away; what stays is the per-position error of a few centipawns.
func quantize(f *nnue.FloatNet, samples []sample, gs []*grads) (*nnue.Network, []float64, error) {
	q, err := f.Quantize()
	if err != nil || len(samples) == 0 {
		return q, make([]float64, f.Buckets), err
	}
	rounded := q.Float()
	sums := make([][]float64, len(gs))
	counts := make([][]int, len(gs))
	for t := range gs {
		sums[t], counts[t] = make([]float64, f.Buckets), make([]int, f.Buckets)
	}
	parallel(samples, gs, func(t int, g *grads, s *sample) {
		y, b := forward(f, s, g)
		yq, _ := forward(rounded, s, g)
		sums[t][b] += float64(yq - y)
		counts[t][b]++
	})
	fixed := *f
	fixed.OutB = slices.Clone(f.OutB)
	shifts := make([]float64, f.Buckets)
	for b := range shifts {
		sum, n := 0.0, 0
		for t := range gs {
			sum, n = sum+sums[t][b], n+counts[t][b]
		}
		if n > 0 {
			shifts[b] = sum / float64(n) * float64(f.Scale)
			fixed.OutB[b] -= float32(sum / float64(n))
		}
	}
	q, err = fixed.Quantize()
	return q, shifts, err
}

// save writes the checkpoint and the quantised network (its bias
// corrected on the validation samples, with st's export measures filled
// in), each through a temporary file renamed into place (a crash never
// leaves half a file).
func save(cfg Config, m *Model, val []sample, gs []*grads, st *EpochStats) error {
	write := func(path string, f func(w io.Writer) error) error {
		tmp := path + ".tmp"
		out, err := os.Create(tmp)
		if err != nil {
			return err
		}
		if err := f(out); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}
	if cfg.Checkpoint != "" {
		m.Config = cfg
		m.Config.Progress = nil
		if err := write(cfg.Checkpoint, func(w io.Writer) error { return gob.NewEncoder(w).Encode(m) }); err != nil {
			return fmt.Errorf("nnuetrain: checkpoint: %w", err)
		}
	}
	if cfg.Out != "" {
		q, shifts, err := quantize(m.Net, val, gs)
		if err != nil {
			return err
		}
		var qs EpochStats
		validate(q.Float(), val, gs, &qs)
		st.QuantMAE, st.QuantMAEBalanced, st.RoundingShift = qs.ValMAE, qs.ValMAEBalanced, shifts
		b, _ := q.MarshalBinary()
		if err := write(cfg.Out, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return fmt.Errorf("nnuetrain: export: %w", err)
		}
	}
	return nil
}

// heldOut reports whether record i of the data file is a validation record:
// every ValEvery-th record, or with ValBlock above 1 every ValEvery-th run
// of ValBlock consecutive records. Records are written game by game, so a
// run of a few thousand holds mostly whole games the network never trains
// on, while every 50th single record comes from the very games trained on
// and a fine-tune at a low rate can lower that loss by learning those
// games without evaluating any better.
func (c *Config) heldOut(i int) bool {
	if c.ValBlock > 1 {
		i /= c.ValBlock
	}
	return i%c.ValEvery == 0
}

// loadValidation reads the held-out records (Config.heldOut) and
// counts the records used.
func loadValidation(cfg Config) ([]sample, int, error) {
	f, err := os.Open(cfg.Data)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	rd := nnuedata.NewReader(f)
	var val []sample
	var rec nnuedata.Record
	i := 0
	for cfg.MaxRecords <= 0 || i < cfg.MaxRecords {
		err := rd.Read(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		if cfg.heldOut(i) {
			var s sample
			makeSample(&rec, cfg.Lambda, cfg.Scale, &s)
			val = append(val, s)
		}
		i++
	}
	return val, i, nil
}

// streamChunks reads the training records (all but the held-out ones) in
// chunks of cfg.ChunkSize, visiting the chunks in a random order, shuffles
// each chunk and hands it to f. Only one chunk is in memory at a time.
func streamChunks(cfg Config, rng *rand.Rand, f func([]sample) error) error {
	file, err := os.Open(cfg.Data)
	if err != nil {
		return err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return err
	}
	records := int(st.Size() / nnuedata.RecordSize)
	if cfg.MaxRecords > 0 {
		records = min(records, cfg.MaxRecords)
	}
	nChunks := (records + cfg.ChunkSize - 1) / cfg.ChunkSize
	order := rng.Perm(nChunks)
	chunk := make([]sample, 0, cfg.ChunkSize)
	buf := make([]byte, cfg.ChunkSize*nnuedata.RecordSize)
	var rec nnuedata.Record
	for _, c := range order {
		lo := c * cfg.ChunkSize
		hi := min(lo+cfg.ChunkSize, records)
		b := buf[:(hi-lo)*nnuedata.RecordSize]
		if _, err := file.ReadAt(b, int64(lo)*nnuedata.RecordSize); err != nil {
			return fmt.Errorf("nnuetrain: reading %s: %w", cfg.Data, err)
		}
		chunk = chunk[:0]
		for i := lo; i < hi; i++ {
			if cfg.heldOut(i) {
				continue
			}
			off := (i - lo) * nnuedata.RecordSize
			if err := rec.Decode(b[off : off+nnuedata.RecordSize]); err != nil {
				return fmt.Errorf("nnuetrain: record %d: %w", i, err)
			}
			var s sample
			makeSample(&rec, cfg.Lambda, cfg.Scale, &s)
			chunk = append(chunk, s)
			if cfg.Mirror && !mayCastle(&rec) {
				mirrorSample(&s)
				chunk = append(chunk, s)
			}
		}
		rng.Shuffle(len(chunk), func(i, j int) { chunk[i], chunk[j] = chunk[j], chunk[i] })
		if err := f(chunk); err != nil {
			return err
		}
	}
	return nil
}
