package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/uci/match"
)

// selfPlayAdjudication ends self-play games that are decided: a win when
// both engines agree on at least 10 pawns for 3 moves each, a draw when both
// stay within 0.09 pawns for 10 moves each from move 41, and a draw at 400
// plies.
var selfPlayAdjudication = match.Adjudication{
	ResignScore: 1000, ResignMoves: 3,
	DrawScore: 9, DrawMoves: 10, DrawAfter: 41,
	MaxPlies: 400,
}

// cmdGen plays an engine against itself and appends labelled quiet
// positions to a file, one "FEN [result]" line each.
func cmdGen(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("texel gen", flag.ExitOnError)
	engineCmd := fs.String("engine", "", "engine command line, e.g. './ponderosa uci' (plays both sides)")
	openings := fs.String("openings", "", "opening book: EPD/FEN lines, or PGN games when the name ends in .pgn")
	games := fs.Int("games", 100, "number of games (in pairs: each opening with both colours)")
	nodes := fs.Uint64("nodes", 6000, "node limit per move")
	hash := fs.Int("hash", 8, "hash table MiB per engine")
	concurrency := fs.Int("concurrency", 1, "games played at the same time")
	out := fs.String("out", "selfplay.txt", "labelled positions file (appended to)")
	fs.Parse(args)
	if *engineCmd == "" || *openings == "" {
		return errors.New("gen: -engine and -openings are required")
	}
	spec, err := match.ParseEngineSpec(*engineCmd)
	if err != nil {
		return fmt.Errorf("gen: -engine: %w", err)
	}
	spec.Options = append(spec.Options, [2]string{"Hash", strconv.Itoa(*hash)})
	ops, err := match.LoadOpenings(*openings)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	positions := 0
	var writeErr error
	cfg := match.Config{
		Engines:     [2]match.EngineSpec{spec, spec},
		TC:          match.TimeControl{Nodes: *nodes},
		Games:       *games,
		Openings:    ops,
		Concurrency: *concurrency,
		Adjudicate:  selfPlayAdjudication,
		Progress:    stdout,
		Game: func(rec match.GameRecord) {
			for _, line := range quietPositions(rec) {
				if _, err := fmt.Fprintln(w, line); err != nil && writeErr == nil {
					writeErr = err
				}
				positions++
			}
		},
	}
	res, err := match.Run(ctx, cfg)
	if ferr := w.Flush(); writeErr == nil {
		writeErr = ferr
	}
	fmt.Fprintf(stdout, "%d games, %d positions appended to %s\n", res.Stats.Games(), positions, *out)
	if writeErr != nil {
		return fmt.Errorf("gen: writing %s: %w", *out, writeErr)
	}
	return err
}

// quietPositions returns the positions of rec worth tuning on, each as
// "FEN [result]" with the game's result from White's view: positions after
// the book where the mover was not in check, reported a score that is no
// mate, and played neither a capture nor a promotion (so the static
// evaluation should be close to the search's). A game that did not end by
// the rules or by adjudication (a crash, a forfeit, an abort) has no result
// to learn from and gives none.
func quietPositions(rec match.GameRecord) []string {
	if rec.Termination != match.TermNormal && rec.Termination != match.TermAdjudicated {
		return nil
	}
	var label string
	switch rec.Result {
	case board.WhiteWins:
		label = "[1.0]"
	case board.BlackWins:
		label = "[0.0]"
	case board.Draw:
		label = "[0.5]"
	default:
		return nil
	}
	var lines []string
	pos := rec.Start
	for _, pl := range rec.Plies {
		if !pl.Book && pl.HasScore && pl.Mate == 0 && !pos.InCheck() &&
			!pos.IsCapture(pl.Move) && !pl.Move.IsPromotion() {
			lines = append(lines, pos.FEN()+" "+label)
		}
		var next board.Position
		pos.MakeMove(pl.Move, &next)
		pos = next
	}
	return lines
}
