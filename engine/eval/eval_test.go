package eval

import (
	"strings"
	"testing"
	"unicode"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

var testFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
	"8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54",
	"5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
	"6k1/6p1/p7/3Pn3/5p2/4rBqP/P4RP1/5QK1 b - - 1 32",
	"8/8/8/4k3/8/8/3KB3/5N2 w - - 0 1",
	"4k3/8/8/2b5/8/8/3B4/4K3 w - - 0 1",
	"4k3/1p6/8/2b5/8/4P3/3B4/4K3 w - - 0 1",
}

// mirror flips the board vertically and swaps the colours.
func mirror(fen string) string {
	f := strings.Fields(fen)
	ranks := strings.Split(f[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	swap := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return unicode.ToLower(r)
			}
			return unicode.ToUpper(r)
		}, s)
	}
	f[0] = swap(strings.Join(ranks, "/"))
	if f[1] == "w" {
		f[1] = "b"
	} else {
		f[1] = "w"
	}
	if f[2] != "-" {
		f[2] = swap(f[2])
	}
	if f[3] != "-" {
		r := f[3][1]
		f[3] = string(f[3][0]) + string('1'+'8'-r)
	}
	return strings.Join(f, " ")
}

func mustPos(t testing.TB, fen string) board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("ParseFEN(%q): %v", fen, err)
	}
	return p
}

func TestEvalSymmetry(t *testing.T) {
	ev := NewEvaluator()
	for _, fen := range testFENs {
		p := mustPos(t, fen)
		m := mustPos(t, mirror(fen))
		a, b := ev.Evaluate(&p), ev.Evaluate(&m)
		if a != b {
			t.Errorf("eval(%s) = %d but mirrored %d", fen, a, b)
		}
		if c := Evaluate(&p); c != a {
			t.Errorf("cached eval %d != uncached %d for %s", a, c, fen)
		}
	}
}

func TestFeaturesReproduceEval(t *testing.T) {
	var tr Trace
	for _, fen := range testFENs {
		p := mustPos(t, fen)
		w := Default()
		white := Features(&p, w, &tr)
		mg, eg := 0, 0
		for i, c := range tr.Coef {
			mg += int(c) * w[i].MG()
			eg += int(c) * w[i].EG()
		}
		got := (mg*tr.Phase + eg*(24-tr.Phase)*tr.Scale/64) / 24
		if got != white {
			t.Errorf("%s: features give %d, eval %d", fen, got, white)
		}
	}
}

func TestEvalSanity(t *testing.T) {
	start := mustPos(t, board.StartFEN)
	if v := Evaluate(&start); v < 0 || v > 60 {
		t.Errorf("start position eval %d, want a small positive tempo bonus", v)
	}
	up := mustPos(t, "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
	if v := Evaluate(&up); v < 700 {
		t.Errorf("queen up eval %d, want > 700", v)
	}
	draw := mustPos(t, "8/8/8/4k3/8/8/3KB3/8 w - - 0 1")
	if v := Evaluate(&draw); v > 30 {
		t.Errorf("KB vs K eval %d, want about 0", v)
	}
	if s := Explain(&start); !strings.Contains(s, "Final evaluation") {
		t.Errorf("Explain output lacks the final line:\n%s", s)
	}
}

func TestPack(t *testing.T) {
	for _, v := range [][2]int{{0, 0}, {1, -1}, {-300, 250}, {32000, -32000}, {-1, -1}} {
		s := Pack(v[0], v[1])
		if s.MG() != v[0] || s.EG() != v[1] {
			t.Errorf("Pack(%d,%d) -> %d,%d", v[0], v[1], s.MG(), s.EG())
		}
	}
}

func TestEvaluateAllocs(t *testing.T) {
	ev := NewEvaluator()
	p := mustPos(t, testFENs[1])
	if n := testing.AllocsPerRun(100, func() { ev.Evaluate(&p) }); n != 0 {
		t.Errorf("Evaluate allocates %.0f times", n)
	}
}

func BenchmarkEvaluate(b *testing.B) {
	ev := NewEvaluator()
	ps := make([]board.Position, len(testFENs))
	for i, f := range testFENs {
		ps[i] = mustPos(b, f)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ev.Evaluate(&ps[i%len(ps)])
	}
}

func BenchmarkEvaluateNoPawnCache(b *testing.B) {
	ps := make([]board.Position, len(testFENs))
	for i, f := range testFENs {
		ps[i] = mustPos(b, f)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Evaluate(&ps[i%len(ps)])
	}
}
