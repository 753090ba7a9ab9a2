package main

import (
	"regexp"
	"testing"
)

func TestBenchOutputAndDeterminism(t *testing.T) {
	// The last line is the one OpenBench parses: "N nodes N nps".
	re := regexp.MustCompile(`(?m)^Nodes searched: (\d+)\nNodes/second: (\d+)\n(\d+) nodes (\d+) nps\n\z`)
	out1, _, err := runCmd(t, "", "bench", "--depth", "4")
	if err != nil {
		t.Fatalf("bench: %v", err)
	}
	m1 := re.FindStringSubmatch(out1)
	if m1 == nil {
		t.Fatalf("bench output does not end with the node count and speed:\n%s", out1)
	}
	if m1[3] != m1[1] || m1[4] != m1[2] {
		t.Errorf("OpenBench line %q %q differs from %q %q", m1[3], m1[4], m1[1], m1[2])
	}
	out2, _, err := runCmd(t, "", "bench", "--depth", "4", "--hash", "8")
	if err != nil {
		t.Fatalf("bench: %v", err)
	}
	m2 := re.FindStringSubmatch(out2)
	if m2 == nil || m2[1] != m1[1] {
		t.Errorf("bench node count not deterministic: %v vs %v", m1, m2)
	}
	if _, _, err := runCmd(t, "", "bench", "--depth", "0"); err == nil {
		t.Error("bench --depth 0 succeeded")
	}
}
