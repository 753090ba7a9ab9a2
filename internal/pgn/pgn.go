// Package pgn writes games in PGN's export form: the tag pairs, a blank
// line, then the movetext (SAN moves with move numbers, comments after
// their moves, the result) in lines of at most 80 characters, broken only
// between words. The bot's game records and uci/match's games both write
// through it; each says what goes into its tags and comments. It also
// reads PGN (Scan): each game's tags, main-line moves and the comments
// after them, for uci/match's books and --resume and for NNUE data.
package pgn

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// LineWidth is the longest movetext line written.
const LineWidth = 80

// Writer writes one game; make one per game.
type Writer struct {
	b    *bufio.Writer
	line int // characters on the current movetext line
}

// NewWriter returns a Writer of one game to w.
func NewWriter(w io.Writer) *Writer { return &Writer{b: bufio.NewWriter(w)} }

var escape = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// Tag writes a tag pair, its value escaped.
func (w *Writer) Tag(name, value string) {
	fmt.Fprintf(w.b, "[%s \"%s\"]\n", name, escape.Replace(value))
}

// Moves ends the tags and writes the moves from start in SAN, a move number
// before each White move ("N..." when Black moves first), and after move i
// the words comment(i) returns (none when it returns nil). It fails on an
// illegal move, having written the moves before it.
func (w *Writer) Moves(start board.Position, moves []board.Move, comment func(i int) []string) error {
	w.b.WriteString("\n")
	pos := start
	var next board.Position
	for i, m := range moves {
		if pos.SideToMove() == board.White {
			w.Word(fmt.Sprintf("%d.", pos.FullmoveNumber()))
		} else if i == 0 {
			w.Word(fmt.Sprintf("%d...", pos.FullmoveNumber()))
		}
		if !pos.IsLegal(m) {
			return fmt.Errorf("pgn: move %d (%v) is illegal in %s", i+1, m, pos.FEN())
		}
		w.Word(pos.SAN(m))
		for _, c := range comment(i) {
			w.Word(c)
		}
		pos.MakeMove(m, &next)
		pos = next
	}
	return nil
}

// Word writes one word of movetext, on a new line when it would make the
// line longer than LineWidth.
func (w *Writer) Word(s string) {
	if w.line > 0 && w.line+1+len(s) > LineWidth {
		w.b.WriteString("\n")
		w.line = 0
	}
	if w.line > 0 {
		w.b.WriteString(" ")
		w.line++
	}
	w.b.WriteString(s)
	w.line += len(s)
}

// End writes the result and the blank line that ends the game, and flushes.
func (w *Writer) End(result string) error {
	w.Word(result)
	w.b.WriteString("\n\n")
	return w.b.Flush()
}
