package match

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/pgn"
)

// Opening is a start position plus the book moves played from it before
// the engines take over.
type Opening struct {
	Start board.Position
	Moves []board.Move
	// Source says where the opening came from ("book.epd:12"), for messages.
	Source string
}

// Game returns a new board.Game with the opening played.
func (o Opening) Game() (*board.Game, error) {
	g := board.NewGame(o.Start)
	for _, m := range o.Moves {
		if err := g.Play(m); err != nil {
			return nil, fmt.Errorf("opening %s: %w", o.Source, err)
		}
	}
	return g, nil
}

// LoadOpenings reads an opening file: EPD/FEN lines, or PGN games when the
// name ends in ".pgn".
func LoadOpenings(path string) ([]Opening, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("openings: %w", err)
	}
	defer f.Close()
	var ops []Opening
	if strings.HasSuffix(strings.ToLower(path), ".pgn") {
		ops, err = ReadPGN(f, path)
	} else {
		ops, err = ReadEPD(f, path)
	}
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("openings: %s holds no positions", path)
	}
	return ops, nil
}

// ReadEPD reads one position per line: a FEN (4 or 6 fields) optionally
// followed by EPD operations ("hmvc 3; fmvn 9; id \"x\";"). Blank lines and
// lines starting with '#' are skipped. name labels error messages.
func ReadEPD(r io.Reader, name string) ([]Opening, error) {
	var ops []Opening
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		pos, err := parseEPDLine(line)
		if err != nil {
			return nil, fmt.Errorf("openings: %s:%d: %w", name, ln, err)
		}
		ops = append(ops, Opening{Start: pos, Source: fmt.Sprintf("%s:%d", name, ln)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("openings: %s: %w", name, err)
	}
	return ops, nil
}

func parseEPDLine(line string) (board.Position, error) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return board.Position{}, fmt.Errorf("want a FEN, got %q", line)
	}
	hm, fm := "0", "1"
	rest := ""
	if len(f) >= 6 && isUint(f[4]) && isUint(f[5]) {
		hm, fm = f[4], f[5]
	} else if len(f) > 4 {
		rest = strings.Join(f[4:], " ")
	}
	for _, op := range strings.Split(rest, ";") {
		w := strings.Fields(op)
		if len(w) == 2 && isUint(w[1]) {
			switch w[0] {
			case "hmvc":
				hm = w[1]
			case "fmvn":
				fm = w[1]
			}
		}
	}
	return board.ParseFEN(strings.Join(f[:4], " ") + " " + hm + " " + fm)
}

func isUint(s string) bool {
	if s == "" {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

// ReadPGN reads the games of a PGN file as openings: the start position
// (standard, or the FEN tag) and the main-line moves. Comments, variations,
// NAGs, move numbers and results are skipped. A game with an illegal move
// is an error that names the game and the move.
func ReadPGN(r io.Reader, name string) ([]Opening, error) {
	var ops []Opening
	err := pgn.Scan(r, name, func(g pgn.Game) error {
		op, err := replay(g, name)
		if err != nil {
			return err
		}
		ops = append(ops, op)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("openings: %w", err)
	}
	return ops, nil
}

// replay plays g's moves from its start position (the FEN tag, or the
// standard one; Chess960 castling with a Variant "Chess960" tag) and
// returns them as an Opening.
func replay(g pgn.Game, name string) (Opening, error) {
	start, err := g.Start()
	if err != nil {
		return Opening{}, fmt.Errorf("%s:%d: %w", name, g.Line, err)
	}
	b := board.NewGame(start)
	for _, s := range g.SANs {
		if err := b.PlaySAN(s); err != nil {
			return Opening{}, fmt.Errorf("%s:%d: move %q: %w", name, g.Line, s, err)
		}
	}
	return Opening{Start: start, Moves: append([]board.Move(nil), b.Moves()...), Source: fmt.Sprintf("%s:%d", name, g.Line)}, nil
}
