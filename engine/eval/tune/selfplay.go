package tune

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// LoadOpenings reads start positions: EPD/FEN lines, or PGN movetext (one
// game per "*"/result-terminated block, headers skipped).
func LoadOpenings(r io.Reader) ([]*board.Game, error) {
	var out []*board.Game
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var pgn strings.Builder
	flush := func() error {
		text := strings.TrimSpace(pgn.String())
		pgn.Reset()
		if text == "" {
			return nil
		}
		g := board.NewGame(board.StartPosition())
		for _, tok := range strings.Fields(text) {
			if tok == "*" || tok == "1-0" || tok == "0-1" || tok == "1/2-1/2" {
				break
			}
			if i := strings.LastIndex(tok, "."); i >= 0 {
				tok = tok[i+1:]
			}
			if tok == "" {
				continue
			}
			if err := g.PlaySAN(tok); err != nil {
				return fmt.Errorf("tune: opening %q: %w", text, err)
			}
		}
		out = append(out, g)
		return nil
	}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "["):
			if err := flush(); err != nil {
				return nil, err
			}
		case strings.Count(line, "/") == 7 && !strings.Contains(line, "."):
			if err := flush(); err != nil {
				return nil, err
			}
			f := strings.Fields(line)
			if len(f) < 4 {
				return nil, fmt.Errorf("tune: bad opening FEN %q", line)
			}
			fen := strings.Join(f[:4], " ")
			if len(f) >= 6 {
				fen = strings.Join(f[:6], " ")
			}
			pos, err := board.ParseFEN(fen)
			if err != nil {
				return nil, fmt.Errorf("tune: %w", err)
			}
			out = append(out, board.NewGame(pos))
		default:
			pgn.WriteString(line)
			pgn.WriteByte(' ')
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, sc.Err()
}

// GameRecord is one finished self-play game.
type GameRecord struct {
	Result    float64  // 1 White won, 0.5 draw, 0 Black won
	Reason    string   // how it ended
	Positions []string // FENs of quiet positions suitable for tuning
	Plies     int
}

// PlayGame plays one game from opening between white and black, each move
// searched under l. Games are adjudicated: a win when the mover's score has
// been at least 1000 cp (same side winning) for 6 plies in a row, a draw
// after 400 plies or when |score| stayed under 10 cp for 20 plies after ply
// 80. Quiet positions (not in check, best move neither capture nor
// promotion, no mate score) are recorded for tuning.
func PlayGame(ctx context.Context, white, black *engine.Engine, opening *board.Game, l engine.Limits) GameRecord {
	g := opening.Clone()
	white.NewGame()
	black.NewGame()
	var rec GameRecord
	winStreak, drawStreak := 0, 0
	lastSign := 0
	for ply := 0; ; ply++ {
		if o := g.Outcome(); o.Result != board.Ongoing {
			rec.Reason = o.Reason.String()
			switch o.Result {
			case board.WhiteWins:
				rec.Result = 1
			case board.BlackWins:
				rec.Result = 0
			default:
				rec.Result = 0.5
			}
			rec.Plies = ply
			return rec
		}
		if ctx.Err() != nil || ply >= 400 {
			rec.Result, rec.Reason, rec.Plies = 0.5, "adjudicated: length", ply
			return rec
		}
		pos := g.Position()
		e := white
		if pos.SideToMove() == board.Black {
			e = black
		}
		res := e.Search(ctx, g, l, nil)
		if res.Best == board.NoMove {
			rec.Result, rec.Reason, rec.Plies = 0.5, "no move", ply
			return rec
		}
		whiteScore := int(res.Score)
		if pos.SideToMove() == board.Black {
			whiteScore = -whiteScore
		}
		if !pos.InCheck() && !res.Score.IsMate() && !pos.IsCapture(res.Best) && !res.Best.IsPromotion() {
			rec.Positions = append(rec.Positions, pos.FEN())
		}
		sign := 0
		if whiteScore >= 1000 {
			sign = 1
		} else if whiteScore <= -1000 {
			sign = -1
		}
		if sign != 0 && sign == lastSign {
			winStreak++
		} else if sign != 0 {
			winStreak = 1
		} else {
			winStreak = 0
		}
		lastSign = sign
		if winStreak >= 6 {
			rec.Result, rec.Reason, rec.Plies = 0, "adjudicated: score", ply
			if sign > 0 {
				rec.Result = 1
			}
			return rec
		}
		if ply >= 80 && whiteScore > -10 && whiteScore < 10 {
			drawStreak++
		} else {
			drawStreak = 0
		}
		if drawStreak >= 20 {
			rec.Result, rec.Reason, rec.Plies = 0.5, "adjudicated: draw", ply
			return rec
		}
		if err := g.Play(res.Best); err != nil {
			panic(fmt.Sprintf("tune: engine played an illegal move: %v", err))
		}
	}
}
