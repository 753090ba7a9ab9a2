package match

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// pastGame writes one game of a match between first and second the way
// Run does: round r from opening op, the first engine White in odd rounds,
// the book moves then one more move, ending with result.
func pastGame(t *testing.T, w *bytes.Buffer, r int, first, second string, op Opening, tc TimeControl, result board.Result) {
	t.Helper()
	g, err := op.Game()
	if err != nil {
		t.Fatal(err)
	}
	rec := GameRecord{Round: r, White: first, Black: second, Start: op.Start, Result: result, TC: tc,
		Termination: TermAdjudicated, Reason: "test", FirstIsWhite: r%2 == 1, Started: time.Unix(0, 0)}
	if r%2 == 0 {
		rec.White, rec.Black = second, first
	}
	for _, m := range op.Moves {
		rec.Plies = append(rec.Plies, PlyInfo{Move: m, Book: true})
	}
	pos := g.Position()
	var legal board.MoveList
	pos.GenerateLegal(&legal)
	rec.Plies = append(rec.Plies, PlyInfo{Move: legal.Moves[0], Elapsed: time.Millisecond, Clock: time.Second})
	if err := WritePGN(w, rec, "ponderosa match"); err != nil {
		t.Fatal(err)
	}
}

func sampleOpenings(t *testing.T) []Opening {
	t.Helper()
	ops, err := LoadOpenings("testdata/8moves_sample.pgn")
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestReadResume counts a stopped match's games from its PGN: W/L/D over
// every game, pentanomials over complete pairs, play going on after the
// last pair begun, whatever order the games finished in.
func TestReadResume(t *testing.T) {
	ops := sampleOpenings(t)
	tc := TimeControl{Base: 10 * time.Second, Inc: 100 * time.Millisecond}
	var pgn bytes.Buffer
	// Pair 0: A wins with White, draws with Black (1½). Pair 1: A loses
	// both (0). Pair 2: only its second game finished, a win for A.
	games := []struct {
		round  int
		result board.Result
	}{{2, board.Draw}, {1, board.WhiteWins}, {3, board.BlackWins}, {6, board.BlackWins}, {4, board.WhiteWins}}
	for _, g := range games {
		pastGame(t, &pgn, g.round, "A", "B", ops[(g.round-1)/2], tc, g.result)
	}
	r, err := ReadResume(bytes.NewReader(pgn.Bytes()), "m.pgn", [2]string{"A", "B"}, tc, ops)
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{Wins: 2, Losses: 2, Draws: 1, Penta: [5]int{1, 0, 0, 1, 0}}
	if r.Stats != want || r.NextPair != 3 {
		t.Errorf("got %+v, next pair %d; want %+v, next pair 3", r.Stats, r.NextPair, want)
	}
	if r.Terminations[TermAdjudicated] != 5 {
		t.Errorf("terminations %v", r.Terminations)
	}
	// The same file read for the engines the other way round is not this
	// match.
	if _, err := ReadResume(bytes.NewReader(pgn.Bytes()), "m.pgn", [2]string{"B", "A"}, tc, ops); err == nil {
		t.Error("names swapped: no error")
	}
	// Nothing recorded: start from the beginning.
	r, err = ReadResume(strings.NewReader(""), "empty.pgn", [2]string{"A", "B"}, tc, ops)
	if err != nil || r.NextPair != 0 || r.Stats != (Stats{}) {
		t.Errorf("empty file: %+v, %v", r, err)
	}
}

// TestReadResumeRejects: a game that does not belong to the match is an
// error naming it, never a miscount.
func TestReadResumeRejects(t *testing.T) {
	ops := sampleOpenings(t)
	tc := TimeControl{Base: 10 * time.Second, Inc: 100 * time.Millisecond}
	game := func(r int, first, second string, op Opening, tc TimeControl) string {
		var b bytes.Buffer
		pastGame(t, &b, r, first, second, op, tc, board.Draw)
		return b.String()
	}
	good := game(1, "A", "B", ops[0], tc)
	cases := []struct {
		name, pgn, want string
	}{
		{"another engine", game(1, "A", "C", ops[0], tc), "A vs C"},
		{"colours against the round", game(2, "B", "A", ops[0], tc), "A vs B, but this match's round 2 is B vs A"},
		{"time control", game(1, "A", "B", ops[0], TimeControl{Base: time.Minute}), `time control "60"`},
		{"opening", game(1, "A", "B", ops[1], tc), "does not begin with opening 1"},
		{"round twice", good + good, "round 1 appears twice"},
		{"unfinished", strings.Replace(good, `[Result "1/2-1/2"]`, `[Result "*"]`, 1), `result "*"`},
		{"no round", strings.Replace(good, `[Round "1"]`, `[Round "?"]`, 1), `Round tag "?"`},
		{"illegal move", strings.Replace(good, "1. Nf3", "1. Nf5", 1), `move "Nf5"`},
	}
	for _, c := range cases {
		_, err := ReadResume(strings.NewReader(c.pgn), "m.pgn", [2]string{"A", "B"}, tc, ops)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "resume: m.pgn:") {
			t.Errorf("%s: error %v, want one naming the game and containing %q", c.name, err, c.want)
		}
	}
}

