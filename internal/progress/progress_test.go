package progress

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/internal/testlog"
)

// shownOnce returns a status function that reports its first call on the
// channel.
func shownOnce(text string) (func() string, chan struct{}) {
	first := make(chan struct{})
	var once sync.Once
	return func() string {
		once.Do(func() { close(first) })
		return text
	}, first
}

// TestProgressOutput: a status line and a line of output, plain (status
// lines as lines) and on a terminal (the status redrawn under the output
// and cleared at the end).
func TestProgressOutput(t *testing.T) {
	for _, c := range []struct {
		name     string
		terminal bool
		every    time.Duration
		want     string
	}{
		{"plain", false, time.Millisecond, "games 1/2\nFinished game 1\n"},
		{"terminal", true, time.Hour, "\r\033[Kgames 1/2" + "\r\033[KFinished game 1\ngames 1/2" + "\r\033[K"},
	} {
		var out testlog.Buffer
		status, first := shownOnce("games 1/2")
		p := Start(&out, c.terminal, 0, c.every, time.Hour, status)
		<-first
		p.Write([]byte("Finished game 1\n"))
		p.Stop()
		if got := out.String(); got != c.want {
			t.Errorf("%s output %q, want %q", c.name, got, c.want)
		}
	}
}

func TestProgressQuickWorkPrintsNothing(t *testing.T) {
	var out testlog.Buffer
	p := Start(&out, true, time.Hour, time.Millisecond, time.Millisecond, func() string { return "status" })
	p.Write([]byte("result\n"))
	p.Stop()
	if got := out.String(); got != "result\n" {
		t.Errorf("output %q", got)
	}
}

func TestETAAndElo(t *testing.T) {
	if got := ETA(10*time.Second, 5, 20); got != "30s" {
		t.Errorf("eta %q", got)
	}
	if got := ETA(time.Second, 0, 20); got != "?" {
		t.Errorf("eta with nothing done %q", got)
	}
	for _, c := range []struct {
		elo, lo, hi float64
		want        string
	}{{29.4, -40, 98, "Elo +29 ± 69"}, {math.Copysign(0, -1), -10, 10, "Elo +0 ± 10"},
		{math.Inf(1), 3, math.Inf(1), "Elo +∞ ± ∞"}, {-12, math.Inf(-1), 4, "Elo -12 ± ∞"}} {
		if got := Elo(c.elo, c.lo, c.hi); got != c.want {
			t.Errorf("Elo(%v, %v, %v) = %q, want %q", c.elo, c.lo, c.hi, got, c.want)
		}
	}
}

func TestLinesNotATerminal(t *testing.T) {
	var out testlog.Buffer
	w, tty, stop := Lines(&out, func(string) bool { return true })
	w.Write([]byte("epoch 1: 10 of 20\nepoch 1 done\n"))
	stop()
	if tty || out.String() != "epoch 1: 10 of 20\nepoch 1 done\n" {
		t.Errorf("tty %v, output %q: want every line unchanged", tty, out.String())
	}
}

func TestLinesStatusInPlace(t *testing.T) {
	var out testlog.Buffer
	l := &lines{isStatus: func(s string) bool { return strings.HasPrefix(s, "at ") }}
	shown := make(chan string, 16)
	l.p = Start(&out, true, time.Hour, time.Hour, time.Hour, func() string {
		s := l.status()
		shown <- s
		return s
	})
	// Lines may arrive in pieces; status lines never reach the output as
	// lines of their own, other lines do.
	l.Write([]byte("at 1"))
	l.Write([]byte("0%\nstarting\nat 20%\n"))
	if got := l.status(); got != "at 20%" {
		t.Errorf("status %q, want the latest status line", got)
	}
	l.p.show(true)
	if got := <-shown; got != "at 20%" {
		t.Errorf("drawn status %q", got)
	}
	l.p.Stop()
	got := out.String()
	if strings.Contains(got, "at 10%") || strings.Contains(got, "at 20%\n") || !strings.Contains(got, "starting\n") {
		t.Errorf("terminal output %q: want 'starting' as a line and the status drawn in place only", got)
	}
}
