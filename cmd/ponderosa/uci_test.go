package main

import (
	"errors"
	"strings"
	"testing"
)

func TestUCIDefaultCommand(t *testing.T) {
	for _, args := range [][]string{nil, {"uci"}} {
		out, _, err := runCmd(t, "uci\nisready\nposition startpos\ngo depth 2\n", args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, want := range []string{"id name Ponderosa", "uciok", "readyok", "bestmove "} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
	}
}

func TestCEGOCommandMalformed(t *testing.T) {
	out, _, err := runCmd(t, "nonsense\n", "cego")
	if err == nil || !strings.Contains(err.Error(), "cego") {
		t.Errorf("err = %v, want a cego error", err)
	}
	if out != "ready\n" {
		t.Errorf("stdout %q", out)
	}
}

func TestMatchFlagErrors(t *testing.T) {
	cases := [][]string{
		{"match"},
		{"match", "--engine", "/bin/true"},
		{"match", "--engine", "a", "--engine", "b", "--engine", "c"},
		{"match", "--engine", "'unterminated", "--engine", "b"},
		{"match", "--engine", "a", "--engine", "b", "--option1", "novalue"},
	}
	for _, args := range cases {
		if _, _, err := runCmd(t, "", args...); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
	bad := [][]string{
		{"match", "--engine", "a", "--engine", "b", "--tc", "fast"},
		{"match", "--engine", "a", "--engine", "b", "--tc", "inf"},
		{"match", "--engine", "a", "--engine", "b", "--sprt", "elo0=5,elo1=0"},
		{"match", "--engine", "a", "--engine", "b", "--resign", "1000"},
		{"match", "--engine", "a", "--engine", "b", "--openings", "/nonexistent.epd"},
	}
	for _, args := range bad {
		if _, _, err := runCmd(t, "", args...); err == nil || errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want a descriptive error", args, err)
		}
	}
}
