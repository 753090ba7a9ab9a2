package nnuedata

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/pgn"
)

// PGNOptions selects the positions FromPGN takes.
type PGNOptions struct {
	// Players, if any, are the only players (White and Black tags) whose
	// moves are taken; none means every player's.
	Players []string
	// MinDepth skips the scores of searches shallower than this (a score
	// written without a depth counts as depth 0).
	MinDepth int
}

// PGNStats counts what FromPGN read.
type PGNStats struct {
	Games      int64 // games with a result whose positions were read
	Unfinished int64 // games without a result ("*" or none), skipped
	Positions  int64 // records handed on
}

// FromPGN turns played games into training records: the games of a PGN
// file whose moves carry, in the comment after them, the score of the
// search that chose them as `ponderosa match`, the bot and cutechess write
// it ("+0.72/17 0.892s …": pawns from the mover's point of view, then the
// depth; "+M3/20" for a mate). Every position before a move that has such
// a score is a record when it is quiet as datagen means it (the mover not
// in check, the move neither a capture nor a promotion, the score not a
// mate), with the score (White's point of view, in centipawns) and the
// game's result. Matches' games are searched far deeper than datagen's
// fixed node counts: better scores, from fewer positions.
//
// A game whose moves cannot be played, or whose FEN tag is bad, is an
// error that names it; emit's error stops the reading and comes back.
func FromPGN(r io.Reader, name string, opt PGNOptions, emit func(*Record) error) (PGNStats, error) {
	var st PGNStats
	err := pgn.Scan(r, name, func(g pgn.Game) error {
		result, ok := pgnResult(g)
		if !ok {
			st.Unfinished++
			return nil
		}
		take := [2]bool{true, true} // by colour of the mover
		if len(opt.Players) > 0 {
			take[board.White] = slices.Contains(opt.Players, g.Tags["White"])
			take[board.Black] = slices.Contains(opt.Players, g.Tags["Black"])
		}
		start := board.StartPosition()
		if fen := g.Tags["FEN"]; fen != "" {
			p, err := board.ParseFEN(fen)
			if err != nil {
				return fmt.Errorf("%s:%d: FEN tag: %w", name, g.Line, err)
			}
			start = p
		}
		if g.Tags["Variant"] == "Chess960" {
			start.Chess960 = true
		}
		pos := start
		var next board.Position
		for i, san := range g.SANs {
			m, err := pos.ParseSAN(san)
			if err != nil {
				return fmt.Errorf("%s:%d: move %d %q: %w", name, g.Line, i+1, san, err)
			}
			us := pos.SideToMove()
			if cp, depth, mate, ok := parseScore(g.Comments[i]); ok && !mate && depth >= opt.MinDepth && take[us] &&
				!pos.InCheck() && !pos.IsCapture(m) && !m.IsPromotion() {
				white := max(-maxStoreScore, min(maxStoreScore, cp))
				if us == board.Black {
					white = -white
				}
				rec := FromPosition(&pos, int16(white), result)
				if err := emit(&rec); err != nil {
					return err
				}
				st.Positions++
			}
			pos.MakeMove(m, &next)
			pos = next
		}
		st.Games++
		return nil
	})
	return st, err
}

// pgnResult is g's result as a record stores it: the Result tag, else the
// result token after the moves.
func pgnResult(g pgn.Game) (uint8, bool) {
	res := g.Tags["Result"]
	if res == "" || res == "*" {
		res = g.Result
	}
	switch res {
	case "1-0":
		return WhiteWin, true
	case "0-1":
		return BlackWin, true
	case "1/2-1/2":
		return DrawGame, true
	}
	return 0, false
}

// parseScore reads the score at the start of a move's comment: "+0.72/17"
// (pawns, the mover's view, then the depth), "-0.05" (no depth: 0),
// "+M3/20" or "-M2" (a mate). ok is false when the comment does not start
// with one.
func parseScore(comment string) (cp, depth int, mate, ok bool) {
	word, _, _ := strings.Cut(comment, " ")
	s, d, hasDepth := strings.Cut(word, "/")
	if hasDepth {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 || n > 1000 {
			return 0, 0, false, false
		}
		depth = n
	}
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, 0, false, false
	}
	if s[1] == 'M' {
		n, err := strconv.Atoi(s[2:])
		if err != nil || n < 0 || strings.ContainsAny(s[2:], "+-") {
			return 0, 0, false, false
		}
		return 0, depth, true, true
	}
	if strings.Trim(s[1:], "0123456789.") != "" { // plain decimals only
		return 0, 0, false, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Abs(f) > 1000 {
		return 0, 0, false, false
	}
	return int(math.Round(f * 100)), depth, false, true
}
