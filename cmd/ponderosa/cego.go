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
	hash := fs.Int("hash", engine.DefaultHashMB, "hash table size in MiB")
	threads := fs.Int("threads", 1, "search threads")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := engine.CheckMemory(engine.HashBytes(*hash)); err != nil {
		fmt.Fprintf(env.Stderr, "ponderosa cego: --hash %d: %v\n", *hash, err)
		return errUsage
	}
	return uci.RunCEGO(ctx, env.Stdin, env.Stdout, engine.New(engine.Options{HashMB: *hash, Threads: *threads}))
}
