package nnuetrain

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// syntheticData writes n records of random positions whose score is a
// material count (White's view) and whose result follows the score.
func syntheticData(t *testing.T, path string, n int) {
	w, err := nnuedata.OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	values := [7]int{0, 100, 300, 300, 500, 900, 0}
	rng := rand.New(rand.NewPCG(1, 2))
	for written := 0; written < n; {
		pos := board.StartPosition()
		for ply := 0; ply < 120 && written < n; ply++ {
			var ml board.MoveList
			pos.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			var child board.Position
			pos.MakeMove(ml.Moves[rng.IntN(ml.N)], &child)
			pos = child
			if ply < 10 {
				continue
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
			r := nnuedata.FromPosition(&pos, int16(score), res)
			if err := w.Write(&r); err != nil {
				t.Fatal(err)
			}
			written++
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLossFalls(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "synthetic.bin")
	syntheticData(t, data, 4000)
	cfg := Config{
		Data: data, Hidden: 16, Epochs: 4, BatchSize: 256, LR: 0.01, Lambda: 0.3, Threads: 2,
		ValEvery: 10, ChunkSize: 1000, Seed: 3,
		Checkpoint: filepath.Join(dir, "ckpt"), Out: filepath.Join(dir, "net.nnue"),
	}
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
	// The exported network loads and agrees with the float model in sign
	// on a clearly won position.
	net, err := nnue.Load(cfg.Out)
	if err != nil {
		t.Fatal(err)
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
