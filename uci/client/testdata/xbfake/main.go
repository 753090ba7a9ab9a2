// Command xbfake is a test helper: a scripted xboard engine that treats
// "?" as Fairy-Max 4.8 does. While it thinks it reads no input, so "?"
// never stops it; it moves when its think time is over and then answers
// each "?" it finds waiting, as it answers "?" whenever it is idle, with
// "Error (unknown command): ?".
//
//	xbfake [-think 50ms,400ms]
//
// The n-th "go" thinks for the n-th duration of -think (the last one for
// the rest), then answers "move a7a6" (the client checks only the shape).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	think := flag.String("think", "50ms", "think time of each search, comma-separated")
	flag.Parse()
	var times []time.Duration
	for s := range strings.SplitSeq(*think, ",") {
		d, err := time.ParseDuration(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "xbfake:", err)
			os.Exit(2)
		}
		times = append(times, d)
	}
	out := bufio.NewWriter(os.Stdout)
	say := func(line string) {
		out.WriteString(line + "\n")
		out.Flush()
	}
	// Input is read line by line as it comes; while thinking, lines wait
	// in the pipe, read only after the move.
	in := bufio.NewScanner(os.Stdin)
	searches := 0
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "protover":
			say(`feature myname="xbfake" ping=1 setboard=1 usermove=0 sigint=0 done=1`)
		case "ping":
			say("pong " + strings.Join(f[1:], " "))
		case "go":
			d := times[min(searches, len(times)-1)]
			searches++
			say(fmt.Sprintf("1 10 %d 100 a7a6", d.Milliseconds()/10))
			time.Sleep(d)
			say("move a7a6")
		case "?":
			say("Error (unknown command): ?")
		case "quit":
			return
		}
	}
}
