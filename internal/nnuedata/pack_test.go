package nnuedata

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/filelock"
)

// packGame builds a packed game from a FEN and UCI moves; scores[i] != 0
// marks ply i's position as a record with that score.
func packGame(t testing.TB, fen string, result uint8, moves []string, scores map[int]int16) PackedGame {
	t.Helper()
	pos, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	g := board.NewGame(pos)
	pg := PackedGame{Start: fen, Result: result}
	for i, s := range moves {
		p := g.Position()
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatalf("ply %d %s: %v", i, s, err)
		}
		sc, ok := scores[i]
		pg.Plies = append(pg.Plies, PackedPly{Move: m, Record: ok, Score: sc})
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return pg
}

// Special moves: en passant, castling both ways (king takes own rook),
// promotion and its capture, a check evasion; negative and large scores.
func specialGame(t testing.TB) PackedGame {
	return packGame(t, "r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1", WhiteWin,
		[]string{"e5d6", "e8g8", "b7b8q", "a8b8", "e1c1", "b8b1", "c1b1", "g8g7", "d6d7", "g7g6"},
		map[int]int16{1: -310, 4: 9999, 7: -10000, 8: 1})
}

func writePack(t *testing.T, path string, games ...PackedGame) {
	t.Helper()
	w, _, err := OpenPackAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range games {
		if err := w.Write(&games[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func readPack(t *testing.T, path string) ([]PackedGame, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewPackReader(f)
	if err != nil {
		return nil, err
	}
	var out []PackedGame
	for {
		var g PackedGame
		if err := r.Read(&g); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, g)
	}
}

func sameGame(t *testing.T, got, want PackedGame) {
	t.Helper()
	if got.Start != want.Start || got.Result != want.Result || len(got.Plies) != len(want.Plies) {
		t.Fatalf("game %q result %d plies %d, want %q %d %d", got.Start, got.Result, len(got.Plies), want.Start, want.Result, len(want.Plies))
	}
	for i := range got.Plies {
		if got.Plies[i] != want.Plies[i] {
			t.Fatalf("ply %d: %+v, want %+v", i, got.Plies[i], want.Plies[i])
		}
	}
}

func TestPackRoundTripsSpecialMoves(t *testing.T) {
	g := specialGame(t)
	recs, err := g.Records()
	if err != nil || len(recs) != 4 {
		t.Fatalf("records %d, %v", len(recs), err)
	}
	if recs[0].STM != board.Black || recs[0].Score != -310 || recs[0].Result != WhiteWin || recs[3].Score != 1 {
		t.Fatalf("records %+v", recs)
	}
	path := filepath.Join(t.TempDir(), "s.pack.gz")
	start := packGame(t, board.StartFEN, DrawGame, []string{"e2e4", "e7e5"}, map[int]int16{0: 30, 1: -25})
	writePack(t, path, g, start)
	writePack(t, path, g) // a second writer adds a gzip member
	got, err := readPack(t, path)
	if err != nil || len(got) != 3 {
		t.Fatalf("read %d games, %v", len(got), err)
	}
	sameGame(t, got[0], g)
	sameGame(t, got[1], start)
	sameGame(t, got[2], g)
}

func TestPackRefusesRecordsThatAreNotQuiet(t *testing.T) {
	// Ply 0 captures en passant: its position cannot be a record.
	g := packGame(t, "r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1", DrawGame, []string{"e5d6"}, map[int]int16{0: 5})
	if _, err := appendPacked(nil, &g); !errors.Is(err, ErrBadPack) {
		t.Fatalf("packing a record before a capture: %v", err)
	}
	g = packGame(t, board.StartFEN, 3, nil, nil)
	if _, err := appendPacked(nil, &g); !errors.Is(err, ErrBadPack) {
		t.Fatalf("packing result 3: %v", err)
	}
}

// A run killed after some games leaves a gzip member with no end; the next
// writer keeps the complete games and appends after them.
func TestPackRecoversACutOffFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.pack.gz")
	g := specialGame(t)
	w, _, err := OpenPackAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := w.Write(&g); err != nil {
			t.Fatal(err)
		}
	}
	w.f.Close() // killed: no gzip trailer
	got, err := readPack(t, path)
	if len(got) != 3 || !errors.Is(err, ErrPackTruncated) {
		t.Fatalf("cut-off file: %d games, %v", len(got), err)
	}
	w, kept, err := OpenPackAppend(path)
	if err != nil || kept != 3 {
		t.Fatalf("reopen: kept %d, %v", kept, err)
	}
	// The repair put a new file at path; the writer holds its lock.
	if _, _, err := OpenPackAppend(path); !errors.Is(err, filelock.ErrLocked) {
		t.Fatalf("a second writer on the repaired file: %v, want ErrLocked", err)
	}
	if err := w.Write(&g); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err = readPack(t, path); err != nil || len(got) != 4 {
		t.Fatalf("after repair: %d games, %v", len(got), err)
	}
	// A file with invalid data is not "repaired": it stays as it is.
	bad := filepath.Join(t.TempDir(), "bad.pack.gz")
	if err := os.WriteFile(bad, []byte("not a pack"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenPackAppend(bad); !errors.Is(err, ErrBadPack) {
		t.Fatalf("opening a non-pack file: %v", err)
	}
	if b, _ := os.ReadFile(bad); string(b) != "not a pack" {
		t.Fatalf("bad file changed to %q", b)
	}
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestPackReaderRejectsBadData(t *testing.T) {
	good, err := appendPacked(nil, ptr(specialGame(t)))
	if err != nil {
		t.Fatal(err)
	}
	fenEnd := 2 + len("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")
	edit := func(i int, c byte) []byte {
		b := bytes.Clone(good)
		b[i] = c
		return b
	}
	cases := map[string]struct {
		data []byte
		want error
	}{
		"marker":       {edit(0, 'X'), ErrBadPack},
		"FEN":          {edit(2, '9'), ErrBadPack},
		"long FEN":     {append([]byte{'G', 200, 1}, bytes.Repeat([]byte{'8'}, 200)...), ErrBadPack},
		"result":       {edit(fenEnd, 3), ErrBadPack},
		"plies":        {append(append(bytes.Clone(good[:fenEnd+1]), 0xff, 0xff, 0x03), good[fenEnd+2:]...), ErrBadPack},
		"illegal move": {edit(fenEnd+2, 0xff), ErrBadPack},
		"cut in game":  {good[:len(good)-3], ErrPackTruncated},
		"cut in FEN":   {good[:5], ErrPackTruncated},
	}
	for name, c := range cases {
		r, err := NewPackReader(bytes.NewReader(gz(c.data)))
		if err != nil {
			t.Fatal(err)
		}
		var g PackedGame
		if err := r.Read(&g); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if _, err := NewPackReader(bytes.NewReader(nil)); !errors.Is(err, ErrBadPack) {
		t.Errorf("empty stream: %v", err)
	}
	r, err := NewPackReader(bytes.NewReader(append(gz(good), "junk, not a gzip member"...)))
	if err != nil {
		t.Fatal(err)
	}
	var g PackedGame
	if err := r.Read(&g); err != nil {
		t.Fatal(err)
	}
	if err := r.Read(&g); !errors.Is(err, ErrBadPack) {
		t.Errorf("junk after the stream: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// The generator's pack and its records agree: unpacking a run's games gives
// back its data file byte for byte, across two runs (two gzip members).
func TestGeneratePackGivesBackTheRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := GenConfig{Path: filepath.Join(dir, "g.bin"), PackPath: filepath.Join(dir, "g.pack.gz"),
		Workers: 2, Nodes: 64, RandomPlies: 6, Games: 3, Seed: 9, MaxPlies: 80, HashMB: 1}
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Games, cfg.Workers = 1, 1
	st, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(cfg.Path)
	if err != nil || int64(len(want)) != st.FileRecords*RecordSize {
		t.Fatalf("data file %d bytes, %v", len(want), err)
	}
	games, err := readPack(t, cfg.PackPath)
	if err != nil || len(games) != 4 {
		t.Fatalf("pack: %d games, %v", len(games), err)
	}
	var got []byte
	var buf [RecordSize]byte
	for _, g := range games {
		recs, err := g.Records()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			r.Encode(buf[:])
			got = append(got, buf[:]...)
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("unpacked %d bytes differ from the %d-byte data file", len(got), len(want))
	}
}

// FuzzPackReader: any bytes (gzipped, so the fuzzer works on the game
// layer) either fail with an error or give games that pack again to the
// same bytes.
func FuzzPackReader(f *testing.F) {
	good, err := appendPacked(nil, ptr(specialGame(f)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:20])
	start := packGame(f, board.StartFEN, DrawGame, []string{"e2e4", "e7e5", "g1f3"}, map[int]int16{0: 30, 2: -40})
	b, _ := appendPacked(nil, &start)
	f.Add(append(bytes.Clone(good), b...))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewPackReader(bytes.NewReader(gz(data)))
		if err != nil {
			t.Fatal(err) // gz always makes a header
		}
		var out []byte
		for range 64 {
			var g PackedGame
			if err := r.Read(&g); err != nil {
				if err != io.EOF && !errors.Is(err, ErrBadPack) && !errors.Is(err, ErrPackTruncated) {
					t.Fatalf("error of no known kind: %v", err)
				}
				break
			}
			if out, err = appendPacked(out, &g); err != nil {
				t.Fatalf("a game read does not pack again: %v", err)
			}
			if _, err := g.Records(); err != nil {
				t.Fatal(err)
			}
		}
		r2, _ := NewPackReader(bytes.NewReader(gz(out)))
		var g PackedGame
		for r2.Read(&g) == nil {
		}
		if r2.Games() != r.Games() {
			t.Fatalf("re-packed %d games read back as %d", r.Games(), r2.Games())
		}
	})
}
