package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/filelock"
	"github.com/ponderosa-chess/ponderosa/internal/progress"
	"github.com/ponderosa-chess/ponderosa/uci/match"
)

// cmdMatch plays two engines against each other over UCI or CEGO and
// prints W/L/D, the Elo difference with a 95% interval, pentanomial counts
// and, with --sprt, the SPRT log-likelihood ratio and verdict.
func cmdMatch(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("match", "--engine CMD --engine CMD [--tc 10+0.1] [--games N] [--openings FILE] [--concurrency C] [--pgn OUT] [--sprt elo0=0,elo1=5]", env)
	var specs []match.EngineSpec
	var names [2]string
	var opts [3][][2]string // both, first, second
	fs.Func("engine", "engine command line (give twice); prefix 'cego:' for a CEGO engine, e.g. 'cego:./ponderosa cego'", func(s string) error {
		spec, err := match.ParseEngineSpec(s)
		if err != nil {
			return err
		}
		specs = append(specs, spec)
		return nil
	})
	fs.StringVar(&names[0], "name1", "", "name of the first engine (default: its UCI id name)")
	fs.StringVar(&names[1], "name2", "", "name of the second engine")
	for i, n := range []string{"option", "option1", "option2"} {
		usage := map[string]string{"option": "UCI option NAME=VALUE for both engines (repeatable)", "option1": "UCI option NAME=VALUE for the first engine", "option2": "UCI option NAME=VALUE for the second engine"}[n]
		fs.Func(n, usage, func(s string) error {
			k, v, ok := strings.Cut(s, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return fmt.Errorf("want NAME=VALUE, got %q", s)
			}
			opts[i] = append(opts[i], [2]string{strings.TrimSpace(k), v})
			return nil
		})
	}
	tcFlag := fs.String("tc", "10+0.1", "time control SECONDS+INCREMENT per side, or 'inf' with --nodes/--depth/--movetime")
	nodes := fs.Uint64("nodes", 0, "node limit per move")
	depth := fs.Int("depth", 0, "depth limit per move")
	movetime := fs.Duration("movetime", 0, "fixed time per move (e.g. 100ms)")
	games := fs.Int("games", 2, "number of games (played in pairs: each opening with both colours)")
	openings := fs.String("openings", "", "opening book: EPD/FEN lines, or PGN games when the name ends in .pgn")
	shuffle := fs.Bool("shuffle", false, "use the openings in a random order (see --seed) instead of from the top")
	seed := fs.Int64("seed", 0, "random seed for --shuffle (0: from the clock; the seed used is printed)")
	concurrency := fs.Int("concurrency", 1, "games played at the same time")
	pgnPath := fs.String("pgn", "", "append finished games to this PGN file")
	resume := fs.Bool("resume", false, "go on with the match recorded in --pgn: count its games (toward --games and the SPRT) and play on from its next opening; needs --name1, --name2 and the same --tc, --openings, --shuffle and --seed")
	sprtSpec := fs.String("sprt", "", "run an SPRT: elo0=0,elo1=5[,alpha=0.05,beta=0.05] (normalized Elo)")
	margin := fs.Duration("margin", 100*time.Millisecond, "time an engine may overstep its clock before it loses on time")
	resign := fs.String("resign", "", "resign adjudication SCORE:MOVES, e.g. 1000:3 (both engines must agree)")
	draw := fs.String("draw", "", "draw adjudication SCORE:MOVES:AFTER, e.g. 10:8:40 (both engines, from move AFTER)")
	maxPlies := fs.Int("max-plies", 0, "adjudicate a draw at this many plies (default 1000)")
	logProto := fs.Bool("log", false, "print every protocol line to standard error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	givenSeed := *seed // --shuffle draws one from the clock when none is given
	if len(specs) != 2 {
		fmt.Fprintf(env.Stderr, "ponderosa match: give --engine exactly twice (got %d)\n", len(specs))
		fs.Usage()
		return errUsage
	}
	tc, err := match.ParseTC(*tcFlag)
	if err != nil {
		return fmt.Errorf("match: %w", err)
	}
	tc.Nodes, tc.Depth, tc.MoveTime = *nodes, *depth, *movetime
	if !tc.Timed() && tc.Nodes == 0 && tc.Depth == 0 && tc.MoveTime == 0 {
		return fmt.Errorf("match: --tc inf needs --nodes, --depth or --movetime")
	}
	cfg := match.Config{
		TC: tc, Games: *games, Concurrency: *concurrency, Margin: *margin, Progress: env.Stdout,
	}
	for i := range 2 {
		specs[i].Name = names[i]
		specs[i].Options = append(append([][2]string(nil), opts[0]...), opts[i+1]...)
		cfg.Engines[i] = specs[i]
	}
	cfg.Adjudicate.MaxPlies = *maxPlies
	if *resign != "" {
		v, err := ints(*resign, 2)
		if err != nil {
			return fmt.Errorf("match: --resign: %w", err)
		}
		cfg.Adjudicate.ResignScore, cfg.Adjudicate.ResignMoves = v[0], v[1]
	}
	if *draw != "" {
		v, err := ints(*draw, 3)
		if err != nil {
			return fmt.Errorf("match: --draw: %w", err)
		}
		cfg.Adjudicate.DrawScore, cfg.Adjudicate.DrawMoves, cfg.Adjudicate.DrawAfter = v[0], v[1], v[2]
	}
	if *sprtSpec != "" {
		s, err := match.ParseSPRT(*sprtSpec)
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		cfg.SPRT = &s
	}
	if *openings != "" {
		ops, err := match.LoadOpenings(*openings)
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		if *shuffle {
			if *seed == 0 {
				*seed = time.Now().UnixNano()
			}
			fmt.Fprintf(env.Stdout, "Shuffling %d openings with --seed %d\n", len(ops), *seed)
			rand.New(rand.NewPCG(uint64(*seed), 0)).Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
		}
		cfg.Openings = ops
	}
	if *pgnPath != "" {
		// Locked before --resume reads it: a second match on the same
		// record would play the same pairs again and interleave its games.
		f, err := filelock.OpenLocked(*pgnPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if errors.Is(err, filelock.ErrLocked) {
			return fmt.Errorf("match: --pgn %w", err)
		}
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		defer f.Close()
		cfg.PGN = f
	}
	if *resume {
		r, err := readResume(*pgnPath, names, *shuffle, givenSeed, tc, cfg.Openings)
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		cfg.Resume = r
		if s := r.Stats; s.Games() > 0 {
			fmt.Fprintf(env.Stdout, "Resuming %s: %d games (%d pairs) counted, +%d -%d =%d, from round %d\n",
				*pgnPath, s.Games(), s.Pairs(), s.Wins, s.Losses, s.Draws, 2*r.NextPair+1)
		} else {
			fmt.Fprintf(env.Stdout, "No games in %s yet: the match starts at round 1\n", *pgnPath)
		}
	}
	if *logProto {
		cfg.Log = func(engine, dir, line string) { fmt.Fprintf(env.Stderr, "%s %s %s\n", engine, dir, line) }
	}
	// A live status line on a terminal; a plain line every 30 s otherwise.
	var (
		mu      sync.Mutex
		cur     = match.Result{Stats: cfg.Resume.Stats}
		resumed = cfg.Resume.Stats.Games()
		played  = resumed
		planned = cfg.Planned()
		begun   = time.Now()
	)
	if cfg.SPRT != nil {
		cur.LLR = cfg.SPRT.LLR(cur.Stats)
	}
	cfg.Update = func(res match.Result, n, total int) {
		mu.Lock()
		cur, played, planned = res, n, total
		mu.Unlock()
	}
	status := func() string {
		mu.Lock()
		defer mu.Unlock()
		s := cur.Stats
		line := fmt.Sprintf("games %d/%d  +%d -%d =%d  %s", played, planned, s.Wins, s.Losses, s.Draws, progress.Elo(s.Elo()))
		if cfg.SPRT != nil {
			lo, hi := cfg.SPRT.Bounds()
			line += fmt.Sprintf("  LLR %.2f [%.2f, %.2f]", cur.LLR, lo, hi)
		}
		return line + "  ETA " + progress.ETA(time.Since(begun), played-resumed, planned-resumed)
	}
	prog := progress.Start(env.Stdout, progress.IsTerminal(env.Stdout), 0, time.Second, 30*time.Second, status)
	cfg.Progress = prog
	res, runErr := match.Run(ctx, cfg)
	prog.Stop()
	fmt.Fprintln(env.Stdout)
	match.Summary(env.Stdout, res, cfg.SPRT)
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return fmt.Errorf("match: %w", runErr)
	}
	return nil
}

// ints parses n colon-separated integers.
func ints(s string, n int) ([]int, error) {
	parts := strings.Split(s, ":")
	if len(parts) != n {
		return nil, fmt.Errorf("want %d numbers separated by ':', got %q", n, s)
	}
	out := make([]int, n)
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%q is not a non-negative integer", p)
		}
		out[i] = v
	}
	return out, nil
}

// readResume reads the --pgn file of a match to be resumed (match.ReadResume).
// A file not there yet resumes nothing, so one command line can start a
// long test and go on with it after every pause.
func readResume(path string, names [2]string, shuffled bool, seed int64, tc match.TimeControl, openings []match.Opening) (match.Resume, error) {
	switch {
	case path == "":
		return match.Resume{}, errors.New("--resume needs the --pgn file the match wrote")
	case names[0] == "" || names[1] == "":
		return match.Resume{}, errors.New("--resume needs --name1 and --name2 (the names in the PGN)")
	case names[0] == names[1]:
		return match.Resume{}, errors.New("--resume needs two different names to tell the engines apart in the PGN")
	case shuffled && seed == 0:
		return match.Resume{}, errors.New("--resume with --shuffle needs the --seed the match began with")
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return match.Resume{}, nil
	}
	if err != nil {
		return match.Resume{}, err
	}
	defer f.Close()
	return match.ReadResume(f, path, names, tc, openings)
}
