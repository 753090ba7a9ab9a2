package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuetrain"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// cmdNNUECheck judges networks without games: on records of a data file it
// compares each network's static evaluation, and the hand-crafted one's,
// with the records' search scores (side to move's view), through the
// engine's own evaluation path.
func cmdNNUECheck(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("nnuecheck", "[--data FILE] [--evalfile NET]... [--from N] [--every K] [--max M] [--depth D]", env)
	data := fs.String("data", defaultDataPath(env), "data file (default $"+dataEnv+", else nnue-data/selfplay.bin)")
	var nets stringList
	fs.Var(&nets, "evalfile", "network to measure (repeatable)")
	from := fs.Int("from", 0, "first record (the records after those a network trained on were never seen by it)")
	every := fs.Int("every", 50, "every K-th record from --from (50 from 0: the trainer's default validation records)")
	maxN := fs.Int("max", 5000, "at most this many records (0: all)")
	depth := fs.Int("depth", 0, "also measure a search of this depth with each evaluation (0: static only)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *from < 0 || *every < 1 || *maxN < 0 || *depth < 0 || *depth > 20 {
		fmt.Fprintln(env.Stderr, "ponderosa nnuecheck: want --from >= 0, --every >= 1, --max >= 0 and 0 <= --depth <= 20")
		return errUsage
	}
	type named struct {
		name string
		opts engine.Options
	}
	evs := []named{{"hce", engine.Options{HashMB: 1}}}
	for _, path := range nets {
		n, err := nnue.Load(path)
		if err != nil {
			return fmt.Errorf("nnuecheck: %w", err)
		}
		name := fmt.Sprintf("%s N=%d", n.ID(), n.Hidden())
		if n.Buckets() > 1 {
			name += fmt.Sprintf(" B=%d", n.Buckets())
		}
		evs = append(evs, named{name, engine.Options{HashMB: 1, Net: n}})
	}
	var list []nnuetrain.Evaluator
	for _, ev := range evs {
		e := engine.New(ev.opts)
		list = append(list, nnuetrain.Evaluator{Name: ev.name, Eval: func(pos *board.Position) int { return int(e.Evaluate(pos)) }})
	}
	if *depth > 0 {
		for _, ev := range evs {
			e := engine.New(ev.opts)
			list = append(list, nnuetrain.Evaluator{
				Name: fmt.Sprintf("%s depth %d", ev.name, *depth),
				Eval: func(pos *board.Position) int {
					e.NewGame()
					return int(e.Search(ctx, board.NewGame(*pos), engine.Limits{Depth: *depth}, nil).Score)
				},
			})
		}
	}
	qs, err := nnuetrain.MeasureFile(*data, nnuetrain.Selection{From: *from, Every: *every, Max: *maxN}, list)
	if err != nil {
		return fmt.Errorf("nnuecheck: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "nnuecheck: %s, records from %d, every %d: evaluation vs search score (side to move's view)\n", *data, *from, *every)
	for _, q := range qs {
		fmt.Fprintln(env.Stdout, q)
	}
	return nil
}
