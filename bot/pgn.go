package bot

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/movesource"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/pgn"
)

// pgnPlayer is one side of a game record.
type pgnPlayer struct {
	Name, Title string
	Rating      int // 0 = unknown
}

// gameRecord is what a PGN file says about a finished game.
type gameRecord struct {
	ID, Site     string
	Start        time.Time
	White, Black pgnPlayer
	Rated        bool
	Speed        string // Lichess speed
	Variant      string // Lichess variant key
	// Start is the position the game started from; StartFEN is "" for the
	// standard start.
	StartPos board.Position
	StartFEN string
	// Timed reports a real-time clock of Base+Increment.
	Timed           bool
	Base, Increment time.Duration
	Moves           []board.Move
	// Clocks[i] is the mover's remaining time after move i, or -1 when the
	// bot did not see it; it may be shorter than Moves.
	Clocks []time.Duration
	// Notes[i] is the comment on move i ("" none): for our moves, where
	// the move came from and the engine's evaluation (moveNote); it may be
	// shorter than Moves.
	Notes []string
	// Status is the Lichess status name; Winner "white", "black" or "".
	Status, Winner string
}

// result returns the PGN result of the record.
func (r *gameRecord) result() string {
	switch r.Winner {
	case "white":
		return "1-0"
	case "black":
		return "0-1"
	}
	switch r.Status {
	case "draw", "stalemate", "outoftime", "timeout", "insufficientMaterialClaim":
		return "1/2-1/2"
	}
	return "*"
}

// termination returns the PGN Termination tag of the record.
func (r *gameRecord) termination() string {
	switch r.Status {
	case "mate", "resign", "draw", "stalemate", "insufficientMaterialClaim", "variantEnd":
		return "Normal"
	case "outoftime":
		return "Time forfeit"
	case "timeout", "noStart", "aborted":
		return "Abandoned"
	case "cheat":
		return "Rules infraction"
	}
	return "Unterminated"
}

// pgnVariant names the variant in the PGN Variant tag, "" for standard.
func pgnVariant(key string) string {
	switch key {
	case "chess960":
		return "Chess960"
	case "fromPosition":
		return "From Position"
	case "standard", "":
		return ""
	}
	return key
}

// writePGN writes the record as PGN (internal/pgn), SAN moves with a
// comment holding the %clk clock and the move's note (a long comment is
// broken between its words, never inside a command).
func writePGN(w io.Writer, r *gameRecord) error {
	pw := pgn.NewWriter(w)
	tag := pw.Tag
	mode := "Casual"
	if r.Rated {
		mode = "Rated"
	}
	speed := r.Speed
	if speed == "" {
		speed = "correspondence"
	}
	start := r.Start.UTC()
	tag("Event", fmt.Sprintf("%s %s game", mode, speed))
	tag("Site", r.Site)
	tag("Date", start.Format("2006.01.02"))
	tag("Round", "-")
	tag("White", nameOr(r.White.Name))
	tag("Black", nameOr(r.Black.Name))
	res := r.result()
	tag("Result", res)
	tag("GameId", r.ID)
	tag("UTCDate", start.Format("2006.01.02"))
	tag("UTCTime", start.Format("15:04:05"))
	for _, p := range []struct {
		side string
		p    pgnPlayer
	}{{"White", r.White}, {"Black", r.Black}} {
		if p.p.Rating > 0 {
			tag(p.side+"Elo", strconv.Itoa(p.p.Rating))
		}
		if p.p.Title != "" {
			tag(p.side+"Title", p.p.Title)
		}
	}
	if r.Timed {
		tag("TimeControl", fmt.Sprintf("%d+%d", int(r.Base/time.Second), int(r.Increment/time.Second)))
	} else {
		tag("TimeControl", "-")
	}
	if v := pgnVariant(r.Variant); v != "" {
		tag("Variant", v)
	}
	if r.StartFEN != "" {
		tag("FEN", r.StartFEN)
		tag("SetUp", "1")
	}
	tag("Termination", r.termination())
	err := pw.Moves(r.StartPos, r.Moves, func(i int) []string {
		var comment []string
		if i < len(r.Clocks) && r.Clocks[i] >= 0 {
			comment = append(comment, "[%clk "+clk(r.Clocks[i])+"]")
		}
		if i < len(r.Notes) && r.Notes[i] != "" {
			// A note never closes the comment early.
			comment = append(comment, strings.NewReplacer("{", "(", "}", ")").Replace(r.Notes[i]))
		}
		if len(comment) == 0 {
			return nil
		}
		// Commands stay whole; the note may break between its words.
		words := []string{"{"}
		for _, c := range comment {
			words = append(words, commentTokens(c)...)
		}
		return append(words, "}")
	})
	if err != nil {
		return err
	}
	return pw.End(res)
}

