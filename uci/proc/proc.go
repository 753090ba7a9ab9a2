// Package proc runs engine processes: each in its own process group, with
// line-oriented input and output under limits, killed as a group, and waited
// for with a deadline. It serves both the match runner (uci/match) and the
// bot's external engines (uci/client).
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Errors a process reports.
var (
	// ErrTimeout means no line came before the deadline.
	ErrTimeout = errors.New("engine did not answer in time")
	// ErrExited means the process ended (crash, quit or kill).
	ErrExited = errors.New("engine process exited")
	// ErrFlood means the process wrote more than its limits allow: a line
	// longer than MaxLineBytes or more than MaxLinesPerSecond lines in a
	// second. The process is killed.
	ErrFlood = errors.New("engine flooded its output")
)

// Config says how to run a process.
type Config struct {
	// Name labels the process in errors.
	Name string
	// Argv is the program and its arguments (run without a shell).
	Argv []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Log, if set, sees every line sent (">") and received ("<"). It is
	// called from the reading goroutine and must not block.
	Log func(dir, line string)
	// MaxLineBytes bounds one output line (default 1 MiB).
	MaxLineBytes int
	// MaxLinesPerSecond bounds the output rate; 0 means no limit.
	MaxLinesPerSecond int
	// StderrLines is how many last lines of standard error are kept for
	// error messages (default 20).
	StderrLines int
	// WaitDelay is how long Wait waits for the output pipes to close after
	// the process has exited or been killed (default 1 s): a grandchild
	// that holds them cannot block the caller longer than that.
	WaitDelay time.Duration
}

// Process is a running program in its own process group. Its standard
// output is split into lines delivered in order by Lines or ReadLine.
type Process struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string   // closed when standard output ends
	done  chan struct{} // closed once the process has been waited for
	drop  chan struct{} // closed by Close: further output is discarded
	log   func(dir, line string)

	writeMu sync.Mutex // serialises Send

	mu       sync.Mutex
	stderr   []string
	keep     int
	waitErr  error
	fault    error // ErrFlood, set by the output writer
	closed   bool
	killed   bool
	dropOnce sync.Once
}

// Start runs cfg.Argv with pipes, in a new process group. When ctx ends
// the whole group is killed.
func Start(ctx context.Context, cfg Config) (*Process, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("empty engine command")
	}
	name := cfg.Name
	if name == "" {
		name = cfg.Argv[0]
	}
	if cfg.MaxLineBytes <= 0 {
		cfg.MaxLineBytes = 1 << 20
	}
	if cfg.StderrLines <= 0 {
		cfg.StderrLines = 20
	}
	if cfg.WaitDelay <= 0 {
		cfg.WaitDelay = time.Second
	}
	cmd := exec.CommandContext(ctx, cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = cfg.WaitDelay
	p := &Process{name: name, cmd: cmd, lines: make(chan string, 1024), done: make(chan struct{}),
		drop: make(chan struct{}), log: cfg.Log, keep: cfg.StderrLines}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", name, err)
	}
	p.stdin = stdin
	out := &lineWriter{p: p, max: cfg.MaxLineBytes, rate: cfg.MaxLinesPerSecond}
	cmd.Stdout = out
	cmd.Stderr = &tailWriter{p: p, max: 4096}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("engine %s: start %q: %w", name, cfg.Argv[0], err)
	}
	errw := cmd.Stderr.(*tailWriter)
	go func() {
		// Wait copies the output to the end (or until WaitDelay after the
		// exit), so every line written before the exit is delivered.
		err := cmd.Wait()
		if errors.Is(err, exec.ErrWaitDelay) {
			// Something else in the group still held the pipes.
			_ = killGroup(cmd)
		}
		out.flush()
		errw.flush()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.lines)
		close(p.done)
	}()
	return p, nil
}

// killGroup kills the process group of a started command.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		// Not a group leader after all (it cannot be, but be safe).
		return cmd.Process.Kill()
	}
	return nil
}

// Name is the label used in errors.
func (p *Process) Name() string { return p.name }

// Pid is the process id (also the process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Send writes one line (a newline is added).
func (p *Process) Send(line string) error {
	if p.log != nil {
		p.log(">", line)
	}
	p.writeMu.Lock()
	_, err := io.WriteString(p.stdin, line+"\n")
	p.writeMu.Unlock()
	if err != nil {
		// The process is gone (or going): say how it ended.
		return fmt.Errorf("write %q: %w", truncate(line), p.Err())
	}
	return nil
}

// Lines delivers the output lines; it is closed when the output has ended
// and the process has been waited for (then Err says why).
func (p *Process) Lines() <-chan string { return p.lines }

