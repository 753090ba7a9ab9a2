package match

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Errors a driver reports about its engine.
var (
	// ErrTimeout means the engine did not answer in time.
	ErrTimeout = errors.New("engine did not answer in time")
	// ErrExited means the engine process ended (crash or quit).
	ErrExited = errors.New("engine process exited")
)

// SplitCommand splits a shell-style command line into words: spaces
// separate words, single and double quotes group, and a backslash escapes
// the next character outside single quotes. No expansion is done.
func SplitCommand(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		has   bool
		quote byte
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\\' && i+1 < len(s) && (quote == 0 || quote == '"'):
			i++
			cur.WriteByte(s[i])
			has = true
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote = c
			has = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if has {
				words = append(words, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteByte(c)
			has = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("command %q: unterminated %c quote", s, quote)
	}
	if has {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("empty engine command")
	}
	return words, nil
}

// process is a running engine: lines written to its standard input, lines
// read from its standard output by one goroutine into a channel.
type process struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string   // closed when standard output ends
	done  chan struct{} // closed once the process has been waited for
	drop  chan struct{} // closed by close: the reader discards output

	mu      sync.Mutex
	stderr  []string // last lines of standard error, for crash reports
	waitErr error
	closed  bool
	// Log, if set, sees every line sent ("> ") and received ("< ").
	log func(dir, line string)
}

// startProcess runs argv with pipes. The process is killed when ctx ends.
func startProcess(ctx context.Context, name string, argv []string, log func(dir, line string)) (*process, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", name, err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("engine %s: start %q: %w", name, argv[0], err)
	}
	p := &process{name: name, cmd: cmd, stdin: stdin, lines: make(chan string, 256), done: make(chan struct{}), drop: make(chan struct{}), log: log}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
		for sc.Scan() {
			line := strings.TrimRight(sc.Text(), "\r")
			if p.log != nil {
				p.log("<", line)
			}
			select {
			case p.lines <- line:
			case <-p.drop:
			}
		}
	}()
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr = append(p.stderr, sc.Text())
			if len(p.stderr) > 20 {
				p.stderr = p.stderr[1:]
			}
			p.mu.Unlock()
		}
	}()
	go func() {
		// Read both pipes to the end before Wait, which closes them.
		readers.Wait()
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// send writes one line (a newline is added).
func (p *process) send(line string) error {
	if p.log != nil {
		p.log(">", line)
	}
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		return fmt.Errorf("engine %s: write %q: %w (%w)", p.name, line, ErrExited, err)
	}
	return nil
}

// readLine returns the next line, waiting at most until deadline (zero
// means no limit other than ctx).
func (p *process) readLine(ctx context.Context, deadline time.Time) (string, error) {
	var timer <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timer = t.C
	}
	select {
	case line, ok := <-p.lines:
		if !ok {
			return "", p.exitError()
		}
		return line, nil
	case <-timer:
		return "", fmt.Errorf("engine %s: %w", p.name, ErrTimeout)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// exitError describes how the process ended.
func (p *process) exitError() error {
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	msg := ""
	if p.waitErr != nil {
		msg = ": " + p.waitErr.Error()
	}
	if len(p.stderr) > 0 {
		msg += "; stderr: " + strings.Join(p.stderr, " | ")
	}
	return fmt.Errorf("engine %s: %w%s", p.name, ErrExited, msg)
}

// alive reports whether the process is still running.
func (p *process) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// close asks the process to end (the quit line, if not empty, then closing
// standard input) and kills it if it has not exited within grace.
func (p *process) close(quit string, grace time.Duration) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.done
		return
	}
	p.closed = true
	p.mu.Unlock()
	close(p.drop)
	if quit != "" && p.alive() {
		_ = p.send(quit)
	}
	_ = p.stdin.Close()
	select {
	case <-p.done:
		return
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}
