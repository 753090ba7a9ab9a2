package nnuedata

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// GenConfig configures self-play data generation.
type GenConfig struct {
	Path        string        // data file (appended to)
	PackPath    string        // pack file the games are also appended to ("": none)
	Workers     int           // games played at the same time, one search thread each
	Nodes       uint64        // node limit per move
	RandomPlies int           // random legal moves at the start of each game
	Games       int           // stop after this many games (0: until ctx ends)
	Seed        uint64        // random seed (mixed with the file's record count, so a resumed run plays new games)
	MaxPlies    int           // adjudicate a draw at this game length
	HashMB      int           // hash table per worker
	Progress    io.Writer     // progress lines (nil: none)
	Every       time.Duration // progress interval
	// Options, if set, configures each worker's engine (Threads and HashMB
	// are overridden).
	Options engine.Options
}

// Adjudication: a game is won when the side to move's score has been at
// least resignScore for resignPlies plies in a row, both sides agreeing
// (the score changes sign with the side to move); drawn when |score| stayed
// at most drawScore for drawPlies plies after drawAfter plies.
const (
	resignScore   = 1500
	resignPlies   = 6
	drawScore     = 10
	drawPlies     = 12
	drawAfter     = 60
	maxOpenScore  = 800 // an opening this unbalanced after the random plies is thrown away
	maxStoreScore = 10000
)

// GenStats counts what a run produced.
type GenStats struct {
	Games, Positions           int64
	WhiteWins, BlackWins, Draw int64
	Elapsed                    time.Duration
	FileRecords                int64 // records in the file at the end
}

func (s GenStats) String() string {
	pps := 0.0
	if s.Elapsed > 0 {
		pps = float64(s.Positions) / s.Elapsed.Seconds()
	}
	return fmt.Sprintf("games %d (+%d =%d -%d) positions %d (%.1f/s) file %d records, %s",
		s.Games, s.WhiteWins, s.Draw, s.BlackWins, s.Positions, pps, s.FileRecords, s.Elapsed.Round(time.Second))
}

type gameOut struct {
	recs   []Record
	result uint8
	pack   PackedGame
}

// Generate plays self-play games and appends their quiet positions to
// cfg.Path until cfg.Games games are done or ctx ends. Games still being
// played when ctx ends are thrown away; every finished game is written
// whole, so the file is always a valid data set.
func Generate(ctx context.Context, cfg GenConfig) (GenStats, error) {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Nodes == 0 {
		cfg.Nodes = 5000
	}
	if cfg.MaxPlies <= 0 {
		cfg.MaxPlies = 400
	}
	if cfg.HashMB <= 0 {
		cfg.HashMB = 4
	}
	if cfg.Every <= 0 {
		cfg.Every = 30 * time.Second
	}
	if cfg.Path == "" {
		return GenStats{}, ErrNoPath
	}
	w, err := OpenAppend(cfg.Path)
	if err != nil {
		return GenStats{}, err
	}
	var pw *PackWriter
	if cfg.PackPath != "" {
		var kept int64
		if pw, kept, err = OpenPackAppend(cfg.PackPath); err != nil {
			w.Close()
			return GenStats{}, err
		}
		if kept > 0 && cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "datagen: %s ended cut off; rewrote it with its %d complete games\n", cfg.PackPath, kept)
		}
	}
	start := time.Now()
	startRecords := w.Records()
	var stats GenStats
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make(chan gameOut, cfg.Workers)
	var started atomic.Int64
	var wg sync.WaitGroup
	for i := range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := cfg.Options
			opts.Threads, opts.HashMB = 1, cfg.HashMB
			e := engine.New(opts)
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(startRecords)<<16|uint64(i)))
			for ctx.Err() == nil {
				if cfg.Games > 0 && started.Add(1) > int64(cfg.Games) {
					return
				}
				g, ok := playGame(ctx, e, rng, cfg)
				if !ok {
					if ctx.Err() == nil && cfg.Games > 0 {
						started.Add(-1) // thrown-away opening: play another
					}
					continue
				}
				select {
				case out <- g:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()

	tick := time.NewTicker(cfg.Every)
	defer tick.Stop()
	var werr error
loop:
	for {
		select {
		case g, ok := <-out:
			if !ok {
				break loop
			}
			for i := range g.recs {
				g.recs[i].Result = g.result
				if werr == nil {
					werr = w.Write(&g.recs[i])
				}
			}
			if werr == nil {
				werr = w.Flush()
			}
			if werr == nil && pw != nil {
				g.pack.Result = g.result
				werr = pw.Write(&g.pack)
			}
			if werr != nil {
				cancel()
				continue
			}
			stats.Games++
			stats.Positions += int64(len(g.recs))
			switch g.result {
			case WhiteWin:
				stats.WhiteWins++
			case BlackWin:
				stats.BlackWins++
			default:
				stats.Draw++
			}
		case <-tick.C:
			if cfg.Progress != nil {
				stats.Elapsed, stats.FileRecords = time.Since(start), w.Records()
				fmt.Fprintf(cfg.Progress, "datagen: %v\n", stats)
			}
		}
	}
	stats.Elapsed, stats.FileRecords = time.Since(start), w.Records()
	if err := w.Close(); werr == nil {
		werr = err
	}
	if pw != nil {
		if err := pw.Close(); werr == nil {
			werr = err
		}
	}
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "datagen: done: %v\n", stats)
	}
	return stats, werr
}

