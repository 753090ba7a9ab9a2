package uci_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

func TestEvalFileAndUseNNUE(t *testing.T) {
	dir := t.TempDir()
	net, err := nnue.NewRandomFloatNet(32, 1, 1).Quantize()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := net.MarshalBinary()
	good := filepath.Join(dir, "net.nnue")
	if err := os.WriteFile(good, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.nnue")
	if err := os.WriteFile(bad, b[:len(b)-10], 0o644); err != nil {
		t.Fatal(err)
	}

	builtIn, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, "uci")
	p.send("uci")
	joined := strings.Join(p.untilLine(5*time.Second, "uciok"), "\n")
	// `ponderosa uci` starts with the built-in network: Use NNUE is on,
	// and an empty EvalFile means that network.
	for _, want := range []string{"option name Use NNUE type check default true", "option name EvalFile type string default <empty>"} {
		if !strings.Contains(joined, want) {
			t.Errorf("uci answer lacks %q", want)
		}
	}
	// The eval command names the network that plays and its evaluation.
	pos := board.StartPosition()
	evalLine := func() string {
		p.send("position startpos", "eval")
		for _, l := range p.untilLine(5*time.Second, "Final evaluation") {
			if strings.HasPrefix(l, "NNUE evaluation") {
				t.Errorf("NNUE line before the hand-crafted total: %q", l)
			}
		}
		p.send("isready")
		for _, l := range p.untilLine(5*time.Second, "readyok") {
			if strings.HasPrefix(l, "NNUE evaluation") {
				return l
			}
		}
		return ""
	}
	wantLine := func(n *nnue.Network) string {
		return fmt.Sprintf("NNUE evaluation (%s, %d hidden units), the one the search uses: %+.2f (White), %+.2f (side to move)",
			n.ID(), n.Hidden(), float64(n.EvaluatePosition(&pos))/100, float64(n.EvaluatePosition(&pos))/100)
	}
	if got, want := evalLine(), wantLine(builtIn); got != want {
		t.Errorf("eval with the defaults: %q, want %q", got, want)
	}
	p.send("setoption name Use NNUE value false")
	if got := evalLine(); got != "" {
		t.Errorf("Use NNUE false: eval still shows %q", got)
	}
	// A truncated file is refused with a clear error.
	p.send("setoption name EvalFile value "+bad, "isready")
	got := strings.Join(p.untilLine(5*time.Second, "readyok"), "\n")
	if !strings.Contains(got, "info string option EvalFile:") || !strings.Contains(got, "truncated") {
		t.Errorf("truncated EvalFile: got %q", got)
	}
	p.send("setoption name EvalFile value "+good, "isready")
	got = strings.Join(p.untilLine(5*time.Second, "readyok"), "\n")
	if !strings.Contains(got, net.ID()) {
		t.Errorf("EvalFile: no note naming %s in %q", net.ID(), got)
	}
	p.send("setoption name Use NNUE value true")
	if got, want := evalLine(), wantLine(net); got != want {
		t.Errorf("eval with EvalFile %s: %q, want %q", good, got, want)
	}
	// An empty EvalFile goes back to the built-in network.
	p.send("setoption name EvalFile value")
	if got, want := evalLine(), wantLine(builtIn); got != want {
		t.Errorf("EvalFile emptied: %q, want %q", got, want)
	}
	p.send("quit")
	if err := p.waitExit(5 * time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// TestExperimentOptions: the experimental search options are announced
// off and reach the search (a fixed-depth search of one thread visits
// another number of nodes with one on; every run starts from a new game).
func TestExperimentOptions(t *testing.T) {
	for _, name := range []string{"Correction History", "TT PV"} {
		t.Run(name, func(t *testing.T) {
			p := start(t, "uci")
			p.send("uci")
			joined := strings.Join(p.untilLine(5*time.Second, "uciok"), "\n")
			if !strings.Contains(joined, "option name "+name+" type check default false") {
				t.Fatalf("uci answer lacks %s default false:\n%s", name, joined)
			}
			nodes := func() string {
				p.send("ucinewgame", "position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "go depth 9")
				last := ""
				for _, l := range p.until(30*time.Second, "bestmove", isBestmove) {
					if n := fieldAfter(l, "nodes"); n != "" {
						last = n
					}
				}
				if last == "" {
					t.Fatal("no nodes count in the search's info lines")
				}
				return last
			}
			off := nodes()
			if again := nodes(); again != off {
				t.Fatalf("the same search twice: %s then %s nodes (not deterministic, nothing to compare)", off, again)
			}
			p.send("setoption name " + name + " value true")
			if on := nodes(); on == off {
				t.Errorf("with %s on the search visits %s nodes, the same as off", name, on)
			}
		})
	}
}
