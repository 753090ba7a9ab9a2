package bot

// Conversions between the board and the external engines' wire: positions,
// moves (Chess960 castling as king-takes-rook or not), limits and reports.

import (
	"errors"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/uci/client"
)

// wirePosition writes a game as the start FEN and the moves in the
// engine's notation.
func wirePosition(g *board.Game, chess960 bool) client.Position {
	start := g.Start()
	var out client.Position
	if fen := start.FEN(); fen != board.StartFEN || start.Chess960 {
		out.FEN = fen
	}
	pos := start
	out.Moves = make([]string, 0, len(g.Moves()))
	for _, m := range g.Moves() {
		out.Moves = append(out.Moves, wireMove(pos, m, chess960))
		var next board.Position
		pos.MakeMove(m, &next)
		pos = next
	}
	return out
}

// wireMove writes m in pos: castling king-takes-rook when chess960, else
// the king's own two-square move.
func wireMove(pos board.Position, m board.Move, chess960 bool) string {
	pos.Chess960 = chess960
	return pos.UCI(m)
}

// parseWireMove reads an engine's move in pos (long algebraic in the
// engine's castling notation, or SAN such as an xboard "O-O").
func parseWireMove(pos board.Position, s string, chess960 bool) (board.Move, error) {
	p := pos
	p.Chess960 = chess960
	m, err := p.ParseUCIMove(s)
	if err != nil {
		if m2, err2 := pos.ParseSAN(s); err2 == nil {
			m, err = m2, nil
		}
	}
	if err != nil {
		return board.NoMove, err
	}
	if !pos.IsLegal(m) {
		return board.NoMove, errors.New("illegal move")
	}
	return m, nil
}

// clientLimits converts search limits to the wire's.
func clientLimits(l engine.Limits) client.Limits {
	return client.Limits{WTime: l.WTime, BTime: l.BTime, WInc: l.WInc, BInc: l.BInc, MovesToGo: l.MovesToGo,
		MoveTime: l.MoveTime, Depth: l.Depth, Nodes: l.Nodes, Ponder: l.Ponder, Infinite: l.Infinite}
}

// engineInfo converts a report in pos to the embedded engine's terms (the
// PV as far as it is legal).
func engineInfo(pos board.Position, in client.Info, chess960 bool) engine.Info {
	out := engine.Info{Depth: in.Depth, SelDepth: in.SelDepth, MultiPV: max(in.MultiPV, 1), Nodes: in.Nodes,
		NPS: in.NPS, Time: in.Time, HashFull: in.HashFull, CurrMoveNumber: in.CurrMoveNumber}
	switch {
	case in.Mate > 0:
		out.Score = engine.MateScore - engine.Score(min(2*in.Mate-1, engine.MaxPly-1))
	case in.Mate < 0:
		out.Score = -engine.MateScore + engine.Score(min(-2*in.Mate, engine.MaxPly-1))
	default:
		bound := int(engine.MateScore - engine.MaxPly - 1)
		out.Score = engine.Score(max(min(in.CP, bound), -bound))
	}
	switch in.Bound {
	case client.Lower:
		out.Bound = engine.BoundLower
	case client.Upper:
		out.Bound = engine.BoundUpper
	}
	p := pos
	for _, s := range in.PV {
		m, err := parseWireMove(p, s, chess960)
		if err != nil {
			break
		}
		out.PV = append(out.PV, m)
		var next board.Position
		p.MakeMove(m, &next)
		p = next
	}
	if in.CurrMove != "" {
		if m, err := parseWireMove(pos, in.CurrMove, chess960); err == nil {
			out.CurrMove = m
		}
	}
	return out
}
