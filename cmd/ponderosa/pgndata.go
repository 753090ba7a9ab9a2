package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// cmdPGNData appends the quiet positions of played games (PGN files whose
// moves carry their search scores, as `ponderosa match` writes them) to an
// NNUE data file, in datagen's format. A bad game (an illegal move, a bad
// FEN tag) stops the run with an error that names it; the games read
// before it stay in the data file, as datagen's finished games do.
func cmdPGNData(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("pgndata", "--pgn GAMES.pgn[.gz]... [--out FILE] [--player NAME]... [--min-depth D]", env)
	out := fs.String("out", defaultDataPath(env), "data file to append to (default $"+dataEnv+", else nnue-data/selfplay.bin)")
	var files, players stringList
	fs.Var(&files, "pgn", "games to read (PGN, gzipped when the name ends in .gz; repeatable)")
	fs.Var(&players, "player", "take only this player's moves (the PGN's White or Black tag; repeatable; default: every player's)")
	minDepth := fs.Int("min-depth", 1, "skip scores of searches shallower than this")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(files) == 0 || *minDepth < 0 {
		fmt.Fprintln(env.Stderr, "ponderosa pgndata: want at least one --pgn FILE and --min-depth >= 0")
		return errUsage
	}
	w, err := openDataOut(*out)
	if err != nil {
		return fmt.Errorf("pgndata: %w", err)
	}
	before := w.Records()
	opt := nnuedata.PGNOptions{Players: players, MinDepth: *minDepth}
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			break
		}
		st, err := pgnFileData(name, opt, w)
		if err != nil {
			w.Close()
			return fmt.Errorf("pgndata: %w", err)
		}
		fmt.Fprintf(env.Stdout, "pgndata: %s: %d games (%d unfinished skipped), %d positions\n", name, st.Games, st.Unfinished, st.Positions)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("pgndata: %w", err)
	}
	fmt.Fprintf(env.Stdout, "pgndata: %s: %d records (%d new)\n", *out, w.Records(), w.Records()-before)
	return ctx.Err()
}

// openDataOut opens the data file at path for appending, making its
// folder first.
func openDataOut(path string) (*nnuedata.Writer, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	return nnuedata.OpenAppend(path)
}

// pgnFileData appends one PGN file's positions to w, reading it through
// gzip when its name ends in .gz.
func pgnFileData(name string, opt nnuedata.PGNOptions, w *nnuedata.Writer) (nnuedata.PGNStats, error) {
	f, err := os.Open(name)
	if err != nil {
		return nnuedata.PGNStats{}, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nnuedata.PGNStats{}, fmt.Errorf("%s: %w", name, err)
		}
		defer zr.Close()
		r = zr
	}
	st, err := nnuedata.FromPGN(r, name, opt, w.Write)
	if err != nil {
		return st, err
	}
	return st, w.Flush()
}
