package bot

import (
	"fmt"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// boardSync is the game as the stream shows it: the start position, the
// moves played, the clocks, and the last gameState.
type boardSync struct {
	kind     clockKind
	initial  time.Duration // the clock's initial time (real-time games)
	startPos board.Position
	startFEN string // "" for the standard start
	game     *board.Game
	clocks   []time.Duration // the mover's clock after each move, for the PGN; -1 unknown
	state    lichess.GameState
	stateAt  time.Time // arrival of state
}

// setup reads the clock and the start position of a gameFull; a start
// position that differs from the one we have restarts the board.
func (b *boardSync) setup(f *lichess.GameFull) error {
	switch {
	case f.Clock != nil:
		b.kind, b.initial = realTime, f.Clock.InitialTime()
	case f.DaysPerTurn > 0:
		b.kind = correspondence
	default:
		b.kind = unlimited
	}
	var pos board.Position
	startFEN := ""
	if f.InitialFEN != "" && f.InitialFEN != "startpos" {
		p, err := board.ParseFEN(f.InitialFEN)
		if err != nil {
			return fmt.Errorf("initial position: %w", err)
		}
		pos, startFEN = p, f.InitialFEN
	} else {
		pos = board.StartPosition()
	}
	b.startFEN = startFEN
	switch f.Variant.Key {
	case lichess.VariantStandard, "":
	case lichess.VariantChess960, lichess.VariantFromPosition:
		pos.Chess960 = true
	default:
		return fmt.Errorf("variant %q is not supported", f.Variant.Key)
	}
	if b.game == nil || b.startPos != pos {
		b.startPos = pos
		b.game = board.NewGame(pos)
		b.clocks = b.clocks[:0]
	}
	return nil
}

// followState brings the board up to a gameState that arrived at at. It
// returns changed when the position differs from before, and rebuilt when
// moves were taken back or did not match (every search is then stale).
func (r *gameRunner) followState(st *lichess.GameState, at time.Time) (changed, rebuilt bool, err error) {
	b := &r.board
	prevPly := b.ply()
	changed, rebuilt, err = b.syncMoves(st.MoveList())
	if err != nil {
		return changed, rebuilt, err
	}
	b.state, b.stateAt = *st, at
	if changed {
		ply := b.ply()
		r.svc.stats.gamePly(r.id, ply)
		if !rebuilt && ply == prevPly+1 {
			b.recordClock(st, ply)
		}
	}
	return changed, rebuilt, nil
}

// syncMoves brings the board up to the stream's move list. It returns
// changed when the position differs from before, and rebuilt when moves were
// taken back or did not match (every search is then stale).
func (b *boardSync) syncMoves(moves []string) (changed, rebuilt bool, err error) {
	have := b.game.Moves()
	prefixOK := len(moves) >= len(have)
	if prefixOK && len(have) > 0 {
		// The moves we have must be a prefix of the stream's list: compare
		// the last one (a full check would cost a replay per state).
		pos := b.positionAt(len(have) - 1)
		m, err := pos.ParseUCIMove(moves[len(have)-1])
		prefixOK = err == nil && m == have[len(have)-1]
	}
	if !prefixOK {
		b.game = board.NewGame(b.startPos)
		b.clocks = b.clocks[:0]
		have = nil
		rebuilt = true
	}
	for _, s := range moves[len(have):] {
		if err := b.game.PlayUCI(s); err != nil {
			return true, true, fmt.Errorf("move %d %q from Lichess: %w", b.ply()+1, s, err)
		}
		changed = true
	}
	return changed || rebuilt, rebuilt, nil
}

// ply is the number of moves played.
func (b *boardSync) ply() int { return len(b.game.Moves()) }

// positionAt returns the position after the first n moves.
func (b *boardSync) positionAt(n int) board.Position {
	pos := b.startPos
	for _, m := range b.game.Moves()[:n] {
		var next board.Position
		pos.MakeMove(m, &next)
		pos = next
	}
	return pos
}

// lastMove is the last move played (NoMove at the start).
func (b *boardSync) lastMove() board.Move {
	ms := b.game.Moves()
	if len(ms) == 0 {
		return board.NoMove
	}
	return ms[len(ms)-1]
}

// clockOf returns c's remaining time and increment in the last gameState.
func (b *boardSync) clockOf(c board.Color) (left, inc time.Duration) {
	wt, bt, wi, bi := b.state.Clock()
	if c == board.White {
		return wt, wi
	}
	return bt, bi
}

// toMove reports whether c is to move in the current position.
func (b *boardSync) toMove(c board.Color) bool {
	pos := b.game.Position()
	return pos.SideToMove() == c
}

// movesBy counts the moves made so far by c in the game.
func (b *boardSync) movesBy(c board.Color) int {
	n := b.ply()
	if b.startPos.SideToMove() == c {
		return (n + 1) / 2
	}
	return n / 2
}

// recordClock keeps the mover's clock after move ply for the PGN.
func (b *boardSync) recordClock(st *lichess.GameState, ply int) {
	if b.kind != realTime {
		return
	}
	for len(b.clocks) < ply-1 {
		b.clocks = append(b.clocks, -1)
	}
	wt, bt, _, _ := st.Clock()
	before := b.positionAt(ply - 1)
	c := bt
	if before.SideToMove() == board.White {
		c = wt
	}
	if len(b.clocks) == ply-1 {
		b.clocks = append(b.clocks, c)
	}
}
