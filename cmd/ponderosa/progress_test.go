package main

import (
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a strings.Builder safe for the progress goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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

func TestProgressPlain(t *testing.T) {
	var out lockedBuffer
	status, first := shownOnce("games 1/2")
	p := startProgress(&out, false, 0, time.Millisecond, time.Hour, status)
	<-first
	p.Write([]byte("Finished game 1\n"))
	p.Stop()
	if got := out.String(); got != "games 1/2\nFinished game 1\n" {
		t.Errorf("plain output %q", got)
	}
}

func TestProgressTerminal(t *testing.T) {
	var out lockedBuffer
	status, first := shownOnce("games 1/2")
	p := startProgress(&out, true, 0, time.Hour, time.Hour, status)
	<-first
	p.Write([]byte("Finished game 1\n"))
	p.Stop()
	want := "\r\033[Kgames 1/2" + "\r\033[KFinished game 1\ngames 1/2" + "\r\033[K"
	if got := out.String(); got != want {
		t.Errorf("terminal output %q, want %q", got, want)
	}
}

func TestProgressQuickWorkPrintsNothing(t *testing.T) {
	var out lockedBuffer
	p := startProgress(&out, true, time.Hour, time.Millisecond, time.Millisecond, func() string { return "status" })
	p.Write([]byte("result\n"))
	p.Stop()
	if got := out.String(); got != "result\n" {
		t.Errorf("output %q", got)
	}
}

func TestETAAndElo(t *testing.T) {
	if got := etaText(10*time.Second, 5, 20); got != "30s" {
		t.Errorf("eta %q", got)
	}
	if got := etaText(time.Second, 0, 20); got != "?" {
		t.Errorf("eta with nothing done %q", got)
	}
	for _, c := range []struct {
		elo, lo, hi float64
		want        string
	}{{29.4, -40, 98, "Elo +29 ± 69"}, {math.Copysign(0, -1), -10, 10, "Elo +0 ± 10"},
		{math.Inf(1), 3, math.Inf(1), "Elo +∞ ± ∞"}, {-12, math.Inf(-1), 4, "Elo -12 ± ∞"}} {
		if got := eloText(c.elo, c.lo, c.hi); got != c.want {
			t.Errorf("eloText(%v, %v, %v) = %q, want %q", c.elo, c.lo, c.hi, got, c.want)
		}
	}
}

// TestMatchProgressPlain: a match whose output is not a terminal prints a
// plain progress line (games, W/L/D, Elo ± interval, LLR and bounds, ETA)
// and then its summary.
func TestMatchProgressPlain(t *testing.T) {
	sf := "/usr/games/stockfish"
	if _, err := os.Stat(sf); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("stockfish missing in CI: %v", err)
		}
		t.Skip("stockfish not installed")
	}
	out, _, err := runCmd(t, "", "match", "--engine", sf, "--engine", sf, "--tc", "inf", "--nodes", "300",
		"--games", "2", "--sprt", "elo0=0,elo1=5", "--option", "Hash=4")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "games 0/2  +0 -0 =0  Elo +0 ± ∞  LLR 0.00 [-2.94, 2.94]  ETA ?\n") {
		t.Errorf("no plain progress line:\n%s", out)
	}
	if strings.Contains(out, "\r") || strings.Contains(out, "\033") {
		t.Errorf("terminal controls in plain output:\n%q", out)
	}
	if !strings.Contains(out, "Score of") {
		t.Errorf("no per-game lines:\n%s", out)
	}
}
