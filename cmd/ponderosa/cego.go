package main

import (
	"context"
	"fmt"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/uci"
)

// cmdCEGO plays one game as a CEGO revision 1 engine on standard input and
// output. A malformed message ends it with an error (non-zero exit status,
// the reason on standard error), as the protocol asks.
func cmdCEGO(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("cego", "[--hash MB] [--threads N]", env)
	def := engine.DefaultOptions()
	hash := fs.Int("hash", def.HashMB, "hash table size in MiB")
	threads := fs.Int("threads", def.Threads, "search threads")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := engine.CheckMemory(engine.HashBytes(*hash)); err != nil {
		fmt.Fprintf(env.Stderr, "ponderosa cego: --hash %d: %v\n", *hash, err)
		return errUsage
	}
	opts := engine.DefaultOptions() // Move Overhead included
	opts.HashMB, opts.Threads = *hash, *threads
	return uci.RunCEGO(ctx, env.Stdin, env.Stdout, engine.New(opts))
}
