package match

import (
	"context"

	"github.com/ponderosa-chess/ponderosa/uci/proc"
)

// Errors a driver reports about its engine.
var (
	// ErrTimeout means the engine did not answer in time.
	ErrTimeout = proc.ErrTimeout
	// ErrExited means the engine process ended (crash or quit).
	ErrExited = proc.ErrExited
)

// SplitCommand splits a shell-style command line into words (see
// proc.SplitCommand).
func SplitCommand(s string) ([]string, error) { return proc.SplitCommand(s) }

// process is a running engine, in its own process group.
type process = proc.Process

// startProcess runs argv with pipes. The process group is killed when ctx
// ends.
func startProcess(ctx context.Context, name string, argv []string, log func(dir, line string)) (*process, error) {
	return proc.Start(ctx, proc.Config{Name: name, Argv: argv, Log: log})
}
