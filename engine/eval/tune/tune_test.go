package tune

import (
	"bytes"
	"go/format"
	"math"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

const tinyData = `# tiny labelled set
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 [0.5]
rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 [1.0]
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1 [0.0]
4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 "1-0";
4k3/4p3/8/8/8/8/8/4K3 b - - c9 "0-1";
4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1-0
r3k3/8/8/8/8/8/8/4K3 w - - 0 1 0-1
4k3/8/8/8/8/8/8/4K3 w - - 0 1 1/2-1/2
`

func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		fen  string
		res  float64
		ok   bool
	}{
		{"8/8/8/8/8/8/8/K6k w - - 0 1 [0.5]", "8/8/8/8/8/8/8/K6k w - - 0 1", 0.5, true},
		{`8/8/8/8/8/8/8/K6k b - - c9 "1-0";`, "8/8/8/8/8/8/8/K6k b - -", 1, true},
		{"8/8/8/8/8/8/8/K6k w - - 3 40 0-1", "8/8/8/8/8/8/8/K6k w - - 3 40", 0, true},
		{"8/8/8/8/8/8/8/K6k w - - 0 1", "", 0, false},
		{"garbage", "", 0, false},
	} {
		fen, res, err := ParseLine(tc.line)
		if (err == nil) != tc.ok || (tc.ok && (fen != tc.fen || res != tc.res)) {
			t.Errorf("ParseLine(%q) = %q, %v, %v", tc.line, fen, res, err)
		}
	}
}

func TestTunerReducesErrorAndMatchesEval(t *testing.T) {
	samples, err := Load(strings.NewReader(tinyData), eval.HandSet())
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 8 {
		t.Fatalf("loaded %d samples, want 8", len(samples))
	}
	tu := New(samples, eval.HandSet())
	// The tuner's linear model reproduces the engine's evaluation.
	pos, _ := board.ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	s := NewSample(&pos, eval.HandSet(), 0.5)
	var tr eval.Trace
	want := float64(eval.Features(&pos, eval.HandSet(), &tr))
	if got := tu.Eval(&s); math.Abs(got-want) > 1 {
		t.Errorf("tuner eval %.1f, engine eval %.0f", got, want)
	}
	k := tu.FitK()
	if k <= 0.1 || k >= 5 {
		t.Errorf("K = %v at the edge of the search range", k)
	}
	before := tu.Error(k)
	for i := 0; i < 200; i++ {
		tu.Step(2, nil)
	}
	after := tu.Error(k)
	if !(after < before) {
		t.Errorf("error did not decrease: before %v after %v", before, after)
	}
	var buf bytes.Buffer
	if err := WriteGo(&buf, tu.Params(), "tuned on tiny test data"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "var tunedTable = &[NumParams][2]int16{") {
		t.Errorf("generated source lacks the table:\n%.300s", buf.String())
	}
	if _, err := format.Source(buf.Bytes()); err != nil {
		t.Errorf("generated source does not parse: %v", err)
	}
}
