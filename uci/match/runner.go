package match

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Config describes a match between two engines.
type Config struct {
	Engines [2]EngineSpec
	TC      TimeControl
	// Games is the number of games, resumed ones included; they are played
	// in pairs (one opening, colours swapped), so an odd number is rounded
	// up.
	Games int
	// Openings are used in order, each for one pair; none means the
	// standard start position.
	Openings    []Opening
	Concurrency int
	// Margin is how far past its clock an engine may answer before it
	// loses on time.
	Margin     time.Duration
	Adjudicate Adjudication
	// SPRT, if set, is evaluated after every pair and stops the match at a
	// verdict.
	SPRT *SPRT
	// Resume, if set (ReadResume), is the earlier part of this match: its
	// games count in the statistics and in Games, and play goes on from
	// its next pair.
	Resume Resume
	// PGN, if set, receives every finished game.
	PGN io.Writer
	// Game, if set, is called with every finished game, one at a time, in
	// the order the games finish (the tuning-data generator reads them).
	Game func(GameRecord)
	// Progress, if set, receives one line per finished game and the
	// summary.
	Progress io.Writer
	// Update, if set, is called after every finished game with the
	// result so far, the games played and the games planned (Planned),
	// resumed ones included in both (from the collecting goroutine: it
	// must return quickly and not keep res's map).
	Update func(res Result, played, planned int)
	// Log, if set, sees every protocol line ("engine > line", "engine < line").
	Log func(engine, dir, line string)
}

// Planned returns the number of games the match will have when it ends
// without a verdict: the resumed games plus two for every pair left.
func (c Config) Planned() int {
	return c.Resume.Stats.Games() + max(0, (c.Games+1)/2-c.Resume.NextPair)*2
}

// Result is the outcome of a match.
type Result struct {
	Stats   Stats
	Names   [2]string
	LLR     float64
	Verdict Verdict
	// Terminations counts games by how they ended.
	Terminations map[Termination]int
}

type pairJob struct {
	index   int
	opening Opening
}

type gameDone struct {
	rec  GameRecord
	pair int
	last bool // second game of its pair
	err  error
}

// Run plays the match. It returns when all games are played, the SPRT
// reaches a verdict, or ctx is cancelled (then with ctx's error and the
// statistics so far).
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Games < 1 {
		return Result{}, errors.New("match: at least one game")
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	for i, e := range cfg.Engines {
		if len(e.Argv) == 0 {
			return Result{}, fmt.Errorf("match: engine %d has no command", i+1)
		}
		if e.CEGO && !cfg.TC.Timed() {
			return Result{}, fmt.Errorf("match: engine %d speaks CEGO, which needs a clock (--tc)", i+1)
		}
	}
	if cfg.Margin == 0 {
		cfg.Margin = 100 * time.Millisecond
	}
	pairs := (cfg.Games + 1) / 2
	openings := cfg.Openings
	if len(openings) == 0 {
		openings = []Opening{{Start: board.StartPosition(), Source: "startpos"}}
	}
	from := cfg.Resume.NextPair
	res := Result{Terminations: map[Termination]int{}, Stats: cfg.Resume.Stats}
	for t, n := range cfg.Resume.Terminations {
		res.Terminations[t] = n
	}
	res.Names = [2]string{engineLabel(cfg.Engines[0], 1), engineLabel(cfg.Engines[1], 2)}
	if cfg.SPRT != nil {
		res.LLR = cfg.SPRT.LLR(res.Stats)
		res.Verdict = cfg.SPRT.Verdict(res.LLR)
		if res.Verdict != Continue {
			return res, nil // decided before it was paused
		}
	}
	if from >= pairs {
		return res, nil
	}
	if pairs-from < cfg.Concurrency {
		cfg.Concurrency = pairs - from
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan pairJob)
	done := make(chan gameDone)
	var wg sync.WaitGroup
	for w := range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker(ctx, w, cfg, jobs, done)
		}()
	}
	go func() {
		defer close(jobs)
		for i := from; i < pairs; i++ {
			select {
			case jobs <- pairJob{index: i, opening: openings[i%len(openings)]}:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(done)
	}()

	firstScore := map[int]float64{}
	var firstErr error
	played, planned := cfg.Resume.Stats.Games(), cfg.Planned()
	for d := range done {
		if d.err != nil {
			if firstErr == nil && !errors.Is(d.err, context.Canceled) {
				firstErr = d.err
				cancel()
			}
			continue
		}
		played++
		rec := d.rec
		if rec.FirstIsWhite {
			res.Names = [2]string{rec.White, rec.Black}
		} else {
			res.Names = [2]string{rec.Black, rec.White}
		}
		score := rec.ScoreFirst()
		res.Stats.AddGame(score)
		res.Terminations[rec.Termination]++
		if d.last {
			if a, ok := firstScore[d.pair]; ok {
				res.Stats.AddPair(a, score)
				delete(firstScore, d.pair)
			}
		} else {
			firstScore[d.pair] = score
		}
		if cfg.PGN != nil {
			if err := WritePGN(cfg.PGN, rec, "ponderosa match"); err != nil && firstErr == nil {
				firstErr = fmt.Errorf("match: writing PGN: %w", err)
				cancel()
			}
		}
		if cfg.Game != nil {
			cfg.Game(rec)
		}
		if cfg.SPRT != nil {
			res.LLR = cfg.SPRT.LLR(res.Stats)
			res.Verdict = cfg.SPRT.Verdict(res.LLR)
		}
		if cfg.Update != nil {
			cfg.Update(res, played, planned)
		}
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "Finished game %d (%s vs %s): %s {%s}\n", rec.Round, rec.White, rec.Black, rec.Result, rec.Reason)
			s := res.Stats
			line := fmt.Sprintf("Score of %s vs %s: %d - %d - %d  [%.3f] %d", res.Names[0], res.Names[1], s.Wins, s.Losses, s.Draws, s.Score(), s.Games())
			if cfg.SPRT != nil {
				lo, hi := cfg.SPRT.Bounds()
				line += fmt.Sprintf("  LLR %.2f (%.2f, %.2f)", res.LLR, lo, hi)
			}
			fmt.Fprintln(cfg.Progress, line)
		}
		if cfg.SPRT != nil && res.Verdict != Continue {
			cancel() // stop starting pairs; games in progress are abandoned
		}
	}
	if firstErr != nil {
		return res, firstErr
	}
	if err := ctx.Err(); err != nil && (cfg.SPRT == nil || res.Verdict == Continue) && played < planned {
		return res, err
	}
	return res, nil
}