// playGame plays one self-play game. ok is false when the game was thrown
// away (ctx ended, or the random opening was lost already).
func playGame(ctx context.Context, e *engine.Engine, rng *rand.Rand, cfg GenConfig) (gameOut, bool) {
	start := board.StartPosition()
	g := board.NewGame(start)
	pack := PackedGame{Start: start.FEN()}
	var ml board.MoveList
	for range cfg.RandomPlies {
		pos := g.Position()
		ml.N = 0 // GenerateLegal appends
		pos.GenerateLegal(&ml)
		if ml.N == 0 {
			return gameOut{}, false
		}
		m := ml.Moves[rng.IntN(ml.N)]
		if err := g.Play(m); err != nil {
			return gameOut{}, false
		}
		pack.Plies = append(pack.Plies, PackedPly{Move: m})
	}
	e.NewGame()
	var recs []Record
	done := func(result uint8) (gameOut, bool) { return gameOut{recs, result, pack}, true }
	winStreak, drawStreak := 0, 0
	lastSign := 0
	for ply := 0; ; ply++ {
		if out := g.Outcome(); out.Result != board.Ongoing {
			switch out.Result {
			case board.WhiteWins:
				return done(WhiteWin)
			case board.BlackWins:
				return done(BlackWin)
			}
			return done(DrawGame)
		}
		if len(g.Moves()) >= cfg.MaxPlies {
			return done(DrawGame)
		}
		res := e.Search(ctx, g, engine.Limits{Nodes: cfg.Nodes}, nil)
		if ctx.Err() != nil || res.Best == board.NoMove {
			return gameOut{}, false
		}
		pos := g.Position()
		sc := int(res.Score)
		if ply == 0 && (sc > maxOpenScore || sc < -maxOpenScore) {
			return gameOut{}, false
		}
		white := sc
		if pos.SideToMove() == board.Black {
			white = -sc
		}
		pp := PackedPly{Move: res.Best}
		if recordable(&pos, res.Best) && !res.Score.IsMate() {
			pp.Record, pp.Score = true, int16(max(-maxStoreScore, min(maxStoreScore, white)))
			recs = append(recs, FromPosition(&pos, pp.Score, DrawGame))
		}
		pack.Plies = append(pack.Plies, pp)
		// Adjudication, on White's point of view so both sides must agree.
		sign := 0
		if white >= resignScore || (res.Score.IsMate() && white > 0) {
			sign = 1
		} else if white <= -resignScore || (res.Score.IsMate() && white < 0) {
			sign = -1
		}
		if sign != 0 && sign == lastSign {
			winStreak++
		} else if sign != 0 {
			winStreak = 1
		} else {
			winStreak = 0
		}
		lastSign = sign
		if winStreak >= resignPlies {
			if sign > 0 {
				return done(WhiteWin)
			}
			return done(BlackWin)
		}
		if len(g.Moves()) >= drawAfter && sc >= -drawScore && sc <= drawScore {
			drawStreak++
			if drawStreak >= drawPlies {
				return done(DrawGame)
			}
		} else {
			drawStreak = 0
		}
		if err := g.Play(res.Best); err != nil {
			return gameOut{}, false
		}
	}
}

// ErrNoPath is returned when no data file is given.
var ErrNoPath = errors.New("nnuedata: no data file given")
