package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/internal/filelock"
	"github.com/ponderosa-chess/ponderosa/internal/testbin"
)

// TestMatchProgressPlain: a match whose output is not a terminal prints a
// plain progress line (games, W/L/D, Elo ± interval, LLR and bounds, ETA)
// and then its summary.
func TestMatchProgressPlain(t *testing.T) {
	sf := testbin.Need(t, "/usr/games/stockfish")
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

// The live line of the NNUE tools on a terminal takes only their running
// counts; the lines that report a result stay lines of their own.
func TestToolStatusLines(t *testing.T) {
	cases := []struct {
		line string
		want bool
	}{
		{fmt.Sprintf("train: epoch %d: %d of %d positions, loss %.6f, %.0f pos/s", 3, 40000, 90000, 0.0123, 5000.0), true},
		{fmt.Sprintf("train: epoch %d: %d positions, loss %.6f, %.0f pos/s", 1, 40000, 0.0123, 5000.0), true},
		{"train: epoch 3: train loss 0.004000, validation loss 0.005000, 90000 positions in 10s (9000 pos/s), lr 0.001", false},
		{"train: epoch 0 validation loss 0.072300", false},
		{"train: 90000 records (1800 for validation), N=256, 2 threads, batch 16384, λ=0.30", false},
	}
	for _, c := range cases {
		if got := isTrainStatus(c.line); got != c.want {
			t.Errorf("isTrainStatus(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// TestMatchResume pauses a match after one pair and resumes it from its
// PGN with the same command line and a larger --games: the second run says
// what it counted, plays only the pairs left and reports the whole match.
func TestMatchResume(t *testing.T) {
	sf := testbin.Need(t, "/usr/games/stockfish")
	pgn := filepath.Join(t.TempDir(), "m.pgn")
	args := func(games string) []string {
		return []string{"match", "--engine", sf, "--engine", sf, "--name1", "one", "--name2", "two",
			"--tc", "inf", "--nodes", "300", "--option", "Hash=4", "--games", games, "--pgn", pgn, "--resume",
			"--openings", "../../uci/match/testdata/8mvs_sample.epd", "--shuffle", "--seed", "5", "--sprt", "elo0=0,elo1=5"}
	}
	out, _, err := runCmd(t, "", args("2")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(out, "Resuming") || !strings.Contains(out, "(2 games)") {
		t.Errorf("first run (no file yet) resumed something or did not play 2 games:\n%s", out)
	}
	out, _, err = runCmd(t, "", args("4")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "Resuming "+pgn+": 2 games (1 pairs) counted") || !strings.Contains(out, "from round 3") {
		t.Errorf("no resume line:\n%s", out)
	}
	if !strings.Contains(out, "Results of one vs two (4 games)") || !strings.Contains(out, "(2 pairs)") {
		t.Errorf("the summary is not the whole match's:\n%s", out)
	}
	if got := strings.Count(out, "Finished game"); got != 2 {
		t.Errorf("the resumed run played %d games, want 2", got)
	}
	data, err := os.ReadFile(pgn)
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= 4; r++ {
		if n := strings.Count(string(data), fmt.Sprintf("[Round %q]", fmt.Sprint(r))); n != 1 {
			t.Errorf("round %d is in the PGN %d times", r, n)
		}
	}
	// A second match on a record that one is writing is refused before it
	// plays: it would replay the same pairs and interleave its games.
	held, err := filelock.OpenLocked(pgn, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "", args("6")...); !errors.Is(err, filelock.ErrLocked) || !strings.Contains(err.Error(), "--pgn "+pgn) {
		t.Errorf("a match on a PGN another holds: %v, want ErrLocked naming --pgn", err)
	}
	held.Close()
	if again, err := os.ReadFile(pgn); err != nil || string(again) != string(data) {
		t.Errorf("the refused match changed the PGN (%v)", err)
	}
	// Another seed shuffles other openings: not this match.
	bad := args("6")
	bad[len(bad)-3] = "6"
	if _, _, err := runCmd(t, "", bad...); err == nil || !strings.Contains(err.Error(), "same --openings, --shuffle and --seed") {
		t.Errorf("resumed with another --seed: %v", err)
	}
	for _, c := range []struct {
		drop, want string
	}{{"--name2", "--name1 and --name2"}, {"--pgn", "--pgn file"}, {"--seed", "--seed the match began with"}} {
		var a []string
		for i := 0; i < len(args("4")); i++ {
			if x := args("4")[i]; x == c.drop {
				i++
			} else {
				a = append(a, x)
			}
		}
		if _, _, err := runCmd(t, "", a...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("without %s: %v, want an error saying %q", c.drop, err, c.want)
		}
	}
}
