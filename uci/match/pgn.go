package match

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// WritePGN writes rec as one PGN game: the seven-tag roster, SetUp/FEN for
// a non-standard start, TimeControl, PlyCount and Termination, then SAN
// moves. Book moves carry {book}; engine moves carry the score from the
// mover's view and depth (cutechess style, "+0.31/12"), the time used and,
// in timed games, the mover's clock after the move as [%clk h:mm:ss.s].
func WritePGN(w io.Writer, rec GameRecord, event string) error {
	var b strings.Builder
	tag := func(k, v string) {
		v = strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`)
		fmt.Fprintf(&b, "[%s \"%s\"]\n", k, v)
	}
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
	b.WriteString("\n")

	var line strings.Builder
	flush := func(tok string) {
		if line.Len() > 0 && line.Len()+1+len(tok) > 79 {
			b.WriteString(line.String() + "\n")
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(tok)
	}
	pos := start
	var child board.Position
	for i, pl := range rec.Plies {
		if pos.SideToMove() == board.White {
			flush(fmt.Sprintf("%d.", pos.FullmoveNumber()))
		} else if i == 0 {
			flush(fmt.Sprintf("%d...", pos.FullmoveNumber()))
		}
		flush(pos.SAN(pl.Move))
		switch {
		case pl.Book:
			flush("{book}")
		default:
			// Break lines between words, never inside the clock command.
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
			for _, word := range words {
				flush(word)
			}
		}
		pos.MakeMove(pl.Move, &child)
		pos = child
	}
	if rec.Reason != "" {
		for _, word := range strings.Fields("{" + rec.Reason + "}") {
			flush(word)
		}
	}
	flush(rec.Result.String())
	b.WriteString(line.String() + "\n\n")
	_, err := io.WriteString(w, b.String())
	return err
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
