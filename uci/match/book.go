package match

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
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
	br := bufio.NewReader(r)
	var ops []Opening
	var (
		fen      string
		sans     []string
		inGame   bool
		gameLine int
	)
	finish := func() error {
		if !inGame {
			return nil
		}
		start := board.StartPosition()
		if fen != "" {
			p, err := board.ParseFEN(fen)
			if err != nil {
				return fmt.Errorf("openings: %s:%d: FEN tag: %w", name, gameLine, err)
			}
			start = p
		}
		g := board.NewGame(start)
		for _, s := range sans {
			if err := g.PlaySAN(s); err != nil {
				return fmt.Errorf("openings: %s:%d: move %q: %w", name, gameLine, s, err)
			}
		}
		ops = append(ops, Opening{Start: start, Moves: append([]board.Move(nil), g.Moves()...), Source: fmt.Sprintf("%s:%d", name, gameLine)})
		fen, sans, inGame = "", nil, false
		return nil
	}
	depth := 0 // variation nesting
	inMoves := false
	for ln := 1; ; ln++ {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if err != io.EOF {
				return nil, fmt.Errorf("openings: %s: %w", name, err)
			}
			break
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "%") {
			continue // escape line
		}
		if strings.HasPrefix(t, "[") && depth == 0 {
			if inMoves {
				if err := finish(); err != nil {
					return nil, err
				}
				inMoves = false
			}
			if !inGame {
				inGame, gameLine = true, ln
			}
			key, val := parseTag(t)
			if key == "FEN" {
				fen = val
			}
			continue
		}
		for i := 0; i < len(t); {
			c := t[i]
			switch {
			case c == '{':
				end := strings.IndexByte(t[i:], '}')
				if end < 0 {
					// Multi-line comment: read on until the closing brace.
					for {
						more, err := br.ReadString('\n')
						ln++
						if k := strings.IndexByte(more, '}'); k >= 0 {
							t = more[k+1:]
							i = 0
							break
						}
						if err != nil {
							t, i = "", 0
							break
						}
					}
					continue
				}
				i += end + 1
			case c == ';':
				i = len(t)
			case c == '(':
				depth++
				i++
			case c == ')':
				if depth > 0 {
					depth--
				}
				i++
			case c == ' ' || c == '\t' || c == '\r' || c == '\n':
				i++
			default:
				j := i
				for j < len(t) && !strings.ContainsRune(" \t\r\n{}();", rune(t[j])) {
					j++
				}
				if j == i {
					i++ // a stray '}'
					continue
				}
				tok := t[i:j]
				i = j
				if depth > 0 {
					continue
				}
				if !inGame {
					inGame, gameLine = true, ln
				}
				inMoves = true
				switch {
				case tok == "1-0" || tok == "0-1" || tok == "1/2-1/2" || tok == "*":
					if err := finish(); err != nil {
						return nil, err
					}
					inMoves = false
				case tok[0] == '$':
				case tok[0] >= '0' && tok[0] <= '9' && strings.Trim(tok, "0123456789.") == "":
					// move number
				default:
					if k := strings.LastIndexByte(tok, '.'); k >= 0 {
						tok = tok[k+1:] // "12.Nf3" or "12...Nf6"
					}
					if tok != "" {
						sans = append(sans, tok)
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return ops, nil
}

// parseTag splits `[Key "Value"]`.
func parseTag(t string) (key, val string) {
	t = strings.TrimSuffix(strings.TrimPrefix(t, "["), "]")
	key, rest, _ := strings.Cut(t, " ")
	rest = strings.TrimSpace(rest)
	if uq, err := strconv.Unquote(rest); err == nil {
		return key, uq
	}
	return key, strings.Trim(rest, `"`)
}
