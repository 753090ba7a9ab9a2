package uci_test

import (
	"bufio"
	"fmt"
	"github.com/ponderosa-chess/ponderosa/internal/testbin"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// binary is the ponderosa binary built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, testbin.Build{Pkg: "../cmd/ponderosa", Out: &binary, Race: raceEnabled}))
}

// proc is the binary running under test, driven over pipes.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	exit  chan error
}

func start(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 100000), exit: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.exit <- cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close()
		for range p.lines {
		}
		select {
		case err := <-p.exit:
			// Non-zero only for CEGO protocol errors, which tests check
			// themselves; a data race in a -race binary exits with 66.
			if err != nil && len(args) > 0 && args[0] == "cego" {
				break
			}
			if err != nil {
				t.Errorf("ponderosa %s exited with %v", strings.Join(args, " "), err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("process did not exit after its input closed")
		}
	})
	return p
}

func (p *proc) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.stdin, l+"\n"); err != nil {
			p.t.Fatalf("write %q: %v", l, err)
		}
	}
}

func (p *proc) sendRaw(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// timeout scales waits for the race detector and a loaded machine.
func timeout(d time.Duration) time.Duration {
	if raceEnabled {
		return 5 * d
	}
	return d
}

// until reads lines until one satisfies match and returns everything read,
// the matching line last. It fails the test after d.
func (p *proc) until(d time.Duration, what string, match func(string) bool) []string {
	p.t.Helper()
	var got []string
	timer := time.NewTimer(timeout(d))
	defer timer.Stop()
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("output ended while waiting for %s; got %q", what, tail(got))
			}
			got = append(got, l)
			if match(l) {
				return got
			}
		case <-timer.C:
			p.t.Fatalf("no %s within %v; got %q", what, timeout(d), tail(got))
		}
	}
}

func (p *proc) untilLine(d time.Duration, prefix string) []string {
	p.t.Helper()
	return p.until(d, fmt.Sprintf("%q", prefix), func(l string) bool { return strings.HasPrefix(l, prefix) })
}

// quiet checks that no line with prefix arrives for d.
func (p *proc) quiet(d time.Duration, prefix string) []string {
	p.t.Helper()
	var got []string
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("output ended; got %q", tail(got))
			}
			got = append(got, l)
			if strings.HasPrefix(l, prefix) {
				p.t.Fatalf("unexpected %q", l)
			}
		case <-timer.C:
			return got
		}
	}
}

func (p *proc) waitExit(d time.Duration) error {
	p.t.Helper()
	for range p.lines {
	}
	select {
	case err := <-p.exit:
		p.exit <- err
		return err
	case <-time.After(timeout(d)):
		p.t.Fatalf("process still running after %v", timeout(d))
	}
	return nil
}

func tail(lines []string) []string {
	if len(lines) > 8 {
		return lines[len(lines)-8:]
	}
	return lines
}

// fuzzing reports whether this test binary runs a fuzz target (or is one
// of its workers), where building the ponderosa binary would only cost time.
