package movesource

import (
	"context"
	"fmt"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// tablebase asks the online tablebase about positions of at most 7 pieces
// (6 in atomic and antichess) without castling rights.
type tablebase struct{ c *lichess.Client }

func (*tablebase) name() string { return Tablebase }

func tbVariant(q *Query) (string, int) {
	switch {
	case variantIs(q.Variant, "standard", "fromPosition", "chess960", ""):
		return "standard", 7
	case variantIs(q.Variant, "atomic"):
		return "atomic", 6
	case variantIs(q.Variant, "antichess"):
		return "antichess", 6
	}
	return "", 0
}

func (*tablebase) applies(q *Query) bool {
	v, most := tbVariant(q)
	return v != "" && pieces(&q.Pos) <= most && !strings.ContainsAny(strings.Fields(q.Pos.FEN())[2], "KQkqABCDEFGHabcdefgh")
}

func (t *tablebase) lookup(ctx context.Context, q *Query) (Answer, bool, error) {
	v, _ := tbVariant(q)
	tb, err := t.c.TablebaseLookup(ctx, v, q.Pos.FEN())
	if err != nil {
		return Answer{}, false, err
	}
	i, ok := ChooseTablebase(tb)
	if !ok {
		return Answer{}, false, nil
	}
	m, err := parseMove(&q.Pos, tb.Moves[i].UCI)
	if err != nil {
		return Answer{}, false, fmt.Errorf("tablebase: %w", err)
	}
	tm := tb.Moves[i]
	note := string(ourCategory(tm.Category))
	if tm.DTM != nil {
		note += fmt.Sprintf(", DTM %d", abs(*tm.DTM))
	} else if tm.DTZ != nil {
		note += fmt.Sprintf(", DTZ %d", abs(*tm.DTZ))
	}
	return Answer{Move: m, Source: Tablebase, Note: note, Verdict: ourCategory(tm.Category)}, true, nil
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// ourCategory turns the category of the position after our move (the
// opponent's point of view) into ours.
func ourCategory(c lichess.TablebaseCategory) lichess.TablebaseCategory {
	switch c.Rank() {
	case 0:
		return lichess.TBWin
	case 1:
		return lichess.TBCursedWin
	case 2:
		return lichess.TBDraw
	case 3:
		return lichess.TBBlessedLoss
	case 4:
		return lichess.TBLoss
	}
	return lichess.TBUnknown
}

// ChooseTablebase picks the move of a tablebase answer that keeps the best
// category for the side to move: a win before a cursed win (which the
// fifty-move rule spoils; the category of each move already counts the
// halfmove clock) before a draw, and so on. Among the moves of that
// category: winning, the fastest mate by DTM when every such move has one,
// else the shortest DTZ (zeroing moves first); losing, the slowest by DTM,
// else the longest DTZ. Moves of unknown category are never chosen; ok is
// false when no move has a known one.
func ChooseTablebase(tb *lichess.Tablebase) (int, bool) {
	best, bestRank := -1, -1
	for i, m := range tb.Moves {
		r := m.Category.Rank()
		if r < 0 {
			continue
		}
		if ours := 4 - r; ours > bestRank {
			best, bestRank = i, ours
		}
	}
	if best < 0 {
		return 0, false
	}
	var group []int
	allDTM := true
	for i, m := range tb.Moves {
		if r := m.Category.Rank(); r >= 0 && 4-r == bestRank {
			group = append(group, i)
			allDTM = allDTM && m.DTM != nil
		}
	}
	// key: smaller is better.
	key := func(m lichess.TablebaseMove) int {
		d := 1 << 20
		switch {
		case allDTM:
			d = abs(*m.DTM)
		case m.DTZ != nil:
			d = abs(*m.DTZ)
		}
		if bestRank >= 3 { // winning: fast, zeroing first (no DTM)
			if !allDTM && m.Zeroing {
				d = -1
			}
			return d
		}
		if bestRank == 2 {
			return 0 // a draw is a draw: keep the server's order
		}
		return -d // losing: slow
	}
	best = group[0]
	for _, i := range group[1:] {
		if key(tb.Moves[i]) < key(tb.Moves[best]) {
			best = i
		}
	}
	return best, true
}

// cloud takes the cloud's best move when its depth is at least minDepth.
type cloud struct {
	c        *lichess.Client
	minDepth int
}

func (*cloud) name() string { return Cloud }

func (*cloud) applies(q *Query) bool {
	return variantIs(q.Variant, "standard", "fromPosition", "") && !q.Pos.Chess960
}

func (c *cloud) lookup(ctx context.Context, q *Query) (Answer, bool, error) {
	ce, err := c.c.CloudEvalLookup(ctx, q.Pos.FEN(), 1)
	if err != nil {
		if errorsIsNotKnown(err) {
			return Answer{}, false, nil
		}
		return Answer{}, false, err
	}
	if ce.Depth < c.minDepth {
		return Answer{}, false, nil
	}
	m, err := parseMove(&q.Pos, ce.BestMove())
	if err != nil {
		return Answer{}, false, fmt.Errorf("cloud eval: %w", err)
	}
	pv := ce.PVs[0]
	ev := &Eval{Depth: ce.Depth}
	score := ""
	if pv.CP != nil {
		ev.CP = *pv.CP
		score = fmt.Sprintf("%+.2f", float64(*pv.CP)/100)
	} else {
		ev.Mate = *pv.Mate
		score = fmt.Sprintf("mate %d", *pv.Mate)
	}
	return Answer{Move: m, Source: Cloud, Note: fmt.Sprintf("%s (White's view) at depth %d", score, ce.Depth), Eval: ev}, true, nil
}

// explorer plays the most played move (or the best scoring one) among
// those with at least minGames games, for the first maxPly plies, from
// the masters', Lichess's or one player's games.
type explorer struct {
	c        *lichess.Client
	db       string
	minGames int64
	maxPly   int
	byScore  bool
	player   string   // player db: whose games (with our colour)
	speeds   []string // lichess and player dbs; nil: the game's speed
	ratings  []int    // lichess db; nil: all
	modes    []string // player db; nil: rated and casual
}

func (*explorer) name() string { return Explorer }

func (e *explorer) applies(q *Query) bool {
	if q.Ply >= e.maxPly || q.Pos.Chess960 {
		return false
	}
	if e.db == "masters" {
		return variantIs(q.Variant, "standard", "fromPosition", "")
	}
	return true
}

func (e *explorer) lookup(ctx context.Context, q *Query) (Answer, bool, error) {
	eq := lichess.ExplorerQuery{DB: e.db}
	if e.db == "lichess" || e.db == "player" {
		if v := q.Variant; v != "" && !variantIs(v, "fromPosition") {
			eq.Variant = v
		}
		switch {
		case len(e.speeds) > 0:
			eq.Speeds = e.speeds
		case q.Speed != "":
			eq.Speeds = []string{q.Speed}
		}
	}
	switch e.db {
	case "lichess":
		eq.Ratings = e.ratings
	case "player":
		// The player's own moves: their games with the colour we play.
		eq.Player, eq.Color, eq.Modes = e.player, "white", e.modes
		if q.Pos.SideToMove() == board.Black {
			eq.Color = "black"
		}
	}
	ex, err := e.c.ExplorerLookup(ctx, eq, q.Pos.FEN())
	if err != nil {
		return Answer{}, false, err
	}
	i, ok := ChooseExplorer(ex, q.Pos.SideToMove() == board.White, e.minGames, e.byScore)
	if !ok {
		return Answer{}, false, nil
	}
	em := ex.Moves[i]
	// The explorer writes castling king-to-rook (e1h1); SAN is unambiguous.
	m, err := q.Pos.ParseSAN(em.SAN)
	if err != nil {
		if m, err = parseMove(&q.Pos, em.UCI); err != nil {
			return Answer{}, false, fmt.Errorf("explorer: %w", err)
		}
	}
	return Answer{Move: m, Source: Explorer, Note: fmt.Sprintf("%d games", em.Games())}, true, nil
}

// ChooseExplorer picks the most played move with at least minGames games
// or, byScore, the one scoring best for the side to move (wins plus half
// the draws, per game); ok is false when no move has enough games.
func ChooseExplorer(ex *lichess.Explorer, white bool, minGames int64, byScore bool) (int, bool) {
	best := -1
	var bestVal float64
	for i, m := range ex.Moves {
		g := m.Games()
		if g < max(minGames, 1) {
			continue
		}
		val := float64(g)
		if byScore {
			w := m.White
			if !white {
				w = m.Black
			}
			val = (float64(w) + float64(m.Draws)/2) / float64(g)
		}
		if best < 0 || val > bestVal {
			best, bestVal = i, val
		}
	}
	return best, best >= 0
}

// chessDB plays ChessDB's best known move (queryall: the moves come best
// first) when ChessDB ranks it a best or good move ("!" or "*", rank 2 or
// 1) and knows its score. Standard and fromPosition games, not Chess960.
type chessDB struct{ c *lichess.Client }

func (*chessDB) name() string { return ChessDB }

func (*chessDB) applies(q *Query) bool {
	return variantIs(q.Variant, "standard", "fromPosition", "") && !q.Pos.Chess960
}

func (d *chessDB) lookup(ctx context.Context, q *Query) (Answer, bool, error) {
	db, err := d.c.ChessDBLookup(ctx, q.Pos.FEN())
	if err != nil {
		if errorsIsNotKnown(err) {
			return Answer{}, false, nil
		}
		return Answer{}, false, err
	}
	i, ok := ChooseChessDB(db)
	if !ok {
		return Answer{}, false, nil
	}
	cm := db.Moves[i]
	m, err := parseMove(&q.Pos, cm.UCI)
	if err != nil {
		return Answer{}, false, fmt.Errorf("chessdb: %w", err)
	}
	// Scores are for the side to move; beyond 10000 they stand for mates
	// and tablebase wins, not centipawns.
	note := fmt.Sprintf("score %d", cm.Score)
	var ev *Eval
	if cm.Score > -10000 && cm.Score < 10000 {
		cp := cm.Score
		if q.Pos.SideToMove() == board.Black {
			cp = -cp
		}
		ev = &Eval{CP: cp}
		note = fmt.Sprintf("%+.2f", float64(cm.Score)/100)
	}
	return Answer{Move: m, Source: ChessDB, Note: note, Eval: ev}, true, nil
}

// ChooseChessDB picks the highest scored known move ranked best or good;
// ok is false when there is none.
func ChooseChessDB(db *lichess.ChessDB) (int, bool) {
	best := -1
	for i, m := range db.Moves {
		if !m.Known || m.Rank < 1 {
			continue
		}
		if best < 0 || m.Score > db.Moves[best].Score {
			best = i
		}
	}
	return best, best >= 0
}
