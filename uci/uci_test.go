package uci_test

import (
	"strings"
	"testing"
	"time"
)

func isBestmove(l string) bool { return strings.HasPrefix(l, "bestmove ") }

func fieldAfter(line, key string) string {
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == key {
			return f[i+1]
		}
	}
	return ""
}

// TestSpecDialogue replays the example session of the UCI document.
func TestSpecDialogue(t *testing.T) {
	p := start(t) // no arguments: UCI is the default command
	p.send("uci")
	got := p.untilLine(5*time.Second, "uciok")
	joined := strings.Join(got, "\n")
	for _, want := range []string{
		"id name Ponderosa", "id author ",
		"option name Hash type spin default 16 min 1 max 65536",
		"option name Threads type spin default 1 min 1 max 256",
		"option name Ponder type check default false",
		"option name MultiPV type spin default 1 min 1 max 256",
		"option name Move Overhead type spin default 30 min 0 max 5000",
		"option name Clear Hash type button",
		"option name UCI_Chess960 type check default false",
		"option name UCI_LimitStrength type check default false",
		"option name UCI_Elo type spin default",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("uci answer lacks %q:\n%s", want, joined)
		}
	}
	p.send("setoption name Hash value 32", "setoption name NalimovCache value 1",
		`setoption name NalimovPath value d:\tb;c\tb`, "isready")
	got = p.untilLine(5*time.Second, "readyok")
	if n := strings.Count(strings.Join(got, "\n"), "no such option"); n != 2 {
		t.Errorf("want 2 'no such option' notes, got %q", got)
	}
	p.send("ucinewgame", "setoption name UCI_AnalyseMode value true", "position startpos moves e2e4 e7e5", "go infinite")
	got = p.untilLine(10*time.Second, "info depth 3")
	p.send("stop")
	got = append(got, p.until(5*time.Second, "bestmove", isBestmove)...)
	bm := got[len(got)-1]
	if f := strings.Fields(bm); len(f) != 4 || f[2] != "ponder" || len(f[1]) != 4 {
		t.Errorf("want 'bestmove X ponder Y', got %q", bm)
	}
	for _, l := range got {
		if strings.HasPrefix(l, "info depth") && strings.Contains(l, " pv ") {
			for _, k := range []string{"seldepth", "multipv", "score", "nodes", "nps", "hashfull", "time"} {
				if fieldAfter(l, k) == "" {
					t.Errorf("info line lacks %s: %q", k, l)
				}
			}
		}
	}
	p.send("quit")
	if err := p.waitExit(5 * time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
}

func TestIsReadyAndStopDuringSearch(t *testing.T) {
	p := start(t, "uci")
	p.send("position startpos", "go infinite")
	p.untilLine(10*time.Second, "info depth 2")
	p.send("isready")
	got := p.until(5*time.Second, "readyok", func(l string) bool { return l == "readyok" || isBestmove(l) })
	if got[len(got)-1] != "readyok" {
		t.Fatalf("isready during go infinite gave %q before readyok", got[len(got)-1])
	}
	p.send("stop")
	t0 := time.Now()
	p.until(5*time.Second, "bestmove", isBestmove)
	t.Logf("stop → bestmove in %v", time.Since(t0))
	// A stray stop is ignored.
	p.send("stop", "isready")
	got = p.untilLine(5*time.Second, "readyok")
	for _, l := range got {
		if isBestmove(l) {
			t.Errorf("stray stop produced %q", l)
		}
	}
}

const mateInOne = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1" // Ra8#

