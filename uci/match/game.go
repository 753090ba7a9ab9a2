package match

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Adjudication ends games early by the engines' own scores (UCI engines
// only; CEGO sends no scores). Zero fields disable a rule.
type Adjudication struct {
	// ResignScore and ResignMoves: a game is lost for a side when, for
	// ResignMoves consecutive moves each, that side reports at most
	// −ResignScore and its opponent at least +ResignScore (centipawns).
	ResignScore, ResignMoves int
	// DrawScore, DrawMoves, DrawAfter: a game is drawn when both sides
	// report |score| ≤ DrawScore for DrawMoves consecutive moves each, once
	// the game has reached move number DrawAfter.
	DrawScore, DrawMoves, DrawAfter int
	// MaxPlies draws a game that reaches this many plies (0: 1000).
	MaxPlies int
}

// Termination says how a game ended, as written in the PGN Termination tag.
type Termination string

// Terminations.
const (
	TermNormal      Termination = "normal"
	TermAdjudicated Termination = "adjudication"
	TermTime        Termination = "time forfeit"
	TermIllegal     Termination = "rules infraction"
	TermCrash       Termination = "abandoned"
	TermForfeit     Termination = "forfeit"
	TermAborted     Termination = "unterminated"
)

// PlyInfo is what is known about one move of a game.
type PlyInfo struct {
	Move     board.Move
	Book     bool
	Elapsed  time.Duration
	Clock    time.Duration // mover's clock after the move (timed games)
	HasScore bool
	Score    int // centipawns from the mover's view (mates: ±(100000 − plies))
	Mate     int
	Depth    int
}

// GameRecord is a finished game.
type GameRecord struct {
	Round        int
	White, Black string
	Start        board.Position
	Plies        []PlyInfo
	Result       board.Result
	Termination  Termination
	Reason       string // human-readable, e.g. "White mates", "Black loses on time"
	TC           TimeControl
	Started      time.Time
	// FirstIsWhite is true when the first --engine had White.
	FirstIsWhite bool
}

// ScoreFirst returns the first engine's score (1, 0.5, 0).
func (r GameRecord) ScoreFirst() float64 {
	s := 0.5
	switch r.Result {
	case board.WhiteWins:
		s = 1
	case board.BlackWins:
		s = 0
	}
	if !r.FirstIsWhite {
		s = 1 - s
	}
	return s
}

func colorName(c board.Color) string {
	if c == board.White {
		return "White"
	}
	return "Black"
}

func winFor(c board.Color) board.Result {
	if c == board.White {
		return board.WhiteWins
	}
	return board.BlackWins
}

// canMate reports whether side c has enough material to ever checkmate
// (anything beyond a bare king, a lone knight or a lone bishop).
func canMate(pos *board.Position, c board.Color) bool {
	if pos.Pieces(c, board.Pawn)|pos.Pieces(c, board.Rook)|pos.Pieces(c, board.Queen) != 0 {
		return true
	}
	minors := pos.Pieces(c, board.Knight).Count() + pos.Pieces(c, board.Bishop).Count()
	return minors >= 2
}

// hasMateInOne reports whether the side to move can mate at once.
func hasMateInOne(pos *board.Position) bool {
	var l, reply board.MoveList
	pos.GenerateLegal(&l)
	var child board.Position
	for _, m := range l.Slice() {
		pos.MakeMove(m, &child)
		if child.InCheck() {
			reply.N = 0
			child.GenerateLegal(&reply)
			if reply.N == 0 {
				return true
			}
		}
	}
	return false
}

// gameSetup is everything playGame needs besides the players.
type gameSetup struct {
	round        int
	opening      Opening
	tc           TimeControl
	margin       time.Duration
	adj          Adjudication
	firstIsWhite bool
}

