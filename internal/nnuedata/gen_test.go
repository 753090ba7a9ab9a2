package nnuedata

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func TestGenerateWritesQuietPositions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.bin")
	cfg := GenConfig{Path: path, Workers: 2, Nodes: 64, RandomPlies: 6, Games: 2, Seed: 5, MaxPlies: 30, HashMB: 1}
	st, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Games != 2 || st.Positions == 0 || st.WhiteWins+st.BlackWins+st.Draw != 2 {
		t.Fatalf("stats %v", st)
	}
	recs, err := ReadFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(recs)) != st.Positions || st.FileRecords != st.Positions {
		t.Fatalf("file has %d records, stats say %v", len(recs), st)
	}
	for _, r := range recs {
		pos, err := board.ParseFEN(r.FEN())
		if err != nil {
			t.Fatalf("record %q: %v", r.FEN(), err)
		}
		if pos.InCheck() {
			t.Errorf("record in check: %s", r.FEN())
		}
		if r.Score > maxStoreScore || r.Score < -maxStoreScore {
			t.Errorf("score %d out of range", r.Score)
		}
	}
	// A second run appends.
	cfg.Games, cfg.Workers = 1, 1
	st2, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st2.FileRecords != st.Positions+st2.Positions {
		t.Fatalf("second run: file %d records, want %d+%d", st2.FileRecords, st.Positions, st2.Positions)
	}
}

func TestGenerateStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st, err := Generate(ctx, GenConfig{Path: filepath.Join(t.TempDir(), "c.bin"), Workers: 2, Nodes: 400})
	if err != nil {
		t.Fatal(err)
	}
	if st.Games != 0 {
		t.Fatalf("cancelled run played %d games", st.Games)
	}
}
