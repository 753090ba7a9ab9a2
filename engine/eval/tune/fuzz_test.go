package tune

import (
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
)

func FuzzParseLine(f *testing.F) {
	f.Add("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 [0.5]")
	f.Add(`8/8/8/8/8/8/8/K6k b - - c9 "1-0";`)
	f.Fuzz(func(t *testing.T, line string) {
		fen, res, err := ParseLine(line)
		if err != nil {
			return
		}
		if res != 0 && res != 0.5 && res != 1 {
			t.Fatalf("result %v", res)
		}
		if pos, err := board.ParseFEN(fen); err == nil {
			NewSample(&pos, eval.Default, res)
		}
	})
}

func FuzzLoadOpenings(f *testing.F) {
	f.Add("1. e4 e5 2. Nf3 Nc6 *\n")
	f.Add("[Result \"*\"]\n\n1. d4 d5 *\nr1bq1rk1/pp1nppbp/3p1np1/8/2PNP3/2N5/PP2BPPP/R1BQ1RK1 w - - 4 9\n")
	f.Fuzz(func(t *testing.T, src string) {
		ops, err := LoadOpenings(strings.NewReader(src))
		if err != nil {
			return
		}
		for _, g := range ops {
			pos := g.Position()
			var ml board.MoveList
			pos.GenerateLegal(&ml)
		}
	})
}
