package client

import (
	"strings"
	"testing"
)

// FuzzEngineLines feeds one line of engine output to every parser of
// engine output: none may panic, and what they accept must be sane.
func FuzzEngineLines(f *testing.F) {
	for _, s := range []string{
		"info depth 12 seldepth 18 multipv 1 score cp 31 nodes 123456 nps 1000000 hashfull 12 time 123 pv e2e4 e7e5",
		"info depth 3 score mate -2 lowerbound pv a1a2",
		"info string NNUE evaluation using nn-ad9b42354671.nnue enabled",
		"info currmove e2e4 currmovenumber 1",
		"option name Hash type spin default 16 min 1 max 33554432",
		"option name Analysis Contempt type combo default Both var Off var White var Black var Both",
		`feature myname="Fairy-Max 5.0b" setboard=0 ping=1 done=0`,
		`feature option="Resign Threshold -spin 800 200 1200" option="Ini File -file /x y"`,
		`Variant fairy selects -combo *FIDE-Clobberers /// Clobberers-FIDE`,
		" 10&    -31     152    123456 e2e4 e7e5 g1f3",
		"4 100003 5 1000 Qh5 Nc6 Qxf7#",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		fields := strings.Fields(line)
		if len(fields) > 0 && fields[0] == "info" {
			fields = fields[1:]
		}
		if in, err := ParseUCIInfo(fields); err == nil && in.Mate != 0 && in.CP != 0 {
			t.Fatalf("a mate and a centipawn score at once: %+v", in)
		}
		if len(fields) > 0 && fields[0] == "option" {
			fields = fields[1:]
		}
		if o, ok := parseUCIOption(fields); ok && o.Name == "" {
			t.Fatal("an option without a name")
		}
		_ = parseFeatures(strings.TrimPrefix(line, "feature "))
		if o, ok := parseXBoardOption(line); ok && o.Name == "" {
			t.Fatal("an xboard option without a name")
		}
		if in, ok := parseThinking(strings.Fields(line)); ok && in.Depth <= 0 {
			t.Fatalf("thinking with depth %d", in.Depth)
		}
		_ = validMove(line)
	})
}
