package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func start(t *testing.T, cfg Config) *Process {
	t.Helper()
	p, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close("", 0) })
	return p
}

func TestLinesInOrderThenExitStatusAndStderr(t *testing.T) {
	p := start(t, Config{Name: "echo", Argv: []string{"sh", "-c",
		`read x; echo "got $x"; printf 'a\r\nb'; echo oops >&2; echo "last words" >&2; exit 3`}})
	if err := p.Send("hello"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		line, err := p.ReadLine(context.Background(), time.Now().Add(10*time.Second))
		if err != nil {
			if !errors.Is(err, ErrExited) {
				t.Fatalf("want ErrExited, got %v", err)
			}
			for _, want := range []string{"exit status 3", "oops | last words"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			break
		}
		got = append(got, line)
	}
	if strings.Join(got, ",") != "got hello,a,b" {
		t.Errorf("lines %q", got)
	}
}

func TestReadLineTimeout(t *testing.T) {
	p := start(t, Config{Argv: []string{"sleep", "30"}})
	_, err := p.ReadLine(context.Background(), time.Now().Add(50*time.Millisecond))
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("want ErrTimeout, got %v", err)
	}
	p.Close("quit", 50*time.Millisecond)
	if p.Alive() {
		t.Fatal("alive after Close")
	}
}

func TestFloodByLength(t *testing.T) {
	p := start(t, Config{Argv: []string{"sh", "-c", `head -c 100000 /dev/zero | tr '\0' x; echo; sleep 30`}, MaxLineBytes: 1000})
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a flooding process was not killed")
	}
	if err := p.Err(); !errors.Is(err, ErrFlood) {
		t.Fatalf("want ErrFlood, got %v", err)
	}
}

func TestFloodByRate(t *testing.T) {
	p := start(t, Config{Argv: []string{"sh", "-c", `yes info depth 1; sleep 30`}, MaxLinesPerSecond: 1000})
	for range p.Lines() {
	}
	if err := p.Err(); !errors.Is(err, ErrFlood) {
		t.Fatalf("want ErrFlood, got %v", err)
	}
}

func TestDirAndStartFailure(t *testing.T) {
	dir := t.TempDir()
	p := start(t, Config{Argv: []string{"pwd"}, Dir: dir})
	line, err := p.ReadLine(context.Background(), time.Now().Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(dir); line != dir && line != want {
		t.Errorf("ran in %q, want %q", line, dir)
	}
	if _, err := Start(context.Background(), Config{Argv: []string{filepath.Join(dir, "missing")}}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("starting a missing program: %v", err)
	}
}

// TestContextKillsGroup: cancelling the context kills the grandchild of a
// wrapper too, and the process is waited for promptly.
func TestContextKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, pid := startWrapper(t, ctx)
	cancel()
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not waited for 5 s after the cancel")
	}
	waitGone(t, pid)
}

// TestCloseKillsGrandchild: a wrapper script's child (the real "engine",
// here a hung sleep) inherits the pipes. Close must end the grandchild too
// and return promptly: killing only the direct child left the grandchild
// running and Close waiting on its pipes (uci/match's players close so).
func TestCloseKillsGrandchild(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, pid := startWrapper(t, ctx)
	closed := make(chan struct{})
	go func() { p.Close("quit", 100*time.Millisecond); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("close still waiting 5 s after the kill: the grandchild holds the pipes")
	}
	waitGone(t, pid)
}

// startWrapper starts a shell that runs a hung sleep in the background and
// waits for it; it returns once the shell said so, with the sleep's pid.
func startWrapper(t *testing.T, ctx context.Context) (*Process, string) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	p, err := Start(ctx, Config{Argv: []string{"sh", "-c", "sleep 300 & echo $! > " + pidFile + "; echo started; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadLine(ctx, time.Now().Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	return p, strings.TrimSpace(string(b))
}

// waitGone waits up to 5 s for process pid to end (a zombie counts as
// ended): nothing signals another process group's end, so it polls.
func waitGone(t *testing.T, pid string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); running(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %s survived", pid)
		}
	}
}

// running reports whether process pid exists and is not a zombie (the
// state follows the parenthesised command name in /proc/PID/stat).
func running(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string]string{
		`stockfish`:                      "stockfish",
		`/opt/lc0 --weights="my net.pb"`: "/opt/lc0|--weights=my net.pb",
		`a 'b c' d\ e "f\"g"`:            "a|b c|d e|f\"g",
		"  x\ty  ":                       "x|y",
	} {
		got, err := SplitCommand(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "  ", `a "b`, `'c`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q): no error", bad)
		}
	}
}
