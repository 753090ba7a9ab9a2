package bot

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/movesource"
	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

func playUCI(t *testing.T, start board.Position, moves ...string) []board.Move {
	t.Helper()
	g := board.NewGame(start)
	for _, s := range moves {
		if err := g.PlayUCI(s); err != nil {
			t.Fatal(err)
		}
	}
	return g.Moves()
}

func TestWritePGN(t *testing.T) {
	start := board.StartPosition()
	r := &gameRecord{
		ID: "abcd1234", Site: "https://lichess.org/abcd1234",
		Start: time.Date(2026, 11, 23, 1, 2, 3, 0, time.UTC),
		White: pgnPlayer{Name: "PonderBot", Title: "BOT", Rating: 2000},
		Black: pgnPlayer{Name: "alice", Rating: 1500},
		Rated: true, Speed: "blitz", Variant: "standard", StartPos: start,
		Timed: true, Base: 3 * time.Minute, Increment: 2 * time.Second,
		Moves:  playUCI(t, start, "e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"),
		Clocks: []time.Duration{180 * time.Second, 179500 * time.Millisecond, -1, 3725 * time.Second},
		Status: "mate", Winner: "white",
	}
	var b strings.Builder
	if err := writePGN(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`[Event "Rated blitz game"]`, `[Result "1-0"]`, `[WhiteElo "2000"]`, `[WhiteTitle "BOT"]`,
		`[TimeControl "180+2"]`, `[Termination "Normal"]`, `[Date "2026.11.23"]`, `[UTCTime "01:02:03"]`,
		"1. e4 { [%clk 0:03:00] } e5 { [%clk 0:02:59] } 2. Bc4 Nc6 { [%clk 1:02:05] } 3. Qh5 Nf6 4. Qxf7# 1-0",
	} {
		if !strings.Contains(strings.ReplaceAll(out, "\n", " "), want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "Variant") || strings.Contains(out, "SetUp") {
		t.Errorf("standard game with variant tags:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 80 {
			t.Errorf("line longer than 80: %q", l)
		}
	}
}

func TestWritePGNFromPosition960(t *testing.T) {
	// A Chess960 start with black to move after a FEN, castling king-takes-rook.
	fen := "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 9"
	start, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	start.Chess960 = true
	r := &gameRecord{ID: "x", Variant: "chess960", Speed: "bullet", StartPos: start, StartFEN: fen,
		Moves: playUCI(t, start, "e1g1", "e8g8"), Status: "draw"}
	var b strings.Builder
	if err := writePGN(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`[Variant "Chess960"]`, `[FEN "` + fen + `"]`, `[SetUp "1"]`, `[Result "1/2-1/2"]`,
		`[Event "Casual bullet game"]`, "9. O-O O-O 1/2-1/2", `[TimeControl "-"]`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestPGNBlackFirstAndLongGame(t *testing.T) {
	start, err := board.ParseFEN("4k3/8/8/8/8/8/8/R3K3 b - - 0 40")
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for range 30 {
		moves = append(moves, "e8d8", "a1a2", "d8e8", "a2a1")
	}
	moves = moves[:7]
	r := &gameRecord{ID: "y", StartPos: start, StartFEN: start.FEN(), Moves: playUCI(t, start, moves...), Status: "aborted"}
	var b strings.Builder
	if err := writePGN(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "40... Kd8 41. Ra2 Ke8 42. Ra1") || !strings.Contains(b.String(), `[Result "*"]`) {
		t.Errorf("got\n%s", b.String())
	}
	// An illegal move is an error, not a panic.
	r.Moves = append(r.Moves, board.NewMove(board.A1, board.H8))
	if err := writePGN(&b, r); err == nil {
		t.Error("no error for an illegal move")
	}
}

func TestSavePGN(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	start := board.StartPosition()
	r := &gameRecord{ID: "../Ab1!", StartPos: start, Moves: playUCI(t, start, "d2d4"), Status: "resign", Winner: "black"}
	name, err := savePGN(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(name) != "Ab1.pgn" || filepath.Dir(name) != dir {
		t.Errorf("name %q", name)
	}
	data, err := os.ReadFile(name)
	if err != nil || !strings.Contains(string(data), "1. d4 0-1") {
		t.Errorf("%v %s", err, data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
}

// TestSavePGNSyncs: the record is synced before the rename and the
// directory after it (issue 13: a power loss could keep the rename but
// lose the data, or lose the file).
func TestSavePGNSyncs(t *testing.T) {
	dir := t.TempDir()
	var log []string
	sync := func(f *os.File) error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if st.IsDir() {
			_, err := os.Stat(filepath.Join(dir, "g.pgn"))
			log = append(log, fmt.Sprintf("dir renamed=%v", err == nil))
		} else {
			log = append(log, fmt.Sprintf("file %d bytes", st.Size()))
		}
		return f.Sync()
	}
	if _, err := writeDurably(dir, "g.pgn", func(w io.Writer) error { _, err := io.WriteString(w, "1. e4 *\n"); return err }, sync); err != nil {
		t.Fatal(err)
	}
	if want := []string{"file 8 bytes", "dir renamed=true"}; !slices.Equal(log, want) {
		t.Errorf("syncs %q, want %q", log, want)
	}
	// A failed sync is an error, and leaves no file behind.
	failing := func(*os.File) error { return errors.New("disk gone") }
	if _, err := writeDurably(dir, "h.pgn", func(w io.Writer) error { return nil }, failing); err == nil {
		t.Error("no error from a failed sync")
	}
	if _, err := os.Stat(filepath.Join(dir, "h.pgn")); err == nil {
		t.Error("a record whose sync failed was renamed into place")
	}
}

func TestResultAndTermination(t *testing.T) {
	for _, tc := range []struct{ status, winner, res, term string }{
		{"mate", "black", "0-1", "Normal"},
		{"outoftime", "white", "1-0", "Time forfeit"},
		{"outoftime", "", "1/2-1/2", "Time forfeit"},
		{"timeout", "white", "1-0", "Abandoned"},
		{"aborted", "", "*", "Abandoned"},
		{"started", "", "*", "Unterminated"},
	} {
		r := gameRecord{Status: tc.status, Winner: tc.winner}
		if r.result() != tc.res || r.termination() != tc.term {
			t.Errorf("%s/%s: %s %s", tc.status, tc.winner, r.result(), r.termination())
		}
	}
}

// TestPGNNotes: our moves' comments say where each came from, engine moves
// with [%eval score,depth] from White's side; a long note breaks between
// words, never inside a command or past 80 characters, and a brace in a
// note cannot end the comment.
func TestPGNNotes(t *testing.T) {
	start := board.StartPosition()
	long := strings.Repeat("word ", 30)
	r := &gameRecord{ID: "n", StartPos: start, Status: "resign", Winner: "white",
		Moves:  playUCI(t, start, "e2e4", "e7e5", "g1f3", "b8c6", "f1b5"),
		Clocks: []time.Duration{time.Minute, time.Minute, 59 * time.Second},
		Notes:  []string{"book", "", "[%eval 0.35,18] engine", "", "explorer: 12 games {x} " + long},
	}
	var b strings.Builder
	if err := writePGN(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"1. e4 { [%clk 0:01:00] book } e5 { [%clk 0:01:00] }",
		"2. Nf3 { [%clk 0:00:59] [%eval 0.35,18] engine } Nc6",
		"3. Bb5 { explorer: 12 games (x) word",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 80 || strings.HasSuffix(l, "[%eval") || strings.HasSuffix(l, "[%clk") {
			t.Errorf("bad line %q", l)
		}
	}
	if strings.Count(out, "{") != strings.Count(out, "}") {
		t.Errorf("unbalanced braces:\n%s", out)
	}
}

// TestMoveNote: the evaluation is White's: Black's +1.20 is -1.20; mates
// are #n; sources say what they said.
func TestMoveNote(t *testing.T) {
	res := Answer{Result: engine.Result{Score: 120, Depth: 14, Nodes: 1000}, Source: sourceEngine}
	for _, tc := range []struct {
		got, want string
	}{
		{moveNote(sourceEngine, res, nil, true), "[%eval 1.20,14] engine"},
		{moveNote(sourceEngine, res, nil, false), "[%eval -1.20,14] engine"},
		{moveNote(sourceEngine, Answer{Result: engine.Result{Score: engine.MateScore - 5, Depth: 9, Nodes: 1}}, nil, false), "[%eval #-3,9] engine"},
		{moveNote("tablebase", Answer{}, &movesource.Answer{Source: "tablebase", Note: "win, DTM 7"}, true), "tablebase: win, DTM 7"},
		{moveNote("cloud", Answer{}, &movesource.Answer{Source: "cloud", Note: "-0.05 (White's view) at depth 40", Eval: &movesource.Eval{CP: -5, Depth: 40}}, false),
			"[%eval -0.05,40] cloud: -0.05 (White's view) at depth 40"},
		{moveNote(sourceBook, Answer{Source: sourceBook}, nil, true), "book"},
		{moveNote("chessdb", Answer{}, &movesource.Answer{Source: "chessdb", Note: "+0.35", Eval: &movesource.Eval{CP: -35}}, false),
			"[%eval -0.35] chessdb: +0.35"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestPGNRecordsBecomeTrainingData: the bot's game records are data for
// `ponderosa pgndata`: its moves' [%eval] notes, written from White's
// point of view, come back as each position's score, whichever side the
// bot played; the opponent's moves and unscored notes give nothing.
func TestPGNRecordsBecomeTrainingData(t *testing.T) {
	start := board.StartPosition()
	res := func(cp int) Answer {
		return Answer{Result: engine.Result{Score: engine.Score(cp), Depth: 15, Nodes: 1}}
	}
	r := &gameRecord{ID: "data", StartPos: start, Status: "resign", Winner: "black",
		White: pgnPlayer{Name: "alice"}, Black: pgnPlayer{Name: "PonderBot"},
		Moves:  playUCI(t, start, "e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6"),
		Clocks: []time.Duration{time.Minute, time.Minute, time.Minute, time.Minute},
		// The bot is Black: its engine's scores are its own point of view.
		Notes: []string{"", moveNote(sourceEngine, res(-20), nil, false), "", moveNote(sourceBook, Answer{Source: sourceBook}, nil, false),
			"", moveNote(sourceEngine, res(15), nil, false), "", moveNote(sourceEngine, res(-40), nil, false)},
	}
	var b strings.Builder
	if err := writePGN(&b, r); err != nil {
		t.Fatal(err)
	}
	var got []int16
	st, err := nnuedata.FromPGN(strings.NewReader(b.String()), "bot.pgn", nnuedata.PGNOptions{Players: []string{"PonderBot"}, MinDepth: 1},
		func(rec *nnuedata.Record) error {
			if rec.STM != board.Black || rec.Result != nnuedata.BlackWin {
				t.Errorf("record %s: side to move %v, result %d", rec.FEN(), rec.STM, rec.Result)
			}
			got = append(got, rec.Score)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	// 1... c5 at -0.20 for Black is +20 for White; 3... cxd4 is a capture;
	// 4... Nf6 at -0.40 is +40.
	if want := []int16{20, 40}; st.Positions != 2 || !slices.Equal(got, want) {
		t.Errorf("scores %v (%+v), want %v, from\n%s", got, st, want, b.String())
	}
}