// playGame plays one game between white and black. Player errors (crash,
// timeout, illegal move) end the game with a loss for that player; only a
// cancelled ctx returns an error.
func playGame(ctx context.Context, white, black player, s gameSetup) (GameRecord, error) {
	rec := GameRecord{
		Round: s.round, White: white.name(), Black: black.name(), Start: s.opening.Start,
		TC: s.tc, Started: time.Now(), FirstIsWhite: s.firstIsWhite,
	}
	g, err := s.opening.Game()
	if err != nil {
		return rec, err
	}
	for _, m := range s.opening.Moves {
		rec.Plies = append(rec.Plies, PlyInfo{Move: m, Book: true})
	}
	players := [2]player{white, black}
	defer white.endGame()
	defer black.endGame()
	end := func(r board.Result, t Termination, reason string) (GameRecord, error) {
		rec.Result, rec.Termination, rec.Reason = r, t, reason
		return rec, nil
	}
	for c, p := range players {
		if err := p.newGame(ctx); err != nil {
			if ctx.Err() != nil {
				return rec, ctx.Err()
			}
			side := board.Color(c)
			return end(winFor(side.Other()), TermCrash, fmt.Sprintf("%s (%s) failed to start a game: %v", colorName(side), p.name(), err))
		}
	}
	clock := [2]time.Duration{s.tc.Base, s.tc.Base}
	lastMove := ""
	maxPlies := s.adj.MaxPlies
	if maxPlies <= 0 {
		maxPlies = 1000
	}
	var resignRun, winRun, drawRun [2]int
	for {
		pos := g.Position()
		us := pos.SideToMove()
		if o := g.Outcome(); o.Result != board.Ongoing {
			claimable := o.Reason == board.Threefold || o.Reason == board.FiftyMove
			if !claimable || !hasMateInOne(&pos) {
				return end(o.Result, TermNormal, describeOutcome(o, us))
			}
		}
		if len(g.Moves()) >= maxPlies {
			return end(board.Draw, TermAdjudicated, fmt.Sprintf("draw: game reached %d plies", maxPlies))
		}
		p := players[us]
		req := moveRequest{
			game: g, ourTime: clock[us], oppTime: clock[us.Other()], ourInc: s.tc.Inc, oppInc: s.tc.Inc,
			tc: s.tc, lastMove: lastMove,
		}
		switch {
		case s.tc.Timed():
			req.deadline = time.Now().Add(clock[us] + s.margin)
		case s.tc.MoveTime > 0:
			req.deadline = time.Now().Add(s.tc.MoveTime + s.margin + time.Second)
		default:
			req.deadline = time.Now().Add(untimedMoveTimeout)
		}
		reply, err := p.move(ctx, req)
		if ctx.Err() != nil {
			return rec, ctx.Err()
		}
		who := fmt.Sprintf("%s (%s)", colorName(us), p.name())
		timeLoss := func() (GameRecord, error) {
			if !canMate(&pos, us.Other()) {
				return end(board.Draw, TermTime, who+" ran out of time, but the opponent cannot mate")
			}
			return end(winFor(us.Other()), TermTime, who+" loses on time")
		}
		switch {
		case errors.Is(err, ErrTimeout):
			return timeLoss()
		case err != nil:
			return end(winFor(us.Other()), TermCrash, fmt.Sprintf("%s: %v", who, err))
		case reply.forfeit:
			return end(winFor(us.Other()), TermForfeit, who+" forfeits")
		}
		if s.tc.Timed() {
			if reply.elapsed > clock[us]+s.margin {
				return timeLoss()
			}
			clock[us] = max(clock[us]-reply.elapsed, 0) + s.tc.Inc
		}
		m, perr := pos.ParseUCIMove(reply.move)
		if perr != nil {
			return end(winFor(us.Other()), TermIllegal, fmt.Sprintf("%s played an illegal move %q", who, reply.move))
		}
		lastMove = cegoMove(pos, m)
		if err := g.Play(m); err != nil {
			return end(winFor(us.Other()), TermIllegal, fmt.Sprintf("%s played an illegal move %q: %v", who, reply.move, err))
		}
		rec.Plies = append(rec.Plies, PlyInfo{
			Move: m, Elapsed: reply.elapsed, Clock: clock[us],
			HasScore: reply.hasScore, Score: reply.score, Mate: reply.mate, Depth: reply.depth,
		})

		// Score adjudication: both sides must agree.
		if !reply.hasScore {
			resignRun[us], winRun[us], drawRun[us] = 0, 0, 0
			continue
		}
		a := s.adj
		if a.ResignMoves > 0 && a.ResignScore > 0 {
			resignRun[us], winRun[us] = countIf(resignRun[us], reply.score <= -a.ResignScore), countIf(winRun[us], reply.score >= a.ResignScore)
			them := us.Other()
			if resignRun[us] >= a.ResignMoves && winRun[them] >= a.ResignMoves {
				return end(winFor(them), TermAdjudicated, fmt.Sprintf("%s resigns (adjudication: both engines agree)", who))
			}
			if winRun[us] >= a.ResignMoves && resignRun[them] >= a.ResignMoves {
				return end(winFor(us), TermAdjudicated, fmt.Sprintf("%s (%s) resigns (adjudication: both engines agree)", colorName(them), players[them].name()))
			}
		}
		if a.DrawMoves > 0 {
			drawRun[us] = countIf(drawRun[us], reply.score >= -a.DrawScore && reply.score <= a.DrawScore)
			if pos.FullmoveNumber() >= a.DrawAfter && drawRun[0] >= a.DrawMoves && drawRun[1] >= a.DrawMoves {
				return end(board.Draw, TermAdjudicated, "draw by adjudication: both engines agree")
			}
		}
	}
}

func countIf(run int, cond bool) int {
	if cond {
		return run + 1
	}
	return 0
}

func describeOutcome(o board.Outcome, toMove board.Color) string {
	switch o.Reason {
	case board.Checkmate:
		return colorName(toMove.Other()) + " mates"
	case board.Stalemate:
		return "draw by stalemate"
	case board.Threefold:
		return "draw by threefold repetition"
	case board.FiftyMove:
		return "draw by the fifty-move rule"
	case board.Insufficient:
		return "draw by insufficient material"
	}
	return o.Result.String()
}
