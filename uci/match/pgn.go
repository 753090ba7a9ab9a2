package match

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/pgn"
)

// WritePGN writes rec as one PGN game (internal/pgn): the seven-tag
// roster, SetUp/FEN for a non-standard start, TimeControl, PlyCount and
// Termination, then SAN moves. Book moves carry {book}; engine moves carry
// the score from the mover's view and depth (cutechess style, "+0.31/12"),
// the time used and, in timed games, the mover's clock after the move as
// [%clk h:mm:ss.s].
func WritePGN(w io.Writer, rec GameRecord, event string) error {
	pw := pgn.NewWriter(w)
	tag := pw.Tag
	tag("Event", event)
	tag("Site", "?")
	tag("Date", rec.Started.UTC().Format("2006.01.02"))
	tag("Round", fmt.Sprint(rec.Round))
	tag("White", rec.White)
	tag("Black", rec.Black)
	tag("Result", rec.Result.String())
	start := rec.Start
	if fen := start.FEN(); fen != board.StartFEN {
		tag("SetUp", "1")
		tag("FEN", fen)
		if start.Chess960 {
			tag("Variant", "Chess960")
		}
	}
	tag("TimeControl", rec.TC.String())
	tag("PlyCount", fmt.Sprint(len(rec.Plies)))
	tag("Termination", string(rec.Termination))
	moves := make([]board.Move, len(rec.Plies))
	for i, pl := range rec.Plies {
		moves[i] = pl.Move
	}
	err := pw.Moves(start, moves, func(i int) []string {
		pl := rec.Plies[i]
		if pl.Book {
			return []string{"{book}"}
		}
		// Lines break between words, never inside the clock command.
		var words []string
		if pl.HasScore {
			words = append(words, formatScore(pl))
		}
		words = append(words, fmt.Sprintf("%.3fs", pl.Elapsed.Seconds()))
		if rec.TC.Timed() {
			words = append(words, formatClock(pl.Clock))
		}
		words[0] = "{" + words[0]
		words[len(words)-1] += "}"
		return words
	})
	if err != nil {
		return err
	}
	if rec.Reason != "" {
		for _, word := range strings.Fields("{" + rec.Reason + "}") {
			pw.Word(word)
		}
	}
	return pw.End(rec.Result.String())
}

// formatScore writes a score the cutechess way: "+0.31/12", "+M3/20", "-M2/9".
func formatScore(pl PlyInfo) string {
	var s string
	switch {
	case pl.Mate > 0:
		s = fmt.Sprintf("+M%d", pl.Mate)
	case pl.Mate < 0:
		s = fmt.Sprintf("-M%d", -pl.Mate)
	default:
		s = fmt.Sprintf("%+.2f", float64(pl.Score)/100)
	}
	if pl.Depth > 0 {
		s += fmt.Sprintf("/%d", pl.Depth)
	}
	return s
}

// formatClock writes d as a PGN clock command, "[%clk 0:00:09.6]".
func formatClock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	d = d.Round(100 * time.Millisecond)
	h := int(d / time.Hour)
	m := int(d/time.Minute) % 60
	s := d.Seconds() - float64(h*3600+m*60)
	return fmt.Sprintf("[%%clk %d:%02d:%04.1f]", h, m, s)
}
