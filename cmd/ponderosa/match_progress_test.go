package main

import (
	"fmt"
	"github.com/ponderosa-chess/ponderosa/internal/testbin"
	"strings"
	"testing"
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
