package uci_test

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// TestCEGOSession plays the opening of the CEGO document's example with the
// engine as player 2, then a few moves more, checking every reply is a
// legal move in long algebraic notation.
func TestCEGOSession(t *testing.T) {
	p := start(t, "cego")
	got := p.until(5*time.Second, "ready", func(string) bool { return true })
	if got[0] != "ready" {
		t.Fatalf("first line %q, want ready", got[0])
	}
	g := board.NewGame(board.StartPosition())
	if err := g.PlayUCI("e2e4"); err != nil {
		t.Fatal(err)
	}
	pos := g.Position()
	p.send("3000000000 100000000 2600000000 100000000 " + pos.FEN())
	ours := 3 * time.Second
	for i := range 4 {
		line := p.until(10*time.Second, "a move", func(string) bool { return true })[0]
		pos := g.Position()
		m, err := pos.ParseUCIMove(line)
		if err != nil || pos.UCI(m) != line {
			t.Fatalf("reply %d %q is not a legal move in %s: %v", i, line, pos.FEN(), err)
		}
		g.Play(m)
		// Answer with our own legal move (the first one generated).
		pos = g.Position()
		var l board.MoveList
		pos.GenerateLegal(&l)
		reply := pos.UCI(l.Moves[0])
		g.Play(l.Moves[0])
		ours -= 100 * time.Millisecond
		p.send(strings.Join([]string{strconv.FormatInt(int64(ours), 10), "2500000000", reply}, " "))
	}
	p.until(10*time.Second, "a move", func(string) bool { return true })
	p.stdin.Close()
	if err := p.waitExit(5 * time.Second); err != nil {
		t.Errorf("exit after input closed: %v", err)
	}
}

// TestCEGOMalformed checks that every malformed message ends the engine
// with a non-zero status and a reason on standard error.
func TestCEGOMalformed(t *testing.T) {
	first := "1000000000 0 1000000000 0 " + board.StartFEN + "\n"
	cases := map[string]string{
		"garbage first":       "hello\n",
		"negative time":       "-1 0 1000000000 0 " + board.StartFEN + "\n",
		"two spaces":          "1000000000  0 1000000000 0 " + board.StartFEN + "\n",
		"bad fen":             "1000000000 0 1000000000 0 rnbqkbnr/pppppppp/8/8 w KQkq - 0 1\n",
		"illegal reply":       first + "900000000 900000000 e2e4\n",
		"bad next":            first + "900000000 e7e5\n",
		"upper-case move":     first + "900000000 900000000 E7E5\n",
		"no final newline":    first + "900000000 900000000 e7e5",
		"uci command":         "uci\n",
		"trailing space":      "1000000000 0 1000000000 0 " + board.StartFEN + " \n",
		"first message again": first + first,
	}
	for name, input := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(binary, "cego")
			cmd.Stdin = strings.NewReader(input)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if err == nil {
				t.Fatalf("exit status 0; stdout %q", stdout.String())
			}
			if !strings.Contains(stderr.String(), "cego") {
				t.Errorf("stderr gives no reason: %q", stderr.String())
			}
			if !strings.HasPrefix(stdout.String(), "ready\n") {
				t.Errorf("stdout %q does not start with ready", stdout.String())
			}
		})
	}
}
