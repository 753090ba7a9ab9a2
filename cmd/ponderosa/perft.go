package main

import (
	"bufio"
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/progress"
)

// cmdPerft counts the leaf nodes of the legal move tree below each root
// move, printing "move: count" lines, a blank line and "Nodes searched: N",
// like Stockfish's "go perft".
func cmdPerft(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("perft", "--depth N [--fen FEN] [--chess960]", env)
	depth := fs.Int("depth", 0, "search depth in plies (required, at least 1)")
	fen := fs.String("fen", board.StartFEN, "start position in FEN, X-FEN or Shredder-FEN")
	chess960 := fs.Bool("chess960", false, "write castling as king takes rook (set automatically by Chess960 FENs)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *depth < 1 || *depth > 20 {
		fmt.Fprintf(env.Stderr, "ponderosa perft: --depth must be between 1 and 20, got %d\n", *depth)
		fs.Usage()
		return errUsage
	}
	pos, err := board.ParseFEN(*fen)
	if err != nil {
		return fmt.Errorf("perft: %w", err)
	}
	if *chess960 {
		pos.Chess960 = true
	}

	w := bufio.NewWriter(env.Stdout)
	var moves board.MoveList
	pos.GenerateLegal(&moves)
	var child board.Position
	var total uint64
	// Progress on standard error (standard output keeps its format) once
	// the count takes more than a second.
	var rootsDone, nodesDone atomic.Uint64
	begun := time.Now()
	prog := progress.Start(env.Stderr, progress.IsTerminal(env.Stderr), time.Second, 250*time.Millisecond, 10*time.Second, func() string {
		d := rootsDone.Load()
		return fmt.Sprintf("perft %d: %d/%d root moves, %d nodes, %s, ETA %s", *depth, d, moves.N,
			nodesDone.Load(), time.Since(begun).Round(100*time.Millisecond), progress.ETA(time.Since(begun), int(d), moves.N))
	})
	defer prog.Stop()
	for _, m := range moves.Slice() {
		if err := ctx.Err(); err != nil {
			w.Flush()
			return fmt.Errorf("perft: %w", err)
		}
		pos.MakeMove(m, &child)
		n := child.Perft(*depth - 1)
		total += n
		nodesDone.Store(total)
		rootsDone.Add(1)
		fmt.Fprintf(w, "%s: %d\n", pos.UCI(m), n)
		if err := w.Flush(); err != nil {
			return fmt.Errorf("perft: %w", err)
		}
	}
	fmt.Fprintf(w, "\nNodes searched: %d\n", total)
	if err := w.Flush(); err != nil {
		return fmt.Errorf("perft: %w", err)
	}
	return nil
}
