package nnuedata

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/filelock"
	"github.com/ponderosa-chess/ponderosa/internal/testpos"
)

// randomPositions plays random games from the start and returns n of the
// positions met.
func randomPositions(t testing.TB, seed uint64, n int) []board.Position {
	var out []board.Position
	testpos.Walk(rand.New(rand.NewPCG(seed, 1)), 200, func(_ int, pos *board.Position) bool {
		out = append(out, *pos)
		return len(out) < n
	})
	return out
}

func TestRecordRoundTrip(t *testing.T) {
	for i, pos := range randomPositions(t, 7, 3000) {
		score := int16(i*37 - 20000)
		res := uint8(i % 3)
		r := FromPosition(&pos, score, res)
		var b [RecordSize]byte
		r.Encode(b[:])
		var got Record
		if err := got.Decode(b[:]); err != nil {
			t.Fatalf("%s: decode: %v", pos.FEN(), err)
		}
		if got != r {
			t.Fatalf("%s: round trip\n got %+v\nwant %+v", pos.FEN(), got, r)
		}
		// The record's FEN describes the same placement and side to move.
		back, err := board.ParseFEN(got.FEN())
		if err != nil {
			t.Fatalf("record FEN %q: %v", got.FEN(), err)
		}
		for sq := board.A1; sq <= board.H8; sq++ {
			if back.PieceAt(sq) != pos.PieceAt(sq) {
				t.Fatalf("%s: square %v: record has %v", pos.FEN(), sq, back.PieceAt(sq))
			}
		}
		if back.SideToMove() != pos.SideToMove() {
			t.Fatalf("%s: side to move lost", pos.FEN())
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	start := board.StartPosition()
	good := FromPosition(&start, 12, DrawGame)
	var b [RecordSize]byte
	good.Encode(b[:])
	cases := map[string]func(b []byte){
		"result":       func(b []byte) { b[26] = 3 },
		"side":         func(b []byte) { b[27] = 2 },
		"reserved":     func(b []byte) { b[31] = 1 },
		"piece code 0": func(b []byte) { b[8] &^= 0x0f },
		"piece code 7": func(b []byte) { b[8] = b[8]&0xf0 | 7 },
		"too many": func(b []byte) {
			b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
		},
		"trailing code": func(b []byte) { b[4], b[5], b[6], b[7] = 0, 0, 0, 0; b[8] = 0x66 },
	}
	for name, corrupt := range cases {
		c := b
		corrupt(c[:])
		var r Record
		if err := r.Decode(c[:]); !errors.Is(err, ErrBadRecord) {
			t.Errorf("%s: got %v, want ErrBadRecord", name, err)
		}
	}
	var r Record
	if err := r.Decode(b[:31]); !errors.Is(err, ErrShortRecord) {
		t.Errorf("short: got %v", err)
	}
}

func TestAppendResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.bin")
	positions := randomPositions(t, 3, 50)
	w, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		r := FromPosition(&positions[i], int16(i), WhiteWin)
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A run killed in the middle of a write leaves a partial record.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 13))
	f.Close()
	if _, err := ReadFile(path, 0); !errors.Is(err, ErrShortRecord) {
		t.Fatalf("reading a file with a partial record: got %v, want ErrShortRecord", err)
	}
	w, err = OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Records() != 30 {
		t.Fatalf("resumed writer counts %d records, want 30", w.Records())
	}
	for i := 30; i < 50; i++ {
		r := FromPosition(&positions[i], int16(i), BlackWin)
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 50 {
		t.Fatalf("read %d records, want 50", len(recs))
	}
	for i, r := range recs {
		want := FromPosition(&positions[i], int16(i), WhiteWin)
		if i >= 30 {
			want.Result = BlackWin
		}
		if r != want {
			t.Fatalf("record %d differs", i)
		}
	}
}

// Two runs on one data file would write over each other's records: the
// second is refused while the first writer is open, and let in after.
func TestAppendLocksTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "selfplay.bin")
	w, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	if w2, err := OpenAppend(path); !errors.Is(err, filelock.ErrLocked) {
		if w2 != nil {
			w2.Close()
		}
		t.Fatalf("second OpenAppend: %v, want ErrLocked", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w, err = OpenAppend(path)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	w.Close()
}

func TestReaderEOF(t *testing.T) {
	rd := NewReader(bytes.NewReader(nil))
	var r Record
	if err := rd.Read(&r); err != io.EOF {
		t.Fatalf("empty: got %v, want io.EOF", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, pos := range randomPositions(f, 11, 8) {
		r := FromPosition(&pos, 100, DrawGame)
		var b [RecordSize]byte
		r.Encode(b[:])
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Record
		if err := r.Decode(b); err != nil {
			return
		}
		// A record that decodes encodes to the same bytes.
		var out [RecordSize]byte
		r.Encode(out[:])
		if !bytes.Equal(out[:], b[:RecordSize]) {
			t.Fatalf("re-encoding differs:\n%x\n%x", out, b[:RecordSize])
		}
		_ = r.FEN()
	})
}
