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
// search that chose them, as `ponderosa match` and cutechess write it
// ("+0.72/17 0.892s …": the mover's point of view) or as the bot and
// Lichess do ("[%eval 0.35,18]": White's; see parseScore). Every position
// before a move that has such
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
		pos, err := g.Start()
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, g.Line, err)
		}
		var next board.Position
		for i, san := range g.SANs {
			m, err := pos.ParseSAN(san)
			if err != nil {
				return fmt.Errorf("%s:%d: move %d %q: %w", name, g.Line, i+1, san, err)
			}
			us := pos.SideToMove()
			if cp, depth, mate, whiteView, ok := parseScore(g.Comments[i]); ok && !mate && depth >= opt.MinDepth && take[us] &&
				!pos.InCheck() && !pos.IsCapture(m) && !m.IsPromotion() {
				white := max(-maxStoreScore, min(maxStoreScore, cp))
				if us == board.Black && !whiteView {
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

// parseScore reads a move's score from its comment: a [%eval] command
// anywhere in it ("[%eval 0.35,18]": pawns from White's point of view,
// then the depth; "[%eval #-3,20]" a mate; no depth: 0), as the bot and
// Lichess write it, else the score the comment starts with ("+0.72/17":
// pawns from the mover's point of view, then the depth; "-0.05" with no
// depth; "+M3/20" a mate), as match and cutechess write it. whiteView
// says which point of view cp has; ok is false when there is no score.
func parseScore(comment string) (cp, depth int, mate, whiteView, ok bool) {
	if _, cmd, found := strings.Cut(comment, "[%eval "); found {
		body, _, closed := strings.Cut(cmd, "]")
		if !closed {
			return 0, 0, false, false, false
		}
		score, d, hasDepth := strings.Cut(strings.TrimSpace(body), ",")
		if hasDepth {
			if depth, ok = parseDepth(d); !ok {
				return 0, 0, false, false, false
			}
		}
		if rest, isMate := strings.CutPrefix(score, "#"); isMate {
			rest = strings.TrimPrefix(rest, "-")
			if rest == "" || strings.Trim(rest, "0123456789") != "" {
				return 0, 0, false, false, false
			}
			return 0, depth, true, true, true
		}
		if cp, ok = parsePawns(strings.TrimPrefix(score, "-"), strings.HasPrefix(score, "-")); !ok {
			return 0, 0, false, false, false
		}
		return cp, depth, false, true, true
	}
	word, _, _ := strings.Cut(comment, " ")
	s, d, hasDepth := strings.Cut(word, "/")
	if hasDepth {
		if depth, ok = parseDepth(d); !ok {
			return 0, 0, false, false, false
		}
	}
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, 0, false, false, false
	}
	if s[1] == 'M' {
		if s[2:] == "" || strings.Trim(s[2:], "0123456789") != "" {
			return 0, 0, false, false, false
		}
		return 0, depth, true, false, true
	}
	if cp, ok = parsePawns(s[1:], s[0] == '-'); !ok {
		return 0, 0, false, false, false
	}
	return cp, depth, false, false, true
}

// parseDepth reads a search depth, 0 to 1000.
func parseDepth(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && n <= 1000
}

// parsePawns reads an unsigned decimal number of pawns (at most 1000) as
// centipawns, negated when neg.
func parsePawns(s string, neg bool) (int, bool) {
	if s == "" || strings.Trim(s, "0123456789.") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f > 1000 {
		return 0, false
	}
	cp := int(math.Round(f * 100))
	if neg {
		cp = -cp
	}
	return cp, true
}
