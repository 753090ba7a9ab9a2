package uci

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ponderosa-chess/ponderosa/engine"
)

// session drives Run in-process over pipes (under -race this checks the
// front-end's own goroutines, and goleak checks that they all end).
type pipeSession struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startRun(t *testing.T, run func(ctx context.Context, in io.Reader, out io.Writer, eng *engine.Engine) error) *pipeSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &pipeSession{in: inW, lines: make(chan string, 10000), done: make(chan error, 1)}
	eng := engine.New(engine.Options{HashMB: 4})
	go func() {
		err := run(context.Background(), inR, outW, eng)
		outW.Close()
		s.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s
}

func (s *pipeSession) expect(t *testing.T, prefix string) []string {
	t.Helper()
	var got []string
	timer := time.NewTimer(20 * time.Second)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("output ended waiting for %q: %q", prefix, got)
			}
			got = append(got, l)
			if strings.HasPrefix(l, prefix) {
				return got
			}
		case <-timer.C:
			t.Fatalf("no %q: %q", prefix, got)
		}
	}
}

func (s *pipeSession) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunInProcess(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := startRun(t, Run)
	s.send(t, "uci")
	s.expect(t, "uciok")
	s.send(t, "isready")
	s.expect(t, "readyok")
	s.send(t, "position startpos moves e2e4", "go infinite")
	s.expect(t, "info depth 2")
	s.send(t, "isready")
	s.expect(t, "readyok")
	s.send(t, "go ponder wtime 1000 btime 1000") // queued behind the infinite search
	s.send(t, "stop")                            // stops both the running and the queued search
	s.expect(t, "bestmove")
	s.expect(t, "bestmove")
	s.send(t, "position startpos", "go depth 3", "quit")
	s.expect(t, "bestmove")
	if err := <-s.done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	s.in.Close() // ends the reader goroutine, blocked on the pipe
	for range s.lines {
	}
}

func TestRunEOFAndWriteError(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := startRun(t, Run)
	s.send(t, "go infinite")
	s.expect(t, "info depth 1")
	s.in.Close() // EOF mid-search: stop, print the bestmove, return
	got := s.expect(t, "bestmove")
	if err := <-s.done; err != nil {
		t.Fatalf("Run: %v (%q)", err, got)
	}
	for range s.lines {
	}

	// A closed output ends Run with the write error, search stopped.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	outR.Close()
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), inR, outW, engine.New(engine.Options{HashMB: 4})) }()
	io.WriteString(inW, "go infinite\n")
	select {
	case err := <-done:
		if err == nil {
			t.Error("Run returned nil after its output was closed")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after a write error")
	}
	inW.Close()
}

func TestRunCEGOInProcess(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := startRun(t, RunCEGO)
	s.expect(t, "ready")
	s.send(t, "1000000000 10000000 1000000000 10000000 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
	s.expect(t, "")
	s.in.Close() // the mediator ends the game: RunCEGO returns nil, ponder stopped
	if err := <-s.done; err != nil {
		t.Fatalf("RunCEGO: %v", err)
	}
	for range s.lines {
	}
}

// FuzzRun feeds arbitrary input to a whole UCI session: it must never
// panic, and must end promptly at the end of input (which stops any
// search). Perft and bench are left out (they stop only between root
// moves or positions), and so are Hash and Threads (allocations).
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"uci\nisready\nposition startpos moves e2e4\ngo depth 2\n",
		"go infinite\nisready\nstop\nponderhit\n",
		"position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo ponder\nponderhit\ngo infinite\n",
		"setoption name MultiPV value 3\ngo depth 3 searchmoves e2e4 d2d4\nd\neval\n",
		"setoption name UCI_Chess960 value true\nposition fen bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1 moves h1g3\ngo nodes 100\n",
		"\r\r\n\x00 go wtime -5 btime 9e99\rstop\rquit\rgo\n",
		// Issue 13: a clock that ran out moves now; perft ends with the input.
		"position startpos\ngo wtime -1000 btime -1000\n", "go perft 20\nisready\nstop\ngo perft 2\n",
	} {
		f.Add(s)
	}
	eng := engine.New(engine.Options{HashMB: 1})
	f.Fuzz(func(t *testing.T, input string) {
		lower := strings.ToLower(input)
		for _, skip := range []string{"bench", "threads", "hash"} { // slow, or huge allocations
			if strings.Contains(lower, skip) {
				return
			}
		}
		done := make(chan error, 1)
		go func() { done <- Run(context.Background(), strings.NewReader(input), io.Discard, eng) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("Run did not end after the input ended: %q", input)
		}
	})
}

// TestUseNNUEWithoutNetwork: an engine started without a network (here one
// built in-process with the hand-crafted evaluation) announces Use NNUE
// off, and turning it on without an EvalFile tells the GUI that the
// hand-crafted evaluation still plays.
func TestUseNNUEWithoutNetwork(t *testing.T) {
	s := startRun(t, Run)
	s.send(t, "uci")
	joined := strings.Join(s.expect(t, "uciok"), "\n")
	if !strings.Contains(joined, "option name Use NNUE type check default false") {
		t.Errorf("uci answer lacks Use NNUE default false: %q", joined)
	}
	s.send(t, "setoption name Use NNUE value true", "isready")
	if got := strings.Join(s.expect(t, "readyok"), "\n"); !strings.Contains(got, "no network loaded") {
		t.Errorf("Use NNUE without a network: no note in %q", got)
	}
	s.send(t, "quit")
	if err := <-s.done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
