package uci_test

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// TestGoPerftIsCancellable: "go perft 20" (years of work) ends on stop,
// quit, the end of input and SIGTERM.
func TestGoPerftIsCancellable(t *testing.T) {
	for _, how := range []string{"stop", "quit", "eof", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			p := start(t, "uci")
			// isready is answered once the perft job runs (nothing is queued).
			p.send("position startpos", "go perft 20", "isready")
			p.untilLine(5*time.Second, "readyok")
			t0 := time.Now()
			switch how {
			case "stop":
				p.send("stop")
				p.untilLine(5*time.Second, "info string perft stopped")
				p.send("position startpos", "go perft 2")
				p.untilLine(5*time.Second, "Nodes searched: 400")
				p.send("quit")
			case "quit":
				p.send("quit")
			case "eof":
				p.stdin.Close()
			case "sigterm":
				if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.waitExit(5 * time.Second); err != nil {
				t.Errorf("exit status: %v", err)
			}
			t.Logf("%s ended go perft 20 in %v", how, time.Since(t0))
		})
	}
}

// TestNegativeClockMovesNow: "go wtime -1000 btime -1000" (a GUI after an
// overstep) moves at once instead of searching forever, as do zero clocks.
func TestNegativeClockMovesNow(t *testing.T) {
	p := start(t, "uci")
	for _, g := range []string{"go wtime -1000 btime -1000", "go wtime 0 btime 0", "go btime -5 wtime 0 winc 0 binc 0"} {
		p.send("position startpos moves e2e4", g)
		p.until(5*time.Second, "bestmove after "+g, isBestmove)
	}
	p.send("quit")
	p.waitExit(5 * time.Second)
}

// TestHashThatDoesNotFitIsRefused: "setoption name Hash value 99999999"
// (clamped to the maximum, more than the machine has) used to end the
// process with a fatal out-of-memory error. It is refused with an info
// string and the old table stays.
func TestHashThatDoesNotFitIsRefused(t *testing.T) {
	avail, ok := engine.AvailableMemory()
	if !ok {
		t.Skip("available memory cannot be measured here")
	}
	if avail > engine.HashBytes(engine.MaxHashMB) {
		t.Skipf("%d MiB available: the largest hash fits on this machine", avail>>20)
	}
	p := start(t, "uci")
	p.send("setoption name Hash value 32", "setoption name Hash value 99999999", "isready")
	got := strings.Join(p.untilLine(10*time.Second, "readyok"), "\n")
	if !strings.Contains(got, "info string option Hash:") || !strings.Contains(got, "keeping 32 MB") {
		t.Errorf("no info string refusing the hash (keeping 32 MB): %q", got)
	}
	p.send("position startpos", "go depth 3")
	p.until(10*time.Second, "bestmove", isBestmove)
	p.send("quit")
	if err := p.waitExit(5 * time.Second); err != nil {
		t.Errorf("exit status: %v", err)
	}
}

// TestCEGOLongLineIsRefused: a message without an end (here 1 MiB and the
// input left open) ends the engine at once with a short error, instead of
// buffering the line (a 200 MB line took 1.2 GB) and quoting it whole.
func TestCEGOLongLineIsRefused(t *testing.T) {
	cmd := exec.Command(binary, "cego")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	go func() {
		// The engine may stop reading (and exit) before all of it is written.
		io.WriteString(stdin, "1000000000 0 1000000000 0 "+strings.Repeat("x", 1<<20))
	}()
	select {
	case err := <-exited:
		if err == nil {
			t.Fatal("exit status 0 after an endless message")
		}
	case <-time.After(timeout(10 * time.Second)):
		cmd.Process.Kill()
		t.Fatal("the engine still waits for the end of a 1 MiB message")
	}
	msg := stderr.String()
	if !strings.Contains(msg, "longer than") || len(msg) > 400 {
		t.Errorf("stderr (%d bytes) should say the message is too long, briefly: %.500q", len(msg), msg)
	}
}

// TestCEGOZeroClockMovesNow: a mediator's clock at zero means "move now";
// with zero increments too it used to read as "no clock" (search forever).
func TestCEGOZeroClockMovesNow(t *testing.T) {
	p := start(t, "cego")
	p.until(5*time.Second, "ready", func(string) bool { return true })
	p.send("0 0 0 0 " + board.StartFEN)
	line := p.until(10*time.Second, "a move", func(string) bool { return true })[0]
	if len(line) != 4 {
		t.Errorf("reply %q is not a move", line)
	}
	p.stdin.Close()
	p.waitExit(5 * time.Second)
}
