package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// cmdUnpack replays the games of pack files (datagen --pack) and appends
// their records to a data file, the same records datagen wrote beside them.
// A pack cut off by a killed writer gives its complete games and a warning;
// invalid data stops the run with an error naming the game (the records of
// the games before it stay in the data file).
func cmdUnpack(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("unpack", "--pack FILE.pack.gz... [--out FILE]", env)
	out := fs.String("out", defaultDataPath(env), "data file to append to (default $"+dataEnv+", else nnue-data/selfplay.bin)")
	var packs stringList
	fs.Var(&packs, "pack", "pack file to read (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(packs) == 0 {
		fmt.Fprintln(env.Stderr, "ponderosa unpack: want at least one --pack FILE")
		return errUsage
	}
	w, err := openDataOut(*out)
	if err != nil {
		return fmt.Errorf("unpack: %w", err)
	}
	before := w.Records()
	for _, name := range packs {
		if err := ctx.Err(); err != nil {
			break
		}
		games, recs, err := unpackFile(ctx, name, w)
		switch {
		case errors.Is(err, nnuedata.ErrPackTruncated):
			fmt.Fprintf(env.Stderr, "ponderosa unpack: %s: %v; kept its %d complete games\n", name, err, games)
		case err != nil:
			w.Close()
			return fmt.Errorf("unpack: %s: %w", name, err)
		}
		fmt.Fprintf(env.Stdout, "unpack: %s: %d games, %d positions\n", name, games, recs)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("unpack: %w", err)
	}
	fmt.Fprintf(env.Stdout, "unpack: %s: %d records (%d new)\n", *out, w.Records(), w.Records()-before)
	return ctx.Err()
}

// unpackFile appends the records of one pack file's games to w.
func unpackFile(ctx context.Context, name string, w *nnuedata.Writer) (games, recs int64, err error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r, err := nnuedata.NewPackReader(f)
	if err != nil {
		return 0, 0, err
	}
	var g nnuedata.PackedGame
	for ctx.Err() == nil {
		if err := r.Read(&g); err != nil {
			if err == io.EOF {
				break
			}
			return r.Games(), recs, errors.Join(err, w.Flush())
		}
		rs, err := g.Records()
		if err != nil {
			return r.Games(), recs, err
		}
		for i := range rs {
			if err := w.Write(&rs[i]); err != nil {
				return r.Games(), recs, err
			}
		}
		recs += int64(len(rs))
	}
	return r.Games(), recs, w.Flush()
}
