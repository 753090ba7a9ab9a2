// Command selfplay plays Ponderosa against itself in-process. In "gen" mode
// it writes quiet positions labelled with the game result (the Texel tuner's
// input); in "match" mode it plays engine A against engine B with colours
// swapped per opening and prints W/D/L and A's Elo difference. By default A
// uses the tuned weights (eval.Default) and B the hand-set ones
// (eval.HandSet); -b-handset=false -a-threads 2 compares thread counts.
//
//	go run ./engine/eval/tune/cmd/selfplay -mode gen -openings ../shared/books/8moves_v3.pgn -games 2000 -nodes 6000 -out data.txt
//	go run ./engine/eval/tune/cmd/selfplay -mode match -openings ../shared/books/8mvs_+90_+99.epd -games 400 -nodes 20000
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/engine/eval/tune"
)

func main() {
	mode := flag.String("mode", "gen", "gen (labelled positions) or match (Default vs HandSet weights)")
	openings := flag.String("openings", "", "openings file: EPD/FEN lines or PGN")
	games := flag.Int("games", 100, "number of games")
	nodes := flag.Uint64("nodes", 6000, "nodes per move")
	movetime := flag.Duration("movetime", 0, "time per move instead of nodes")
	out := flag.String("out", "selfplay.txt", "output file for gen mode (appended)")
	conc := flag.Int("concurrency", 1, "games played at once")
	seed := flag.Uint64("seed", 1, "opening order seed")
	aThreads := flag.Int("a-threads", 1, "threads of engine A (match mode)")
	bThreads := flag.Int("b-threads", 1, "threads of engine B (match mode)")
	bHandSet := flag.Bool("b-handset", true, "engine B uses the hand-set weights (match mode)")
	flag.Parse()
	cfg := matchConfig{aThreads: *aThreads, bThreads: *bThreads, bHandSet: *bHandSet}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg, *mode, *openings, *games, *nodes, *movetime, *out, *conc, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "selfplay:", err)
		os.Exit(1)
	}
}

type matchConfig struct {
	aThreads, bThreads int
	bHandSet           bool
}

func run(ctx context.Context, cfg matchConfig, mode, openingsPath string, games int, nodes uint64, movetime time.Duration, out string, conc int, seed uint64) error {
	f, err := os.Open(openingsPath)
	if err != nil {
		return err
	}
	ops, err := tune.LoadOpenings(f)
	f.Close()
	if err != nil {
		return err
	}
	if len(ops) == 0 {
		return fmt.Errorf("no openings in %s", openingsPath)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	lim := engine.Limits{Nodes: nodes}
	if movetime > 0 {
		lim = engine.Limits{MoveTime: movetime}
	}

	var w *bufio.Writer
	if mode == "gen" {
		of, err := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer of.Close()
		w = bufio.NewWriter(of)
		defer w.Flush()
	} else if mode != "match" {
		return fmt.Errorf("unknown mode %q", mode)
	}

	var mu sync.Mutex
	wins, draws, losses, done, positions := 0, 0, 0, 0, 0
	jobs := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < conc; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := engine.New(engine.Options{HashMB: 8, Threads: cfg.aThreads})
			b := a
			if mode == "match" {
				bo := engine.Options{HashMB: 8, Threads: cfg.bThreads}
				if cfg.bHandSet {
					bo.Eval = eval.HandSet()
				}
				b = engine.New(bo)
			}
			for i := range jobs {
				op := ops[(i/2)%len(ops)]
				white, black := a, b
				aIsWhite := i%2 == 0
				if !aIsWhite {
					white, black = b, a
				}
				rec := tune.PlayGame(ctx, white, black, op, lim)
				mu.Lock()
				done++
				if mode == "gen" {
					label := "[0.5]"
					switch rec.Result {
					case 1:
						label = "[1.0]"
					case 0:
						label = "[0.0]"
					}
					for _, fen := range rec.Positions {
						fmt.Fprintf(w, "%s %s\n", fen, label)
					}
					positions += len(rec.Positions)
					if done%20 == 0 {
						w.Flush()
						fmt.Printf("%d games, %d positions, %v\n", done, positions, time.Since(start).Round(time.Second))
					}
				} else {
					score := rec.Result
					if !aIsWhite {
						score = 1 - score
					}
					switch score {
					case 1:
						wins++
					case 0:
						losses++
					default:
						draws++
					}
					if done%20 == 0 {
						elo, m := tune.EloEstimate(wins, draws, losses)
						fmt.Printf("%d games: +%d =%d -%d  Elo %+.1f ± %.1f\n", done, wins, draws, losses, elo, m)
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := 0; i < games; i++ {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if mode == "match" {
		elo, m := tune.EloEstimate(wins, draws, losses)
		fmt.Printf("Final: %d games: +%d =%d -%d  Elo %+.1f ± %.1f (A vs B)\n", done, wins, draws, losses, elo, m)
	} else {
		fmt.Printf("Final: %d games, %d positions written to %s\n", done, positions, out)
	}
	return nil
}
