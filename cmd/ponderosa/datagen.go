package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
	"github.com/ponderosa-chess/ponderosa/internal/progress"
)

// dataEnv names the environment variable that says where NNUE training
// data is kept between runs (a file path).
const dataEnv = "PONDEROSA_NNUE_DATA"

func defaultDataPath(env *Env) string {
	if p := env.Getenv(dataEnv); p != "" {
		return p
	}
	return filepath.Join("nnue-data", "selfplay.bin")
}

// cmdDatagen plays self-play games at a fixed node count and appends their
// quiet positions, with search score and game result, to a data file for
// the NNUE trainer. It runs until --games games are played or it is
// interrupted; a later run appends to the same file.
func cmdDatagen(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("datagen", "[--out FILE] [--pack FILE.pack.gz] [--workers N] [--nodes N] [--games N] [--random-plies N] [--seed S] [--evalfile NET | --hce]", env)
	out := fs.String("out", defaultDataPath(env), "data file to append to (default $"+dataEnv+", else nnue-data/selfplay.bin)")
	pack := fs.String("pack", "", "also append the games, compactly, to this pack file (ponderosa unpack turns it back into records)")
	workers := fs.Int("workers", 1, "games played at the same time (one search thread each)")
	nodes := fs.Uint64("nodes", 5000, "node limit per move")
	games := fs.Int("games", 0, "stop after this many games (0: until interrupted)")
	randomPlies := fs.Int("random-plies", 8, "random legal moves at the start of each game")
	seed := fs.Uint64("seed", 1, "random seed (mixed with the file's record count, so a resumed run plays new games)")
	every := fs.Duration("progress", 30*time.Second, "interval of the progress lines")
	netf := addNetFlags(fs, "play")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *workers < 1 || *workers > 256 {
		fmt.Fprintf(env.Stderr, "ponderosa datagen: --workers must be between 1 and 256, got %d\n", *workers)
		return errUsage
	}
	if *randomPlies < 0 || *randomPlies > 40 {
		fmt.Fprintf(env.Stderr, "ponderosa datagen: --random-plies must be between 0 and 40, got %d\n", *randomPlies)
		return errUsage
	}
	for _, p := range []string{*out, *pack} {
		if dir := filepath.Dir(p); p != "" && dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("datagen: %w", err)
			}
		}
	}
	// On a terminal the running counts are one line redrawn every second.
	out2, tty, stopProgress := progress.Lines(env.Stdout, func(line string) bool {
		return strings.HasPrefix(line, "datagen: games ")
	})
	defer stopProgress()
	if tty && !isFlagSet(fs, "progress") {
		*every = time.Second
	}
	cfg := nnuedata.GenConfig{
		Path: *out, PackPath: *pack, Workers: *workers, Nodes: *nodes, RandomPlies: *randomPlies,
		Games: *games, Seed: *seed, Progress: out2, Every: *every,
	}
	// The next network learns from the current one's games: the built-in
	// network plays unless --evalfile or --hce says otherwise.
	net, desc, err := netf.network("datagen", env)
	if err != nil {
		return err
	}
	cfg.Options.Net = net
	fmt.Fprintf(env.Stdout, "datagen: playing with %s\n", desc)
	_, err = nnuedata.Generate(ctx, cfg)
	if err != nil {
		return fmt.Errorf("datagen: %w", err)
	}
	return nil
}