// TestResumeRun stops a match after one pair and resumes it from its PGN:
// the second run plays only the pairs left, from their own openings and
// round numbers, and reports the whole match.
func TestResumeRun(t *testing.T) {
	ops := sampleOpenings(t)[:3]
	cfg := Config{
		Engines:    [2]EngineSpec{uciEngine("A"), uciEngine("B")},
		TC:         TimeControl{Nodes: 2000},
		Games:      2,
		Openings:   ops,
		Adjudicate: Adjudication{ResignScore: 800, ResignMoves: 2, DrawScore: 10, DrawMoves: 6, DrawAfter: 30},
	}
	_, _, first := runMatch(t, cfg)
	r, err := ReadResume(strings.NewReader(first), "first.pgn", [2]string{"A", "B"}, cfg.TC, ops)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.Games() != 2 || r.Stats.Pairs() != 1 || r.NextPair != 1 {
		t.Fatalf("after the first run: %+v", r)
	}
	cfg.Games, cfg.Resume = 6, r
	var updates []int
	cfg.Update = func(_ Result, played, planned int) {
		if planned != 6 {
			t.Errorf("planned %d games, want 6", planned)
		}
		updates = append(updates, played)
	}
	res, games, second := runMatch(t, cfg)
	if res.Stats.Games() != 6 || res.Stats.Pairs() != 3 || len(games) != 4 {
		t.Fatalf("resumed run: %+v and %d new games, want 6 games in all and 4 new", res.Stats, len(games))
	}
	if len(updates) != 4 || updates[0] != 3 || updates[3] != 6 {
		t.Errorf("played counts reported: %v, want 3..6", updates)
	}
	if strings.Contains(second, `[Round "1"]`) || strings.Contains(second, `[Round "2"]`) || !strings.Contains(second, `[Round "6"]`) {
		t.Errorf("resumed run replayed a round or skipped one:\n%s", second)
	}
	// The two files together read back as the whole match.
	all, err := ReadResume(strings.NewReader(first+second), "all.pgn", [2]string{"A", "B"}, cfg.TC, ops)
	if err != nil {
		t.Fatal(err)
	}
	if all.Stats != res.Stats || all.NextPair != 3 {
		t.Errorf("whole file: %+v, next pair %d; the run reported %+v", all.Stats, all.NextPair, res.Stats)
	}
}

// TestResumeDecided: a resumed SPRT that had already reached its verdict,
// or a match with no pair left, plays nothing (the engines, which do not
// exist here, are never started).
func TestResumeDecided(t *testing.T) {
	sprt := DefaultSPRT
	nowhere := EngineSpec{Argv: []string{"/nonexistent/engine"}}
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"verdict", Config{Games: 1000, SPRT: &sprt, Resume: Resume{Stats: Stats{Wins: 400, Penta: [5]int{0, 0, 0, 0, 200}}, NextPair: 200}}},
		{"all played", Config{Games: 4, Resume: Resume{Stats: Stats{Draws: 4, Penta: [5]int{0, 0, 2, 0, 0}}, NextPair: 2}}},
	} {
		c.cfg.Engines = [2]EngineSpec{nowhere, nowhere}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := Run(ctx, c.cfg)
		cancel()
		if err != nil || res.Stats != c.cfg.Resume.Stats {
			t.Errorf("%s: %+v, %v", c.name, res.Stats, err)
		}
		if c.name == "verdict" && res.Verdict != AcceptH1 {
			t.Errorf("verdict %v, want H1", res.Verdict)
		}
	}
}

// FuzzReadResume: the reader of a resumed match's PGN never panics, and
// whatever it accepts is a consistent tally.
func FuzzReadResume(f *testing.F) {
	f.Add("[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[TimeControl \"10+0.1\"]\n\n1. e4 1-0\n")
	f.Add("[Round \"2\"]\n[White \"B\"]\n[Black \"A\"]\n[TimeControl \"10+0.1\"]\n\n1. d4 d5 1/2-1/2\n[Round \"2\"]\n")
	f.Add("[Round \"-3\"]\n1. e4 *")
	tc := TimeControl{Base: 10 * time.Second, Inc: 100 * time.Millisecond}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ReadResume(strings.NewReader(s), "fuzz.pgn", [2]string{"A", "B"}, tc, nil)
		if err != nil {
			return
		}
		if r.Stats.Pairs()*2 > r.Stats.Games() || r.NextPair*2 < r.Stats.Games() {
			t.Fatalf("inconsistent tally %+v", r)
		}
	})
}