// ReadLine returns the next line, waiting at most until deadline (zero
// means no limit other than ctx).
func (p *Process) ReadLine(ctx context.Context, deadline time.Time) (string, error) {
	var timer <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timer = t.C
	}
	select {
	case line, ok := <-p.lines:
		if !ok {
			return "", p.Err()
		}
		return line, nil
	case <-timer:
		return "", fmt.Errorf("engine %s: %w", p.name, ErrTimeout)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Done is closed once the process has ended and been waited for.
func (p *Process) Done() <-chan struct{} { return p.done }

// Alive reports whether the process has not been waited for yet.
func (p *Process) Alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Err describes how the process ended: ErrFlood or ErrExited, with the
// exit status and the last lines of standard error. It waits up to two
// seconds for the process to be waited for.
func (p *Process) Err() error {
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	kind := ErrExited
	if p.fault != nil {
		kind = p.fault
	}
	msg := ""
	if p.waitErr != nil {
		msg = ": " + p.waitErr.Error()
	} else if p.Alive() {
		msg = ": still running"
	} else {
		msg = ": exit status 0"
	}
	if p.killed && p.fault == nil {
		msg += " (killed)"
	}
	if len(p.stderr) > 0 {
		msg += "; stderr: " + strings.Join(p.stderr, " | ")
	}
	return fmt.Errorf("engine %s: %w%s", p.name, kind, msg)
}

// Stderr returns the last lines of standard error.
func (p *Process) Stderr() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.stderr...)
}

// Kill kills the whole process group now and discards further output. It
// does not wait; Done is closed once the process has been waited for.
func (p *Process) Kill() {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	p.dropOnce.Do(func() { close(p.drop) })
	_ = killGroup(p.cmd)
}

// Close asks the process to end (the quit line, if not empty, then closing
// standard input), kills its group if it has not exited within grace, and
// returns once it has been waited for. It may be called more than once.
func (p *Process) Close(quit string, grace time.Duration) {
	p.mu.Lock()
	first := !p.closed
	p.closed = true
	p.mu.Unlock()
	if first {
		p.dropOnce.Do(func() { close(p.drop) })
		if quit != "" && p.Alive() {
			_ = p.Send(quit)
		}
		_ = p.stdin.Close()
		t := time.NewTimer(grace)
		select {
		case <-p.done:
		case <-t.C:
		}
		t.Stop()
		// Kill the group even after a clean exit of the leader: a child it
		// left behind must not outlive it.
		if p.Alive() {
			p.Kill()
		}
	}
	<-p.done
}

// setFault records a limit violation and kills the group.
func (p *Process) setFault(err error) {
	p.mu.Lock()
	if p.fault == nil {
		p.fault = err
	}
	p.mu.Unlock()
	p.Kill()
}

// lineWriter splits standard output into lines (CR before LF dropped) and
// delivers them, enforcing the length and rate limits.
type lineWriter struct {
	p       *Process
	max     int
	rate    int
	partial []byte
	window  time.Time
	count   int
	failed  bool
}

func (w *lineWriter) Write(b []byte) (int, error) {
	if w.failed {
		return 0, ErrFlood
	}
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(w.partial)+len(b) > w.max {
				return w.fail(fmt.Errorf("%w: a line longer than %d bytes", ErrFlood, w.max))
			}
			w.partial = append(w.partial, b...)
			break
		}
		if len(w.partial)+i > w.max {
			return w.fail(fmt.Errorf("%w: a line longer than %d bytes", ErrFlood, w.max))
		}
		var line string
		if len(w.partial) > 0 {
			w.partial = append(w.partial, b[:i]...)
			line = string(w.partial)
			w.partial = w.partial[:0]
		} else {
			line = string(b[:i])
		}
		b = b[i+1:]
		if w.rate > 0 {
			now := time.Now()
			if now.Sub(w.window) >= time.Second {
				w.window, w.count = now, 0
			}
			w.count++
			if w.count > w.rate {
				return w.fail(fmt.Errorf("%w: more than %d lines in a second", ErrFlood, w.rate))
			}
		}
		w.deliver(strings.TrimSuffix(line, "\r"))
	}
	return n, nil
}

func (w *lineWriter) fail(err error) (int, error) {
	w.failed = true
	w.partial = nil
	w.p.setFault(err)
	return 0, err
}

func (w *lineWriter) deliver(line string) {
	if w.p.log != nil {
		w.p.log("<", line)
	}
	select {
	case w.p.lines <- line:
	case <-w.p.drop:
	}
}

// flush delivers an unterminated last line (called after Wait).
func (w *lineWriter) flush() {
	if !w.failed && len(w.partial) > 0 {
		w.deliver(strings.TrimSuffix(string(w.partial), "\r"))
		w.partial = nil
	}
}

// tailWriter keeps the last lines of standard error, each cut to max bytes.
type tailWriter struct {
	p       *Process
	max     int
	partial []byte
}

func (w *tailWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			room := max(0, w.max-len(w.partial))
			w.partial = append(w.partial, b[:min(room, len(b))]...)
			break
		}
		room := max(0, w.max-len(w.partial))
		w.partial = append(w.partial, b[:min(room, i)]...)
		b = b[i+1:]
		w.flush()
	}
	return n, nil
}

// flush stores the line in progress.
func (w *tailWriter) flush() {
	if len(w.partial) == 0 {
		return
	}
	w.p.mu.Lock()
	w.p.stderr = append(w.p.stderr, strings.TrimSuffix(string(w.partial), "\r"))
	if len(w.p.stderr) > w.p.keep {
		w.p.stderr = w.p.stderr[1:]
	}
	w.p.mu.Unlock()
	w.partial = w.partial[:0]
}

// truncate shortens a line for an error message.
func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
