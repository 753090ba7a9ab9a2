package main

import (
	"bufio"
	"context"
	"fmt"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// cmdBench searches the engine's fixed bench positions to a fixed depth and
// prints the total node count (deterministic with one thread: the engine's
// signature) and the speed: "Nodes searched: N", "Nodes/second: N" and,
// last, "N nodes N nps", the line OpenBench parses.
func cmdBench(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bench", "[--depth D] [--threads T] [--hash MB] [--evalfile NET | --hce]", env)
	depth := fs.Int("depth", engine.DefaultBenchDepth, "search depth per position")
	threads := fs.Int("threads", 1, "search threads (node count is deterministic only with 1)")
	hash := fs.Int("hash", 16, "hash table size in MiB")
	netf := addNetFlags(fs, "evaluate")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *depth < 1 || *depth > engine.MaxDepth {
		fmt.Fprintf(env.Stderr, "ponderosa bench: --depth must be between 1 and %d, got %d\n", engine.MaxDepth, *depth)
		return errUsage
	}
	if *threads < engine.MinThreads || *threads > engine.MaxThreads {
		fmt.Fprintf(env.Stderr, "ponderosa bench: --threads must be between %d and %d, got %d\n", engine.MinThreads, engine.MaxThreads, *threads)
		return errUsage
	}
	if *hash < engine.MinHashMB || *hash > engine.MaxHashMB {
		fmt.Fprintf(env.Stderr, "ponderosa bench: --hash must be between %d and %d, got %d\n", engine.MinHashMB, engine.MaxHashMB, *hash)
		return errUsage
	}
	if err := engine.CheckMemory(engine.HashBytes(*hash)); err != nil {
		fmt.Fprintf(env.Stderr, "ponderosa bench: --hash %d: %v\n", *hash, err)
		return errUsage
	}
	net, _, err := netf.network("bench", env)
	if err != nil {
		return err
	}
	e := engine.New(engine.Options{HashMB: *hash, Threads: *threads, Net: net})
	w := bufio.NewWriter(env.Stdout)
	n := len(engine.BenchPositions())
	nodes, elapsed := e.BenchEach(ctx, *depth, func(i int, fen string, r engine.Result) {
		pos, _ := board.ParseFEN(fen)
		best := "0000"
		if r.Best != board.NoMove {
			best = pos.UCI(r.Best)
		}
		fmt.Fprintf(w, "Position %2d/%d: %-6s %-10s %10d nodes  %s\n", i+1, n, best, r.Score, r.Nodes, fen)
		w.Flush()
	})
	if err := ctx.Err(); err != nil {
		w.Flush()
		return fmt.Errorf("bench: %w", err)
	}
	nps := uint64(0)
	if elapsed > 0 {
		nps = uint64(float64(nodes) / elapsed.Seconds())
	}
	fmt.Fprintf(w, "\nTotal time (ms) : %d\n", elapsed/time.Millisecond)
	fmt.Fprintf(w, "Nodes searched: %d\n", nodes)
	fmt.Fprintf(w, "Nodes/second: %d\n", nps)
	fmt.Fprintf(w, "%d nodes %d nps\n", nodes, nps)
	if err := w.Flush(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}
