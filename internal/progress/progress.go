// Package progress shows the state of long work (matches, perft, data
// generation, training, tuning): a status line redrawn in place on a
// terminal, plain periodic lines elsewhere.
package progress

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"
)

// Progress shows the state of long work: on a terminal, one status line
// redrawn in place below the work's own output; elsewhere (a file, a pipe,
// CI logs) a plain line every plainEvery. It starts showing after a delay,
// so that quick work prints nothing extra.
type Progress struct {
	w          io.Writer
	tty        bool
	plainEvery time.Duration
	status     func() string

	mu        sync.Mutex
	drawn     bool // the status line is on the screen (tty)
	started   bool // the delay has passed
	lastPlain time.Time

	stop chan struct{}
	done chan struct{}
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Start shows status() on w after the delay after, then every tick
// on a terminal (tty) or every plainEvery otherwise, until Stop.
func Start(w io.Writer, tty bool, after, tick, plainEvery time.Duration, status func() string) *Progress {
	p := &Progress{w: w, tty: tty, plainEvery: plainEvery, status: status, stop: make(chan struct{}), done: make(chan struct{})}
	go p.run(after, tick)
	return p
}

func (p *Progress) run(after, tick time.Duration) {
	defer close(p.done)
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.stop:
		return
	}
	p.mu.Lock()
	p.started = true
	p.mu.Unlock()
	p.show(true)
	tk := time.NewTicker(tick)
	defer tk.Stop()
	for {
		select {
		case <-tk.C:
			p.show(false)
		case <-p.stop:
			return
		}
	}
}

// show draws the status line (tty) or prints it when a plain line is due
// (or forced).
func (p *Progress) show(force bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", p.status())
		p.drawn = true
		return
	}
	if now := time.Now(); force || now.Sub(p.lastPlain) >= p.plainEvery {
		p.lastPlain = now
		fmt.Fprintf(p.w, "%s\n", p.status())
	}
}

// Write passes the work's own output through, above the status line.
func (p *Progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\r\033[K")
	}
	n, err := p.w.Write(b)
	if p.tty && p.started && bytes.HasSuffix(b, []byte("\n")) {
		fmt.Fprintf(p.w, "%s", p.status())
		p.drawn = true
	} else {
		p.drawn = false
	}
	return n, err
}

// Stop ends the progress display and clears the status line.
func (p *Progress) Stop() {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\r\033[K")
		p.drawn = false
	}
}

// ETA estimates the time left from the work done so far.
func ETA(elapsed time.Duration, done, total int) string {
	if done <= 0 || total <= done {
		return "?"
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	return left.Round(time.Second).String()
}

// Elo writes an Elo difference and the half width of its interval.
func Elo(elo, lo, hi float64) string {
	e := "?"
	switch {
	case math.IsInf(elo, 1):
		e = "+∞"
	case math.IsInf(elo, -1):
		e = "-∞"
	case !math.IsNaN(elo):
		e = fmt.Sprintf("%+.0f", math.Round(elo)+0) // +0: no "-0"
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return "Elo " + e + " ± ∞"
	}
	return fmt.Sprintf("Elo %s ± %.0f", e, (hi-lo)/2)
}

// Lines adapts a tool that prints its own progress lines (data generation,
// training, tuning). On a terminal, a line for which isStatus is true
// becomes the status line, redrawn in place, and every other line is printed
// above it; elsewhere every line goes to w unchanged, so logs keep them all.
// The returned tty says which: a tool may report more often on a terminal.
// Call stop when the work is done.
func Lines(w io.Writer, isStatus func(line string) bool) (out io.Writer, tty bool, stop func()) {
	if !IsTerminal(w) {
		return w, false, func() {}
	}
	l := &lines{isStatus: isStatus}
	l.p = Start(w, true, 0, 250*time.Millisecond, time.Hour, l.status)
	return l, true, l.p.Stop
}

type lines struct {
	p        *Progress
	isStatus func(string) bool

	mu      sync.Mutex
	partial []byte // a line not yet ended
	last    string // the latest status line
}

func (l *lines) status() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

func (l *lines) Write(b []byte) (int, error) {
	l.mu.Lock()
	l.partial = append(l.partial, b...)
	var pass [][]byte
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := l.partial[:i+1]
		if l.isStatus(string(line[:i])) {
			l.last = string(line[:i])
		} else {
			pass = append(pass, append([]byte(nil), line...))
		}
		l.partial = l.partial[i+1:]
	}
	l.mu.Unlock()
	for _, line := range pass {
		if _, err := l.p.Write(line); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}
