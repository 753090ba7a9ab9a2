package main

import (
	"context"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/uci"
)

// cmdUCI speaks UCI on standard input and output (the default command, so
// GUIs can run the binary with no arguments).
func cmdUCI(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("uci", "", env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return uci.Run(ctx, env.Stdin, env.Stdout, engine.New(engine.DefaultOptions()))
}
