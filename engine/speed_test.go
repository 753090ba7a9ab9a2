package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSpeedVersus compares single-threaded search speed with another UCI
// engine on the bench positions, in one run: both search each position for
// the same movetime, one after the other, with one thread and 16 MiB of
// hash. It runs only when PONDEROSA_VERSUS names the other engine, e.g.
//
//	PONDEROSA_VERSUS=/usr/games/glaurung go test ./engine -run SpeedVersus -v
//
// PONDEROSA_VERSUS_MS sets the movetime (default 1000). The test fails when
// our speed is below PONDEROSA_VERSUS_MIN times theirs (default 0.6, the
// target against Glaurung 2.2 that the README's figures meet). Ours is the
// default engine (the built-in network); PONDEROSA_VERSUS_HCE=1 measures
// the hand-crafted evaluation instead.
func TestSpeedVersus(t *testing.T) {
	other := os.Getenv("PONDEROSA_VERSUS")
	if other == "" {
		t.Skip("set PONDEROSA_VERSUS to a UCI engine's path")
	}
	ms := 1000
	if v, err := strconv.Atoi(os.Getenv("PONDEROSA_VERSUS_MS")); err == nil && v > 0 {
		ms = v
	}
	movetime := time.Duration(ms) * time.Millisecond
	floor := 0.6
	if v := os.Getenv("PONDEROSA_VERSUS_MIN"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			t.Fatalf("PONDEROSA_VERSUS_MIN=%q: want a positive ratio", v)
		}
		floor = f
	}

	cmd := exec.Command(other)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		fmt.Fprintln(stdin, "quit")
		stdin.Close()
		cmd.Wait()
	}()
	in := bufio.NewScanner(stdout)
	send := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	waitFor := func(prefix string) []string {
		var lines []string
		for in.Scan() {
			lines = append(lines, in.Text())
			if strings.HasPrefix(in.Text(), prefix) {
				return lines
			}
		}
		t.Fatalf("%s ended before %q", other, prefix)
		return nil
	}
	send("uci")
	waitFor("uciok")
	send("setoption name Threads value 1")
	send("setoption name Hash value 16")
	send("isready")
	waitFor("readyok")

	opts := DefaultOptions()
	opts.HashMB, opts.Threads = 16, 1
	if os.Getenv("PONDEROSA_VERSUS_HCE") == "1" {
		opts.Net = nil
	}
	e := New(opts)
	var ourNodes, theirNodes uint64
	var ourTime, theirTime time.Duration
	for _, fen := range benchFENs {
		g := mustGame(t, fen)
		e.NewGame()
		res := e.Search(context.Background(), g, Limits{MoveTime: movetime}, nil)
		ourNodes += res.Nodes
		ourTime += res.Time

		send("ucinewgame")
		send("position fen " + fen)
		send("isready")
		waitFor("readyok")
		send(fmt.Sprintf("go movetime %d", ms))
		start := time.Now()
		lines := waitFor("bestmove")
		elapsed := time.Since(start)
		nodes := lastNodes(lines)
		theirNodes += nodes
		theirTime += elapsed
		t.Logf("%-60s ours %8d nps  theirs %8d nps", fen, int(float64(res.Nodes)/res.Time.Seconds()), int(float64(nodes)/elapsed.Seconds()))
	}
	ours := float64(ourNodes) / ourTime.Seconds()
	theirs := float64(theirNodes) / theirTime.Seconds()
	if theirs == 0 {
		t.Fatalf("%s reported no node counts", other)
	}
	t.Logf("total: ours %.0f nps, %s %.0f nps: ratio %.2f", ours, other, theirs, ours/theirs)
	if ours/theirs < floor {
		t.Errorf("speed ratio %.2f against %s is below %.2f", ours/theirs, other, floor)
	}
}

// lastNodes returns the last "nodes N" figure in UCI info lines.
func lastNodes(lines []string) uint64 {
	var n uint64
	for _, l := range lines {
		f := strings.Fields(l)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "nodes" {
				if v, err := strconv.ParseUint(f[i+1], 10, 64); err == nil {
					n = v
				}
			}
		}
	}
	return n
}
