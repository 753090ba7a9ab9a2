// Command ponderosa is a Lichess bot with its own chess engine.
//
// With no arguments it speaks UCI on standard input and output, so chess GUIs
// can run the binary as it is. Run "ponderosa help" for the subcommands (the
// table commands below, with one file per command) and "ponderosa COMMAND
// --help" for the flags of one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// Env is what a subcommand may touch of the outside world. Tests build one
// with pipes and a fake getenv; main builds one from the process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

type command struct {
	summary string
	run     func(ctx context.Context, args []string, env *Env) error
}

// commands is the subcommand table. Each entry's implementation lives in a
// file named after it.
var commands = map[string]command{
	"version":     {"print the version and build information", cmdVersion},
	"bench":       {"search the fixed bench positions: node count (engine signature) and speed", cmdBench},
	"perft":       {"count leaf nodes of the move tree (move generator check)", cmdPerft},
	"healthcheck": {"ask a running bot's status endpoint whether it is healthy", cmdHealthcheck},
	"bot":         {"play on Lichess (LICHESS_TOKEN); --sandbox plays against a built-in fake Lichess", cmdBot},
	"uci":         {"speak UCI on standard input and output (the default)", cmdUCI},
	"cego":        {"play one game as a CEGO revision 1 engine on standard input and output", cmdCEGO},
	"datagen":     {"self-play games whose quiet positions become NNUE training data", cmdDatagen},
	"pgndata":     {"turn played games (PGN with search scores, as match writes them) into NNUE training data", cmdPGNData},
	"unpack":      {"turn datagen's pack files (games) back into NNUE training records", cmdUnpack},
	"train":       {"train an NNUE on datagen's data and export the quantised network", cmdTrain},
	"nnuecheck":   {"judge NNUE files without games: evaluation vs the data's search scores, beside the hand-crafted eval", cmdNNUECheck},
	"history":     {"the games the bot remembers: last games, results by speed and opponent; --backup FILE", cmdHistory},
	"match":       {"play engines against each other (UCI or CEGO): W/L/D, Elo, pentanomial, SPRT", cmdMatch},
}

// defaultCommand runs when ponderosa is started with no arguments.
const defaultCommand = "uci"

// errUsage marks an error already explained to the user (flag errors, --help).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal starts a graceful shutdown; restoring the default
	// handlers then lets a second one end the process at once.
	context.AfterFunc(ctx, stop)
	env := &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	err := run(ctx, os.Args[1:], env)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "ponderosa: %v\n", err)
		os.Exit(1)
	}
}

// run dispatches to a subcommand. It is main without the process: tests call it.
func run(ctx context.Context, args []string, env *Env) error {
	name := defaultCommand
	if len(args) > 0 {
		name, args = args[0], args[1:]
	}
	switch name {
	case "help", "-h", "-help", "--help":
		usage(env.Stdout)
		return nil
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(env.Stderr, "ponderosa: unknown command %q\n\n", name)
		usage(env.Stderr)
		return errUsage
	}
	return cmd.run(ctx, args, env)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: ponderosa [COMMAND] [FLAGS]")
	fmt.Fprintln(w, "\nWith no command, ponderosa speaks UCI on standard input and output.")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'ponderosa COMMAND --help' for the flags of a command.")
}

// newFlagSet returns a flag set that reports errors to env.Stderr and whose
// usage line names the subcommand.
func newFlagSet(name, synopsis string, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: ponderosa %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and turns flag errors into errUsage (already printed).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "ponderosa %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	return nil
}
