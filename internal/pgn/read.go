package pgn

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Game is one game as Scan reads it.
type Game struct {
	Tags map[string]string
	// SANs are the main-line moves as written (move numbers stripped).
	SANs []string
	// Comments[i] is the text of the comments that follow SANs[i] in the
	// main line, joined by a space when there are several ("" for none).
	// Comments before the first move and inside variations are dropped.
	Comments []string
	Result   string // the result token; "" when the file ends without one
	Line     int    // the line the game starts on
}

// Start is the position g's moves start from: its FEN tag's, else the
// standard one; castling is Chess960's when its Variant tag says so.
func (g Game) Start() (board.Position, error) {
	start := board.StartPosition()
	if fen := g.Tags["FEN"]; fen != "" {
		p, err := board.ParseFEN(fen)
		if err != nil {
			return board.Position{}, fmt.Errorf("FEN tag: %w", err)
		}
		start = p
	}
	if g.Tags["Variant"] == "Chess960" {
		start.Chess960 = true
	}
	return start, nil
}

// Scan splits a PGN file into games and hands each to yield, stopping at
// yield's first error. Variations, NAGs and move numbers are skipped;
// comments are kept with the move before them. Its own errors (reading r)
// name the file; yield's pass as they are. It never fails on what the text
// says: a game it cannot make sense of is for yield to refuse when it
// replays the moves.
func Scan(r io.Reader, name string, yield func(Game) error) error {
	br := bufio.NewReader(r)
	var (
		cur    Game
		inGame bool
	)
	finish := func(result string) error {
		if !inGame {
			return nil
		}
		cur.Result = result
		g := cur
		cur, inGame = Game{}, false
		return yield(g)
	}
	begin := func(ln int) {
		if !inGame {
			inGame, cur = true, Game{Tags: map[string]string{}, Line: ln}
		}
	}
	comment := func(depth int, text string) {
		if depth > 0 || !inGame || len(cur.SANs) == 0 {
			return
		}
		text = strings.Join(strings.Fields(text), " ")
		last := &cur.Comments[len(cur.Comments)-1]
		if *last != "" && text != "" {
			*last += " "
		}
		*last += text
	}
	depth := 0 // variation nesting
	inMoves := false
	for ln := 1; ; ln++ {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if err != io.EOF {
				return fmt.Errorf("%s: %w", name, err)
			}
			break
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "%") {
			continue // escape line
		}
		if strings.HasPrefix(t, "[") && depth == 0 {
			if inMoves {
				if err := finish(""); err != nil {
					return err
				}
				inMoves = false
			}
			begin(ln)
			key, val := parseTag(t)
			cur.Tags[key] = val
			continue
		}
		for i := 0; i < len(t); {
			c := t[i]
			switch {
			case c == '{':
				end := strings.IndexByte(t[i:], '}')
				if end < 0 {
					// Multi-line comment: read on until the closing brace.
					text := t[i+1:]
					for {
						more, err := br.ReadString('\n')
						ln++
						if k := strings.IndexByte(more, '}'); k >= 0 {
							comment(depth, text+" "+more[:k])
							t = more[k+1:]
							i = 0
							break
						}
						text += " " + more
						if err != nil {
							t, i = "", 0
							break
						}
					}
					continue
				}
				comment(depth, t[i+1:i+end])
				i += end + 1
			case c == ';':
				comment(depth, t[i+1:])
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
				begin(ln)
				inMoves = true
				switch {
				case tok == "1-0" || tok == "0-1" || tok == "1/2-1/2" || tok == "*":
					if err := finish(tok); err != nil {
						return err
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
						cur.SANs = append(cur.SANs, tok)
						cur.Comments = append(cur.Comments, "")
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	return finish("")
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
