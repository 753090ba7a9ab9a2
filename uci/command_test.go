package uci

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		line string
		want Command
	}{
		{"uci", UCICmd{}},
		{"uci\r\n", UCICmd{}},
		{"debug on\n", Debug{On: true}},
		{" debug on \n", Debug{On: true}},
		{"\t debug \t \t\ton\t \n", Debug{On: true}},
		{"joho debug on", Debug{On: true}},
		{"debug off", Debug{On: false}},
		{"isready", IsReady{}},
		{"setoption name Nullmove value true", SetOption{Name: "Nullmove", Value: "true", HasValue: true}},
		{"setoption name Clear Hash", SetOption{Name: "Clear Hash"}},
		{"setoption   name  Move   Overhead VALUE 100 ", SetOption{Name: "Move Overhead", Value: "100", HasValue: true}},
		{`setoption name NalimovPath value c:\chess\tb\4;c:\chess\tb\5`, SetOption{Name: "NalimovPath", Value: `c:\chess\tb\4;c:\chess\tb\5`, HasValue: true}},
		{"setoption name UCI_Opponent value GM  2800 human Gary Kasparov\r", SetOption{Name: "UCI_Opponent", Value: "GM  2800 human Gary Kasparov", HasValue: true}},
		{"setoption name Hash value", SetOption{Name: "Hash", HasValue: true}},
		{"register later", Register{Later: true}},
		{"register name Stefan MK code 4359874324", Register{Name: "Stefan MK", Code: "4359874324"}},
		{"register name a b code 1 name c code 2", Register{Name: "a b", Code: "1"}},
		{"ucinewgame", NewGame{}},
		{"position startpos", Position{}},
		{"position startpos moves e2e4 e7e5", Position{Moves: []string{"e2e4", "e7e5"}}},
		{"position fen 8/8/8/8/8/8/8/K6k w - - 0 1", Position{FEN: "8/8/8/8/8/8/8/K6k w - - 0 1"}},
		{"position   fen\t8/8/8/8/8/8/8/K6k  w - -   moves a1b1\r\n", Position{FEN: "8/8/8/8/8/8/8/K6k w - -", Moves: []string{"a1b1"}}},
		{"position startpos moves", Position{}},
		{"go", Go{}},
		{"go infinite", Go{Infinite: true}},
		{"go ponder wtime 1000 btime -50 winc 10 binc 20 movestogo 5", Go{Ponder: true, WTime: time.Second, BTime: -50 * time.Millisecond, WInc: 10 * time.Millisecond, BInc: 20 * time.Millisecond, MovesToGo: 5}},
		{"go depth 7 nodes 100000 mate 3 movetime 250", Go{Depth: 7, Nodes: 100000, Mate: 3, MoveTime: 250 * time.Millisecond}},
		{"go infinite searchmoves e2e4 d2d4", Go{Infinite: true, SearchMoves: []string{"e2e4", "d2d4"}}},
		{"go searchmoves e2e4 d2d4 depth 3", Go{Depth: 3, SearchMoves: []string{"e2e4", "d2d4"}}},
		{"go wtime 1000.7 depth x btime", Go{WTime: time.Second}},
		{"go frobnicate 3 depth 2", Go{Depth: 2}},
		{"go perft 4", Go{Perft: 4}},
		{"stop", Stop{}},
		{"ponderhit", PonderHit{}},
		{"quit", Quit{}},
		{"bench", Bench{}},
		{"bench 9", Bench{Depth: 9}},
		{"d", Display{}},
		{"eval", Eval{}},
	}
	for _, tc := range tests {
		got, err := Parse(tc.line)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.line, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, line := range []string{"", "   \r\n", "joho", "xyzzy 1 2 3"} {
		if _, err := Parse(line); !errors.Is(err, ErrEmpty) {
			t.Errorf("Parse(%q) error = %v, want ErrEmpty", line, err)
		}
	}
	for _, line := range []string{"position", "position moves e2e4", "position fen", "position fen moves e2e4", "setoption", "setoption name", "setoption value 3"} {
		c, err := Parse(line)
		if err == nil || errors.Is(err, ErrEmpty) {
			t.Errorf("Parse(%q) = %#v, %v; want a descriptive error", line, c, err)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	cmds := []Command{
		UCICmd{}, Debug{On: true}, Debug{}, IsReady{}, SetOption{Name: "Clear Hash"},
		SetOption{Name: "Move Overhead", Value: "100", HasValue: true}, Register{Later: true},
		Register{Name: "Stefan MK", Code: "43"}, NewGame{}, Position{Moves: []string{"e2e4"}},
		Position{FEN: "8/8/8/8/8/8/8/K6k w - - 0 1"},
		Go{Ponder: true, WTime: time.Second, BTime: 2 * time.Second, WInc: 1, MovesToGo: 3, Depth: 4, Nodes: 5, Mate: 6, MoveTime: 7 * time.Millisecond, Infinite: true, SearchMoves: []string{"a2a3"}},
		Go{Perft: 3}, Stop{}, PonderHit{}, Quit{}, Bench{}, Bench{Depth: 3}, Display{}, Eval{},
	}
	for _, c := range cmds {
		s := String(c)
		got, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(String(%#v)) = %q: %v", c, s, err)
			continue
		}
		if String(got) != s {
			t.Errorf("round trip of %q gave %q", s, String(got))
		}
	}
}

// FuzzParse checks that Parse never panics and that the canonical form of
// whatever it parses is stable: Parse(String(c)) renders as String(c).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"uci", "debug on", "isready", "setoption name Hash value 32", "setoption name Clear Hash",
		"register name a code b", "ucinewgame", "position startpos moves e2e4 e7e5",
		"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4",
		"go wtime 300000 btime 300000 winc 0 binc 0", "go infinite searchmoves e2e4 d2d4",
		"go ponder movestogo 40 depth 3 nodes 10 mate 2 movetime 9", "stop", "ponderhit", "quit",
		"joho debug on", "go perft 3", "bench 5", "d", "eval", "go wtime 1e30 btime -1e30",
		// Reproductions of issue 13: a clock that ran out, a hash that cannot
		// be allocated, a perft that must be stoppable.
		"go wtime -1000 btime -1000", "go wtime 0 btime 0", "setoption name Hash value 99999999", "go perft 20",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := Parse(line)
		if err != nil {
			if c != nil {
				t.Fatalf("Parse(%q) returned both %#v and %v", line, c, err)
			}
			return
		}
		s := String(c)
		c2, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its canonical form %q fails: %v", line, s, err)
		}
		if s2 := String(c2); s2 != s {
			t.Fatalf("canonical form of %q unstable: %q then %q", line, s, s2)
		}
	})
}

func BenchmarkParseGo(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("go wtime 300000 btime 298000 winc 2000 binc 2000 movestogo 20\r\n"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePosition(b *testing.B) {
	line := "position startpos moves" + strings.Repeat(" e2e4 e7e5 g1f3 b8c6", 20)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(line); err != nil {
			b.Fatal(err)
		}
	}
}