func engineLabel(e EngineSpec, i int) string {
	if e.Name != "" {
		return e.Name
	}
	return fmt.Sprintf("engine%d", i)
}

// worker plays pairs with its own engine processes (UCI engines are reused
// across games and restarted after a crash or hang).
func worker(ctx context.Context, id int, cfg Config, jobs <-chan pairJob, done chan<- gameDone) {
	var players [2]player
	defer func() {
		for _, p := range players {
			if p != nil {
				p.close()
			}
		}
	}()
	get := func(i int) (player, error) {
		if players[i] != nil && players[i].usable() {
			return players[i], nil
		}
		if players[i] != nil {
			players[i].close()
			players[i] = nil
		}
		spec := cfg.Engines[i]
		var log func(dir, line string)
		if cfg.Log != nil {
			label := fmt.Sprintf("%d.%d", id+1, i+1)
			log = func(dir, line string) { cfg.Log(label, dir, line) }
		}
		if spec.CEGO {
			players[i] = newCEGOPlayer(ctx, spec, log)
			return players[i], nil
		}
		p, err := newUCIPlayer(ctx, spec, log)
		if err != nil {
			return nil, fmt.Errorf("match: engine %d (%s): %w", i+1, strings.Join(spec.Argv, " "), err)
		}
		players[i] = p
		return p, nil
	}
	for job := range jobs {
		for g := range 2 {
			firstWhite := g == 0
			var ps [2]player
			var err error
			for i := range 2 {
				if ps[i], err = get(i); err != nil {
					break
				}
			}
			if err != nil {
				select {
				case done <- gameDone{err: err}:
				case <-ctx.Done():
				}
				return
			}
			white, black := ps[0], ps[1]
			if !firstWhite {
				white, black = black, white
			}
			rec, err := playGame(ctx, white, black, gameSetup{
				round: job.index*2 + g + 1, opening: job.opening, tc: cfg.TC, margin: cfg.Margin,
				adj: cfg.Adjudicate, firstIsWhite: firstWhite,
			})
			select {
			case done <- gameDone{rec: rec, pair: job.index, last: g == 1, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}
}

// Summary writes the final report of a match: W/L/D, Elo with its 95%
// interval, pentanomial counts and, if sprt is set, the LLR with bounds and
// the verdict.
func Summary(w io.Writer, res Result, sprt *SPRT) {
	s := res.Stats
	fmt.Fprintf(w, "Results of %s vs %s (%d games):\n", res.Names[0], res.Names[1], s.Games())
	fmt.Fprintf(w, "  W - L - D: %d - %d - %d  [%.3f]\n", s.Wins, s.Losses, s.Draws, s.Score())
	elo, lo, hi := s.Elo()
	half := strings.TrimPrefix(fmtElo((hi-lo)/2), "+")
	fmt.Fprintf(w, "  Elo: %s +/- %s (95%%: [%s, %s])", fmtElo(elo), half, fmtElo(lo), fmtElo(hi))
	if n := s.NormalizedElo(); !math.IsNaN(n) {
		fmt.Fprintf(w, ", nElo %.1f", n)
	}
	fmt.Fprintln(w)
	p := s.Penta
	fmt.Fprintf(w, "  Pentanomial [0, 0.5, 1, 1.5, 2]: [%d, %d, %d, %d, %d] (%d pairs)\n", p[0], p[1], p[2], p[3], p[4], s.Pairs())
	if sprt != nil {
		lo, hi := sprt.Bounds()
		fmt.Fprintf(w, "  SPRT (elo0=%g, elo1=%g, alpha=%g, beta=%g): LLR %.2f (%.2f, %.2f) %s\n",
			sprt.Elo0, sprt.Elo1, sprt.Alpha, sprt.Beta, res.LLR, lo, hi, res.Verdict)
	}
	if len(res.Terminations) > 0 {
		var parts []string
		for _, t := range []Termination{TermNormal, TermAdjudicated, TermTime, TermIllegal, TermCrash, TermForfeit} {
			if n := res.Terminations[t]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", t, n))
			}
		}
		fmt.Fprintf(w, "  Endings: %s\n", strings.Join(parts, ", "))
	}
}

func fmtElo(x float64) string {
	switch {
	case math.IsInf(x, 1), math.IsNaN(x) && x > 0:
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	if x == 0 {
		x = 0 // no "-0.0"
	}
	return fmt.Sprintf("%.1f", x)
}