func TestInfiniteAndPonderHoldBestmoveEvenWhenMate(t *testing.T) {
	p := start(t, "uci")
	p.send("position fen "+mateInOne, "go infinite")
	p.untilLine(10*time.Second, "info depth 1")
	p.quiet(300*time.Millisecond, "bestmove")
	p.send("stop")
	got := p.until(5*time.Second, "bestmove", isBestmove)
	if bm := got[len(got)-1]; !strings.HasPrefix(bm, "bestmove a1a8") {
		t.Errorf("got %q, want a1a8", bm)
	}
	for _, l := range got {
		if strings.Contains(l, " pv ") && fieldAfter(l, "score") == "mate" && fieldAfter(l, "mate") != "1" {
			t.Errorf("mate score should be 'mate 1': %q", l)
		}
	}

	// A go with no limit at all is infinite too: it holds the bestmove
	// until stop even when the search has nothing left to find.
	p.send("position fen "+mateInOne, "go")
	p.untilLine(10*time.Second, "info depth 1")
	p.quiet(300*time.Millisecond, "bestmove")
	p.send("stop")
	if got := p.until(5*time.Second, "bestmove", isBestmove); !strings.HasPrefix(got[len(got)-1], "bestmove a1a8") {
		t.Errorf("plain go: got %q, want a1a8", got[len(got)-1])
	}

	// go ponder: no bestmove before ponderhit, then a normal timed search.
	p.send("position fen "+mateInOne, "go ponder wtime 1000 btime 1000")
	p.quiet(300*time.Millisecond, "bestmove")
	p.send("ponderhit")
	got = p.until(5*time.Second, "bestmove", isBestmove)
	if bm := got[len(got)-1]; !strings.HasPrefix(bm, "bestmove a1a8") {
		t.Errorf("after ponderhit got %q, want a1a8", bm)
	}

	// go ponder then stop (ponder miss): exactly one bestmove.
	p.send("position startpos moves e2e4", "go ponder wtime 10000 btime 10000")
	p.quiet(200*time.Millisecond, "bestmove")
	p.send("stop")
	p.until(5*time.Second, "bestmove", isBestmove)
	p.quiet(300*time.Millisecond, "bestmove")
}

// TestStopRace sends go then stop at once, a thousand times, in one burst:
// every go must get exactly one bestmove.
func TestStopRace(t *testing.T) {
	p := start(t, "uci")
	const n = 1000
	var b strings.Builder
	b.WriteString("position startpos\n")
	for i := range n {
		if i%2 == 0 {
			b.WriteString("go infinite\nstop\n")
		} else {
			b.WriteString("go depth 1\nstop\n")
		}
	}
	b.WriteString("isready\n")
	p.sendRaw(b.String())
	got := p.untilLine(60*time.Second, "readyok")
	count := 0
	for _, l := range got {
		if isBestmove(l) {
			count++
			if l == "bestmove 0000" {
				t.Errorf("null bestmove in the start position")
			}
		}
	}
	if count != n {
		t.Fatalf("%d go commands gave %d bestmoves", n, count)
	}
	p.quiet(200*time.Millisecond, "bestmove")
}

func TestQuitMidSearch(t *testing.T) {
	p := start(t)
	p.send("position startpos", "go infinite")
	p.untilLine(10*time.Second, "info depth 2")
	t0 := time.Now()
	p.send("quit")
	if err := p.waitExit(5 * time.Second); err != nil {
		t.Errorf("exit status: %v", err)
	}
	t.Logf("quit mid-search: exited in %v", time.Since(t0))
}

func TestEOFMidSearch(t *testing.T) {
	p := start(t)
	p.send("position startpos", "go infinite")
	p.untilLine(10*time.Second, "info depth 2")
	p.stdin.Close()
	if err := p.waitExit(5 * time.Second); err != nil {
		t.Errorf("exit status: %v", err)
	}
}

func TestTolerantInput(t *testing.T) {
	p := start(t)
	// CRLF, CR alone, tabs, unknown leading tokens, unknown commands.
	p.sendRaw("\t uci \t\r\n")
	p.untilLine(5*time.Second, "uciok")
	p.sendRaw("joho debug on\risready\r\n")
	got := p.untilLine(5*time.Second, "readyok")
	if !strings.Contains(strings.Join(got, "\n"), "info string received") {
		t.Errorf("debug on (after an unknown token) did not echo commands: %q", got)
	}
	p.send("debug off")
	malformed := []string{
		"", "   ", "xyzzy", "go depth", "stop", "go wtime -100 btime abc depth 1", "position", "position fen",
		"position fen not/a/fen w - - 0 1", "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
		"position startpos moves e2e4 e7e5 e1e8 g1f3", "position startpos moves e2e4 zz",
		"position startpos moves e7e5", "setoption", "setoption name", "setoption name Hash value lots",
		"setoption name Move Overhead value 99999", "setoption name hash value 0", "register later",
		"register name Stefan MK code 4359874324", "ponderhit", "stop", "\x00\x01\x02", "ü ö ä",
		strings.Repeat("a", 5000), "go searchmoves z9z9", "stop", "position startpos moves " + strings.Repeat("e2e4 ", 300),
	}
	for _, m := range malformed {
		p.send(m)
	}
	p.send("isready")
	got = p.untilLine(10*time.Second, "readyok")
	joined := strings.Join(got, "\n")
	for _, want := range []string{"e1e8", `"zz"`, "out of range", "registration ok", "position ignored"} {
		if !strings.Contains(joined, want) {
			t.Errorf("output lacks %q:\n%s", want, joined)
		}
	}
	// "go depth" with no number and "go wtime -100 btime abc depth 1" each
	// started a search; both must have ended with a bestmove.
	if n := strings.Count(joined, "bestmove"); n < 1 {
		t.Errorf("no bestmove for the malformed go commands:\n%s", joined)
	}
	// The engine still works after all that, from a position set with
	// odd spacing.
	p.send("setoption   name  MOVE overhead   value 10", "position   startpos   moves  e2e4\t e7e5 ", "go depth 3")
	got = p.until(10*time.Second, "bestmove", isBestmove)
	if strings.Contains(strings.Join(got, "\n"), "no such option") {
		t.Errorf("option names must be case-insensitive: %q", got)
	}
}

