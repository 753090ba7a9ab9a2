package board

import "fmt"

// Result is the result of a game.
type Result uint8

// Game results.
const (
	Ongoing Result = iota
	WhiteWins
	BlackWins
	Draw
)

// String returns "*", "1-0", "0-1" or "1/2-1/2" as in PGN.
func (r Result) String() string {
	switch r {
	case WhiteWins:
		return "1-0"
	case BlackWins:
		return "0-1"
	case Draw:
		return "1/2-1/2"
	}
	return "*"
}

// Reason says why a game ended.
type Reason uint8

// Reasons a game ends by the rules.
const (
	NoReason Reason = iota
	Checkmate
	Stalemate
	Threefold    // the same position (side, castling, en passant) a third time
	FiftyMove    // 100 half-moves without a capture or pawn move
	Insufficient // neither side can checkmate
)

// String returns a lower-case description ("checkmate", "threefold
// repetition", …).
func (r Reason) String() string {
	switch r {
	case Checkmate:
		return "checkmate"
	case Stalemate:
		return "stalemate"
	case Threefold:
		return "threefold repetition"
	case FiftyMove:
		return "fifty-move rule"
	case Insufficient:
		return "insufficient material"
	}
	return "none"
}

// Outcome is the state of a game by the rules of chess.
type Outcome struct {
	Result Result
	Reason Reason
}

// Game is a start position plus the moves played from it, keeping what the
// draw rules need. The zero value is not usable: call NewGame.
type Game struct {
	start Position
	pos   Position
	moves []Move
	keys  []uint64
}

// NewGame starts a game from start.
func NewGame(start Position) *Game {
	return &Game{start: start, pos: start, keys: []uint64{start.Key()}}
}

// Start returns the start position.
func (g *Game) Start() Position { return g.start }

// Position returns the current position.
func (g *Game) Position() Position { return g.pos }

// Moves returns the moves played so far. The slice is the game's own: do
// not modify it.
func (g *Game) Moves() []Move { return g.moves }

// Keys returns the Zobrist keys of every position so far, oldest first,
// the current one last (len(Keys()) == len(Moves())+1). The slice is the
// game's own: do not modify it.
func (g *Game) Keys() []uint64 { return g.keys }

// Play plays m if it is legal in the current position.
func (g *Game) Play(m Move) error {
	if !g.pos.IsLegal(m) {
		return fmt.Errorf("illegal move %s in %s", g.pos.UCI(m), g.pos.FEN())
	}
	var next Position
	g.pos.MakeMove(m, &next)
	g.pos = next
	g.moves = append(g.moves, m)
	g.keys = append(g.keys, next.Key())
	return nil
}

// PlayUCI plays a move given in UCI notation (see Position.ParseUCIMove).
func (g *Game) PlayUCI(s string) error {
	m, err := g.pos.ParseUCIMove(s)
	if err != nil {
		return err
	}
	return g.Play(m)
}

// PlaySAN plays a move given in Standard Algebraic Notation.
func (g *Game) PlaySAN(s string) error {
	m, err := g.pos.ParseSAN(s)
	if err != nil {
		return err
	}
	return g.Play(m)
}

// SANMoves returns the moves played in SAN, for PGN and chat.
func (g *Game) SANMoves() []string {
	out := make([]string, len(g.moves))
	pos := g.start
	var next Position
	for i, m := range g.moves {
		out[i] = pos.SAN(m)
		pos.MakeMove(m, &next)
		pos = next
	}
	return out
}

// Clone returns an independent copy of the game.
func (g *Game) Clone() *Game {
	return &Game{
		start: g.start,
		pos:   g.pos,
		moves: append([]Move(nil), g.moves...),
		keys:  append([]uint64(nil), g.keys...),
	}
}

// Repetitions returns how many times the current position occurred
// before in the game (0 when it is new). Only positions since the last
// capture or pawn move can repeat it.
func (g *Game) Repetitions() int {
	n := 0
	cur := len(g.keys) - 1
	stop := max(0, cur-g.pos.HalfmoveClock())
	for i := cur - 2; i >= stop; i -= 2 {
		if g.keys[i] == g.keys[cur] {
			n++
		}
	}
	return n
}

// Outcome reports whether the game is over by the rules: checkmate,
// stalemate, threefold repetition, the fifty-move rule or insufficient
// material. Repetition and the fifty-move rule are applied automatically
// (as Lichess does), not on claim. Checkmate on the move that reaches the
// hundredth half-move wins.
func (g *Game) Outcome() Outcome {
	var l MoveList
	g.pos.GenerateLegal(&l)
	if l.N == 0 {
		if g.pos.InCheck() {
			if g.pos.SideToMove() == White {
				return Outcome{BlackWins, Checkmate}
			}
			return Outcome{WhiteWins, Checkmate}
		}
		return Outcome{Draw, Stalemate}
	}
	if g.pos.InsufficientMaterial() {
		return Outcome{Draw, Insufficient}
	}
	if g.pos.HalfmoveClock() >= 100 {
		return Outcome{Draw, FiftyMove}
	}
	if g.Repetitions() >= 2 {
		return Outcome{Draw, Threefold}
	}
	return Outcome{Ongoing, NoReason}
}
