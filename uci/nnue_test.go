package uci_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

func TestEvalFileAndUseNNUE(t *testing.T) {
	dir := t.TempDir()
	net, err := nnue.NewRandomFloatNet(32, 1).Quantize()
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

	p := start(t, "uci")
	p.send("uci")
	joined := strings.Join(p.untilLine(5*time.Second, "uciok"), "\n")
	for _, want := range []string{"option name Use NNUE type check default false", "option name EvalFile type string default <empty>"} {
		if !strings.Contains(joined, want) {
			t.Errorf("uci answer lacks %q", want)
		}
	}
	// Use NNUE with no network: the hand-crafted evaluation plays, and
	// the GUI is told.
	p.send("setoption name Use NNUE value true", "isready")
	got := strings.Join(p.untilLine(5*time.Second, "readyok"), "\n")
	if !strings.Contains(got, "no network loaded") {
		t.Errorf("Use NNUE without a network: no note in %q", got)
	}
	// A truncated file is refused with a clear error.
	p.send("setoption name EvalFile value "+bad, "isready")
	got = strings.Join(p.untilLine(5*time.Second, "readyok"), "\n")
	if !strings.Contains(got, "info string option EvalFile:") || !strings.Contains(got, "truncated") {
		t.Errorf("truncated EvalFile: got %q", got)
	}
	p.send("setoption name EvalFile value "+good, "isready")
	got = strings.Join(p.untilLine(5*time.Second, "readyok"), "\n")
	if !strings.Contains(got, net.ID()) {
		t.Errorf("EvalFile: no note naming %s in %q", net.ID(), got)
	}
	// The network evaluates: with NNUE on and off the depth-1 scores of
	// the same position differ (a random network knows no chess).
	score := func() string {
		p.send("position startpos moves e2e4", "go depth 1")
		lines := p.until(10*time.Second, "bestmove", isBestmove)
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.HasPrefix(lines[i], "info depth 1 ") {
				return fieldAfter(lines[i], "cp")
			}
		}
		t.Fatalf("no depth 1 info in %q", lines)
		return ""
	}
	withNet := score()
	p.send("setoption name Use NNUE value false")
	hce := score()
	if withNet == hce {
		t.Errorf("depth 1 score %s with and without the network", hce)
	}
	p.send("quit")
	if err := p.waitExit(5 * time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
}