func TestGoPerftAndExtras(t *testing.T) {
	p := start(t)
	p.send("position startpos", "go perft 3")
	got := p.untilLine(30*time.Second, "Nodes searched:")
	if got[len(got)-1] != "Nodes searched: 8902" {
		t.Errorf("perft 3: %q", got[len(got)-1])
	}
	moves := 0
	for _, l := range got {
		if len(l) > 5 && l[4] == ':' {
			moves++
		}
	}
	if moves != 20 || got[len(got)-2] != "" {
		t.Errorf("perft output: %d move lines, want 20, and a blank line before the total: %q", moves, got)
	}
	p.send("d", "isready")
	got = p.untilLine(5*time.Second, "readyok")
	if !strings.Contains(strings.Join(got, "\n"), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") {
		t.Errorf("d: %q", got)
	}
	p.send("eval", "isready")
	got = p.untilLine(5*time.Second, "readyok")
	if len(got) < 3 {
		t.Errorf("eval: %q", got)
	}
	p.send("bench 2")
	got = p.untilLine(60*time.Second, "Nodes/second:")
	if !strings.HasPrefix(got[len(got)-2], "Nodes searched: ") {
		t.Errorf("bench: %q", got)
	}
}

func TestChess960Castling(t *testing.T) {
	p := start(t)
	fen := "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
	p.send("position fen "+fen, "go perft 1")
	got := strings.Join(p.untilLine(5*time.Second, "Nodes searched:"), "\n")
	if !strings.Contains(got, "e1g1: 1") || !strings.Contains(got, "e1c1: 1") {
		t.Errorf("standard castling notation:\n%s", got)
	}
	p.send("setoption name UCI_Chess960 value true", "position fen "+fen, "go perft 1")
	got = strings.Join(p.untilLine(5*time.Second, "Nodes searched:"), "\n")
	if !strings.Contains(got, "e1h1: 1") || !strings.Contains(got, "e1a1: 1") {
		t.Errorf("Chess960 castling notation:\n%s", got)
	}
	// Shredder-FEN with a castling move in king-takes-rook form.
	p.send("position fen bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1 moves h1g3 h8g6 f1g1", "d", "isready")
	got = strings.Join(p.untilLine(5*time.Second, "readyok"), "\n")
	if strings.Contains(got, "info string") || !strings.Contains(got, "Fen: bqnbrkr1/pppppppp/6n1/8/8/6N1/PPPPPPPP/BQNBRRK1 b") {
		t.Errorf("Chess960 castling f1g1 was not applied:\n%s", got)
	}
}

func TestSearchMovesAndMultiPV(t *testing.T) {
	p := start(t)
	p.send("position startpos", "go depth 4 searchmoves a2a3 h2h3")
	got := p.until(10*time.Second, "bestmove", isBestmove)
	if bm := strings.Fields(got[len(got)-1])[1]; bm != "a2a3" && bm != "h2h3" {
		t.Errorf("searchmoves a2a3 h2h3 gave %s", bm)
	}
	p.send("setoption name MultiPV value 3", "position startpos", "go depth 5")
	got = p.until(10*time.Second, "bestmove", isBestmove)
	var last []string
	for _, l := range got {
		if fieldAfter(l, "depth") == "5" && strings.Contains(l, " pv ") {
			last = append(last, fieldAfter(l, "multipv"))
		}
	}
	if strings.Join(last, ",") != "1,2,3" {
		t.Errorf("depth 5 multipv lines: %v\n%s", last, strings.Join(got, "\n"))
	}
}

func TestLimitStrength(t *testing.T) {
	p := start(t)
	p.send("setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1400",
		"position startpos", "go movetime 200")
	got := p.until(10*time.Second, "bestmove", isBestmove)
	if strings.Contains(strings.Join(got, "\n"), "info string") {
		t.Errorf("strength options rejected: %q", got)
	}
}
