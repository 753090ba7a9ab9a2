package tune

import (
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
			NewSample(&pos, eval.Default(), res)
		}
	})
}