func nameOr(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// clk formats a clock as H:MM:SS (tenths when under a minute is not part of
// the %clk convention, so seconds are truncated).
func clk(d time.Duration) string {
	s := int(d / time.Second)
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
}

// savePGN writes the record to dir/<id>.pgn, creating dir if needed, through
// a temporary file so that a crash never leaves half a record, and syncs
// the file before the rename and the directory after it, so that a power
// loss leaves either no record or the whole one.
func savePGN(dir string, r *gameRecord) (string, error) {
	return writeDurably(dir, safeID(r.ID)+".pgn", func(w io.Writer) error { return writePGN(w, r) }, (*os.File).Sync)
}

// writeDurably writes dir/name through a temporary file: write, sync the
// file, rename it into place, sync the directory (sync is (*os.File).Sync
// but for tests).
func writeDurably(dir, name string, write func(io.Writer) error, sync func(*os.File) error) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("pgn: %w", err)
	}
	path := filepath.Join(dir, name)
	f, err := os.CreateTemp(dir, ".pgn-*")
	if err != nil {
		return "", fmt.Errorf("pgn: %w", err)
	}
	defer os.Remove(f.Name()) // no-op after the rename
	if err := write(f); err != nil {
		f.Close()
		return "", err
	}
	if err := sync(f); err != nil {
		f.Close()
		return "", fmt.Errorf("pgn: sync: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("pgn: %w", err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return "", fmt.Errorf("pgn: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return "", fmt.Errorf("pgn: %w", err)
	}
	// The rename is only durable once the directory entry is.
	d, err := os.Open(dir)
	if err != nil {
		return "", fmt.Errorf("pgn: %w", err)
	}
	defer d.Close()
	if err := sync(d); err != nil {
		return "", fmt.Errorf("pgn: sync %s: %w", dir, err)
	}
	return path, nil
}

// safeID keeps a game id usable as a file name.
func safeID(id string) string {
	var b strings.Builder
	for _, c := range id {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return "game"
	}
	return b.String()
}

// moveNote is the PGN comment on one of our moves: an engine move's
// evaluation as [%eval score,depth] (the form Lichess, python-chess and
// ChessBase read: pawns from White's side, "#n" a mate in n moves, "#-n"
// Black mates) followed by where the move came from, e.g.
// "[%eval 0.35,18] engine", "tablebase: win, DTM 13",
// "[%eval -0.20,36] cloud: ...", "explorer: 1234 games", "book", "forced".
// whiteToMove is the side that played the move.
func moveNote(source string, res Answer, src *movesource.Answer, whiteToMove bool) string {
	var parts []string
	switch {
	case src != nil && src.Eval != nil:
		parts = append(parts, pgnEval(src.Eval.CP, src.Eval.Mate, src.Eval.Depth))
	case src == nil && (res.Depth > 0 || res.Nodes > 0):
		cp, mate := scoreCP(res.Score)
		if !whiteToMove {
			cp, mate = -cp, -mate
		}
		parts = append(parts, pgnEval(cp, mate, res.Depth))
	}
	text := source
	if src != nil && src.Note != "" {
		text += ": " + src.Note
	}
	return strings.Join(append(parts, text), " ")
}

// pgnEval writes [%eval] from White's point of view: cp in pawns with two
// decimals, or #n when mate is not 0 (mate in n moves, negative: Black
// mates), then the depth when there is one.
func pgnEval(cp, mate, depth int) string {
	score := ""
	if mate != 0 {
		score = fmt.Sprintf("#%d", mate)
	} else {
		sign := ""
		if cp < 0 {
			sign, cp = "-", -cp
		}
		score = fmt.Sprintf("%s%d.%02d", sign, cp/100, cp%100)
	}
	if depth <= 0 {
		return fmt.Sprintf("[%%eval %s]", score) // a source without a depth (ChessDB)
	}
	return fmt.Sprintf("[%%eval %s,%d]", score, depth)
}

// commentTokens splits a comment into the words a line may break between:
// an embedded command ("[%eval 0.35,18]") is one word.
func commentTokens(c string) []string {
	var out []string
	for {
		c = strings.TrimLeft(c, " \t\n")
		if c == "" {
			return out
		}
		end := strings.IndexAny(c, " \t\n")
		if strings.HasPrefix(c, "[%") {
			if i := strings.IndexByte(c, ']'); i > 0 {
				end = i + 1
			}
		}
		if end < 0 {
			end = len(c)
		}
		out = append(out, c[:end])
		c = c[end:]
	}
}
