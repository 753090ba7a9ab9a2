package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuetrain"
	"github.com/ponderosa-chess/ponderosa/internal/progress"
)

// cmdTrain trains an NNUE on datagen's data, printing the losses per
// epoch, saving a checkpoint (resumed from when it exists) and the
// quantised network after every epoch.
func cmdTrain(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("train", "[--data FILE] --out NET [--checkpoint FILE] [--hidden N] [--epochs E] [--lambda L] ...", env)
	// The defaults are what measured best on the few hundred thousand
	// positions of the first data (README, NNUE figures): a small network,
	// the search score only, weight decay. Much more data wants a larger N.
	var c nnuetrain.Config
	fs.StringVar(&c.Data, "data", defaultDataPath(env), "training data (default $"+dataEnv+", else nnue-data/selfplay.bin)")
	fs.StringVar(&c.Out, "out", "", "quantised network file, written after every epoch (its output biases corrected for the rounding of the output weights, measured on the validation records)")
	fs.StringVar(&c.Checkpoint, "checkpoint", "", "checkpoint file (float weights and Adam state), resumed from when it exists; one that has all --epochs is exported again")
	fs.StringVar(&c.Init, "init", "", "start from this network's weights instead of random ones (fine-tuning it on the data; --hidden, --scale and --buckets follow it, but a one-bucket network may start a bucketed run)")
	fs.IntVar(&c.Hidden, "hidden", 64, fmt.Sprintf("hidden units N (%d..%d, a multiple of %d)", nnue.MinHidden, nnue.MaxHidden, nnue.HiddenStep))
	fs.IntVar(&c.Buckets, "buckets", 1, fmt.Sprintf("output buckets, chosen by the number of pieces on the board (1..%d)", nnue.MaxBuckets))
	fs.IntVar(&c.Epochs, "epochs", 10, "passes over the training data")
	fs.IntVar(&c.BatchSize, "batch", 1024, "positions per Adam step")
	fs.Float64Var(&c.LR, "lr", 0.001, "Adam learning rate")
	fs.IntVar(&c.LRDrop, "lr-drop", 0, "multiply the learning rate by 0.1 from this epoch on (0: never)")
	fs.Float64Var(&c.WeightDecay, "wd", 0.3, "decoupled weight decay of the weights per step, as a multiple of the learning rate (AdamW; 0: none)")
	fs.Float64Var(&c.Lambda, "lambda", 0, "weight of the game result in the target (0: score only, 1: result only)")
	fs.Float64Var(&c.Scale, "scale", 200, "centipawns per logit unit (target sigmoid(score/scale))")
	fs.IntVar(&c.Threads, "threads", runtime.NumCPU(), "training threads")
	fs.IntVar(&c.ValEvery, "val-every", 50, "hold out every Nth record for validation")
	fs.IntVar(&c.ValBlock, "val-block", 0, "hold out runs of this many consecutive records (every --val-every-th run), mostly whole games, instead of single records (0: single records)")
	fs.IntVar(&c.MaxRecords, "max-records", 0, "use at most this many records (0: all)")
	fs.Uint64Var(&c.Seed, "seed", 1, "random seed (initial weights, shuffling)")
	fs.BoolVar(&c.Mirror, "mirror", true, "also train on every position mirrored left to right, where no side may still castle (--mirror=false: not)")
	fs.DurationVar(&c.Every, "progress", 0, "interval of progress lines inside an epoch (default 30s)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if c.Out == "" {
		fmt.Fprintln(env.Stderr, "ponderosa train: --out is required")
		return errUsage
	}
	if c.Init != "" {
		// The network fixes N and the scale; a flag that says otherwise is
		// a mistake, not something to silently override.
		n, err := nnue.Load(c.Init)
		if err != nil {
			return fmt.Errorf("train: --init: %w", err)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if (set["hidden"] && c.Hidden != n.Hidden()) || (set["scale"] && c.Scale != float64(n.Scale())) {
			fmt.Fprintf(env.Stderr, "ponderosa train: %s has N=%d and scale %d; leave out --hidden and --scale or give those\n", c.Init, n.Hidden(), n.Scale())
			return errUsage
		}
		c.Hidden, c.Scale = n.Hidden(), float64(n.Scale())
		if set["buckets"] && c.Buckets != n.Buckets() && n.Buckets() != 1 {
			fmt.Fprintf(env.Stderr, "ponderosa train: %s has %d output buckets; leave out --buckets or give that (only a one-bucket network can start a run with more)\n", c.Init, n.Buckets())
			return errUsage
		}
		if !set["buckets"] {
			c.Buckets = n.Buckets()
		}
	}
	if c.Buckets < 1 || c.Buckets > nnue.MaxBuckets {
		fmt.Fprintf(env.Stderr, "ponderosa train: --buckets must be 1..%d, got %d\n", nnue.MaxBuckets, c.Buckets)
		return errUsage
	}
	if c.Hidden < nnue.MinHidden || c.Hidden > nnue.MaxHidden || c.Hidden%nnue.HiddenStep != 0 {
		fmt.Fprintf(env.Stderr, "ponderosa train: --hidden must be %d..%d and a multiple of %d, got %d\n", nnue.MinHidden, nnue.MaxHidden, nnue.HiddenStep, c.Hidden)
		return errUsage
	}
	if c.Lambda < 0 || c.Lambda > 1 || c.Scale <= 0 || c.Scale > 2000 || c.Epochs < 1 || c.BatchSize < 1 || c.LR <= 0 || c.WeightDecay < 0 || c.LR*c.WeightDecay >= 1 {
		fmt.Fprintln(env.Stderr, "ponderosa train: want 0 <= --lambda <= 1, 0 < --scale <= 2000, --epochs, --batch >= 1, --lr > 0 and 0 <= --wd < 1/--lr")
		return errUsage
	}
	// On a terminal the progress inside an epoch is one line redrawn every
	// second; the per-epoch losses stay as lines of their own.
	out, tty, stopProgress := progress.Lines(env.Stdout, isTrainStatus)
	defer stopProgress()
	if tty && c.Every == 0 {
		c.Every = time.Second
	}
	c.Progress = out
	m, _, err := nnuetrain.Train(ctx, c)
	if errors.Is(err, context.Canceled) {
		// Interrupted: the files of the last finished epoch stand.
		done := 0
		if m != nil {
			done = m.Epoch
		}
		fmt.Fprintf(env.Stdout, "train: interrupted during epoch %d; the checkpoint and network of epoch %d stand\n", done+1, done)
		return nil
	}
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	n, err := nnue.Load(c.Out)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	fmt.Fprintf(env.Stdout, "train: wrote %s (%s, %s)\n", c.Out, n.ID(), n.Shape())
	return nil
}

// isTrainStatus tells the trainer's progress lines inside an epoch
// ("train: epoch 3: 40000 of 90000 positions, ...", or without "of 90000"
// in a first mirrored epoch) from its other lines.
func isTrainStatus(line string) bool {
	rest, ok := strings.CutPrefix(line, "train: epoch ")
	return ok && strings.Contains(rest, " positions, loss ")
}
