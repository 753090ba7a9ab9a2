package pgn

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func scanAll(t *testing.T, text string) []Game {
	t.Helper()
	var gs []Game
	if err := Scan(strings.NewReader(text), "test.pgn", func(g Game) error {
		gs = append(gs, g)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return gs
}

// TestScanReadsWhatTheWriterWrites: the tags, every move and the comment
// after it come back from a game the Writer wrapped over many lines, with
// comments that the wrapping split.
func TestScanReadsWhatTheWriterWrites(t *testing.T) {
	start := board.StartPosition()
	ms := moves(t, start, "e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6",
		"c1e3", "e7e5", "d4b3", "c8e6", "f2f3", "f8e7", "d1d2", "e8g8", "e1c1", "b8d7")
	note := func(i int) string {
		return fmt.Sprintf("%+.2f/%d %.3fs [%%clk 0:00:0%d.%d]", float64(i*7-30)/100, 10+i, 0.1*float64(i), i%10, i%7)
	}
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Tag("White", "net7")
	w.Tag("Black", `a "quoted" name`)
	err := w.Moves(start, ms, func(i int) []string {
		if i == 4 {
			return nil // a move with no comment
		}
		return strings.Fields("{" + note(i) + "}")
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.End("1-0"); err != nil {
		t.Fatal(err)
	}
	w = NewWriter(&b)
	w.Tag("White", "second")
	if err := w.Moves(start, ms[:1], func(int) []string { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := w.End("*"); err != nil {
		t.Fatal(err)
	}
	split := false // some comment is broken over two lines
	for _, l := range strings.Split(b.String(), "\n") {
		split = split || strings.Count(l, "{") > strings.Count(l, "}")
	}
	if !split {
		t.Fatalf("no comment is broken over lines; the test wants one:\n%s", b.String())
	}

	gs := scanAll(t, b.String())
	if len(gs) != 2 {
		t.Fatalf("%d games, want 2", len(gs))
	}
	g := gs[0]
	if g.Tags["White"] != "net7" || g.Tags["Black"] != `a "quoted" name` || g.Result != "1-0" || g.Line != 1 {
		t.Errorf("tags %v, result %q, line %d", g.Tags, g.Result, g.Line)
	}
	if len(g.SANs) != len(ms) || len(g.Comments) != len(ms) {
		t.Fatalf("%d moves and %d comments, want %d", len(g.SANs), len(g.Comments), len(ms))
	}
	pos := start
	for i, m := range ms {
		if want := pos.SAN(m); g.SANs[i] != want {
			t.Errorf("move %d: %q, want %q", i+1, g.SANs[i], want)
		}
		want := note(i)
		if i == 4 {
			want = ""
		}
		if g.Comments[i] != want {
			t.Errorf("comment %d: %q, want %q", i+1, g.Comments[i], want)
		}
		var next board.Position
		pos.MakeMove(m, &next)
		pos = next
	}
	if g2 := gs[1]; g2.Tags["White"] != "second" || len(g2.SANs) != 1 || g2.Comments[0] != "" || g2.Result != "*" {
		t.Errorf("second game: %+v", g2)
	}
}

// TestScanComments: a comment joins the move before it; several join with
// a space; comments before the first move, inside variations and after a
// semicolon-less NAG are placed as PGN means them; a multi-line comment is
// one comment.
func TestScanComments(t *testing.T) {
	text := `[Event "x"]

{before any move} 1. e4 {first} {second} $1 e5 (1... c5 {in a variation} 2. Nf3) 2. Nf3 ; to the end
{of the
line
break} Nc6 3. Bb5 1/2-1/2
`
	gs := scanAll(t, text)
	if len(gs) != 1 {
		t.Fatalf("%d games", len(gs))
	}
	g := gs[0]
	wantSAN := []string{"e4", "e5", "Nf3", "Nc6", "Bb5"}
	wantC := []string{"first second", "", "to the end of the line break", "", ""}
	if strings.Join(g.SANs, ",") != strings.Join(wantSAN, ",") {
		t.Errorf("moves %q, want %q", g.SANs, wantSAN)
	}
	if strings.Join(g.Comments, "|") != strings.Join(wantC, "|") {
		t.Errorf("comments %q, want %q", g.Comments, wantC)
	}
	if g.Result != "1/2-1/2" {
		t.Errorf("result %q", g.Result)
	}
}

// TestScanStopsAtYieldsError: yield's error ends the scan and comes back as
// it is.
func TestScanStopsAtYieldsError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Scan(strings.NewReader("1. e4 *\n\n1. d4 *\n"), "x", func(Game) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d games", err, n)
	}
}

// FuzzScan: the reader never panics, and every game has one comment slot
// per move.
func FuzzScan(f *testing.F) {
	f.Add("[White \"a\"]\n\n1. e4 {x} e5 (1... c5 {y}) 2. Nf3 ; z\n{multi\nline} 1-0\n")
	f.Add("{unclosed\n1. e4")
	f.Add("1. e4 )) (( } {")
	f.Fuzz(func(t *testing.T, s string) {
		_ = Scan(strings.NewReader(s), "fuzz", func(g Game) error {
			if len(g.Comments) != len(g.SANs) {
				t.Fatalf("%d comments for %d moves", len(g.Comments), len(g.SANs))
			}
			return nil
		})
	})
}

// TestGameStart: the FEN tag's position, else the standard one; Chess960
// castling by the Variant tag; a bad FEN tag is an error that says so.
func TestGameStart(t *testing.T) {
	fen := "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1"
	g := scanAll(t, "[Variant \"Chess960\"]\n[FEN \""+fen+"\"]\n\n1. e4 *\n")[0]
	pos, err := g.Start()
	if err != nil || !strings.HasPrefix(pos.FEN(), fen[:strings.Index(fen, " w ")+3]) || !pos.Chess960 {
		t.Errorf("Chess960 start: %s (Chess960 %v), %v", pos.FEN(), pos.Chess960, err)
	}
	if pos, err := (Game{Tags: map[string]string{}}).Start(); err != nil || pos.FEN() != board.StartFEN || pos.Chess960 {
		t.Errorf("no tags: %s, %v", pos.FEN(), err)
	}
	if _, err := (Game{Tags: map[string]string{"FEN": "8/8/8 w - - 0 1"}}).Start(); err == nil || !strings.Contains(err.Error(), "FEN tag") {
		t.Errorf("bad FEN tag: %v", err)
	}
}
