package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"
)

// progress shows the state of long work: on a terminal, one status line
// redrawn in place below the work's own output; elsewhere (a file, a pipe,
// CI logs) a plain line every plainEvery. It starts showing after a delay,
// so that quick work prints nothing extra.
type progress struct {
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

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// startProgress shows status() on w after the delay after, then every tick
// on a terminal (tty) or every plainEvery otherwise, until Stop.
func startProgress(w io.Writer, tty bool, after, tick, plainEvery time.Duration, status func() string) *progress {
	p := &progress{w: w, tty: tty, plainEvery: plainEvery, status: status, stop: make(chan struct{}), done: make(chan struct{})}
	go p.run(after, tick)
	return p
}

func (p *progress) run(after, tick time.Duration) {
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
func (p *progress) show(force bool) {
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
func (p *progress) Write(b []byte) (int, error) {
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
func (p *progress) Stop() {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\r\033[K")
		p.drawn = false
	}
}

// etaText estimates the time left from the work done so far.
func etaText(elapsed time.Duration, done, total int) string {
	if done <= 0 || total <= done {
		return "?"
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	return left.Round(time.Second).String()
}

// eloText writes an Elo difference and the half width of its interval.
func eloText(elo, lo, hi float64) string {
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
