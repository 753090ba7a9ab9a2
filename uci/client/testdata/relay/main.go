// Command relay is a test helper: a UCI engine (Ponderosa's own, run
// in-process) whose conversation passes through a relay that injects one
// fault. Tests build it with "go build" and run it as an external engine.
//
//	relay [-fault KIND] [-after N]
//
// KIND is one of:
//
//	none       relay faithfully
//	crash      exit with status 3 at the search after N answered ones
//	hang       at that search, go silent: ignore stop, never answer
//	illegal    answer that search with "bestmove a1a1"
//	malformed  answer that search with "bestmove banana"
//	flood      at that search, print info lines without end
//	burst      at that search, print 5,000 info lines at once, then search
//	           as asked (a legitimate burst: Stockfish prints a line per
//	           depth up to 245 on a found mate, and more with MultiPV)
//	early      answer ponder searches at once, before ponderhit or stop
//	noready    never answer isready
//	nouciok    never answer uci
//	die        print to standard error and exit with status 2 at once
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/uci"
)

func main() {
	fault := flag.String("fault", "none", "fault to inject")
	after := flag.Int("after", 0, "searches answered before the fault")
	flag.Parse()
	if *fault == "die" {
		fmt.Fprintln(os.Stderr, "relay: cannot load the network file nets/missing.pb")
		os.Exit(2)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = uci.Run(ctx, inR, outW, engine.New(engine.Options{HashMB: 4, Threads: 1}))
		outW.Close()
	}()
	var (
		mu        sync.Mutex
		answered  int
		silent    bool
		pondering bool
	)
	stdout := bufio.NewWriter(os.Stdout)
	var outMu sync.Mutex
	write := func(line string) {
		outMu.Lock()
		defer outMu.Unlock()
		if silent {
			return
		}
		stdout.WriteString(line + "\n")
		stdout.Flush()
	}
	// Engine → GUI.
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "bestmove") {
				mu.Lock()
				n := answered
				answered++
				mu.Unlock()
				if n == *after {
					switch *fault {
					case "illegal":
						line = "bestmove a1a1"
					case "malformed":
						line = "bestmove banana"
					}
				}
			}
			if (*fault == "nouciok" && line == "uciok") || (*fault == "noready" && line == "readyok") {
				continue
			}
			write(line)
		}
	}()
	// GUI → engine.
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "go" {
			mu.Lock()
			n := answered
			mu.Unlock()
			pondering = len(f) > 1 && f[1] == "ponder"
			if n == *after {
				switch *fault {
				case "crash":
					fmt.Fprintln(os.Stderr, "relay: segmentation fault (injected)")
					os.Exit(3)
				case "hang":
					outMu.Lock()
					silent = true
					outMu.Unlock()
					time.Sleep(time.Hour) // ignore everything, stop included
				case "flood":
					for i := 0; ; i++ {
						write(fmt.Sprintf("info depth 1 score cp %d nodes %d pv e2e4", i%100, i))
					}
				case "burst":
					for i := 1; i <= 5000; i++ {
						write(fmt.Sprintf("info depth %d seldepth 2 score mate 1 nodes %d pv e2e4", 1+i%245, i))
					}
				}
			}
			if *fault == "early" && pondering {
				// Answer a ponder search at once, against the rules.
				io.WriteString(inW, strings.Replace(line, "ponder", "", 1)+" depth 1\n")
				continue
			}
		}
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			break
		}
		if len(f) > 0 && f[0] == "quit" {
			break
		}
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}
