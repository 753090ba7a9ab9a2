package fakelichess

import (
	"context"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

const (
	statusStarted   = "started"
	statusAborted   = "aborted"
	statusMate      = "mate"
	statusResign    = "resign"
	statusStalemate = "stalemate"
	statusTimeout   = "timeout"
	statusDraw      = "draw"
	statusOutOfTime = "outoftime"
)

var statusIDs = map[string]int{
	"created": 10, statusStarted: 20, statusAborted: 25, statusMate: 30, statusResign: 31,
	statusStalemate: 32, statusTimeout: 33, statusDraw: 34, statusOutOfTime: 35,
}

// unlimitedMillis is what Lichess reports as the clock of an unlimited game.
const unlimitedMillis = 2147483647

// GameInfo is a snapshot of one game, for assertions and policies.
type GameInfo struct {
	ID       string
	BotColor string // "white" or "black"
	Opponent Player
	Variant  string
	Rated    bool
	Moves    []string // as sent on the wire
	// Spent is what each move in Moves cost its mover's clock (zero while
	// the clock was not running yet): where a flagged side's time went.
	Spent     []time.Duration
	FEN       string // current position
	Status    string // Lichess status name
	Winner    string // "white", "black" or "" (draw, abort, ongoing)
	WTime     time.Duration
	BTime     time.Duration
	BotChat   []string // texts the bot wrote (player room)
	Started   time.Time
	Finished  time.Time
	BotOffers int  // draw offers made by the bot
	Anonymous bool // the opponent was not logged in
	// Days is the days per move of a correspondence game (0 otherwise);
	// WTime and BTime are then its clocks in game time.
	Days int
	// BotLeastLeft is, in a correspondence game, the least game time the
	// bot's clock showed when it moved (how close it came to its
	// deadline); -1 before its first move or in other games.
	BotLeastLeft time.Duration
	// TournamentID is the arena or Swiss tournament of the game ("" for
	// a challenge's).
	TournamentID string
}

// Over reports whether the game has ended.
func (g GameInfo) Over() bool { return g.Status != statusStarted }

type chatLine struct{ room, user, text string }

// game is one game. All fields are guarded by Server.mu.
type game struct {
	id, fullID  string
	botColor    board.Color
	opp         Player
	variant     string
	initialFEN  string // "startpos" or a FEN
	rated       bool
	hasClock    bool
	initial     time.Duration
	inc         time.Duration
	days        int
	daySpeed    float64 // correspondence: game time per real time (24h / Options.DayLength)
	botLeast    time.Duration
	anonymous   bool   // the opponent is not logged in
	tournament  string // tournament id ("" for a challenge's game)
	source      string // GameEventInfo.source: "friend", "arena", "swiss"
	createdAt   time.Time
	g           *board.Game
	chess960    bool // king-takes-rook semantics (chess960, fromPosition)
	moves       []string
	spent       []time.Duration // per move: the mover's clock time it took
	status      string
	winner      string
	times       [2]time.Duration // remaining at turnStart
	turnStart   time.Time
	lastMoveAt  time.Time
	draw        [2]bool
	takeback    [2]bool
	gone        bool
	goneAt      time.Time
	opponent    Opponent
	chat        []chatLine
	finished    time.Time
	botOffers   int
	flag, abort *time.Timer
	oppMove     *time.Timer
	answer      *time.Timer
	goneTimer   *time.Timer
	gen         int // bumps on every state change; stale timers check it
	// resignOnTurn makes the opponent resign when its next move is due
	// (OpponentResignOnTurn).
	resignOnTurn bool
}

func colorName(c board.Color) string {
	if c == board.White {
		return "white"
	}
	return "black"
}

func (g *game) stopTimers(s *Server) {
	s.cancelTimer(&g.flag)
	s.cancelTimer(&g.abort)
	s.cancelTimer(&g.oppMove)
	s.cancelTimer(&g.answer)
	s.cancelTimer(&g.goneTimer)
}

func (g *game) sideToMove() board.Color {
	p := g.g.Position()
	return p.SideToMove()
}

func (g *game) clockRunning() bool { return g.hasClock && len(g.moves) >= 2 }

// remaining returns c's time now.
func (g *game) remaining(c board.Color, now time.Time) time.Duration {
	t := g.times[c]
	if g.clockRunning() && g.status == statusStarted && g.sideToMove() == c {
		t -= now.Sub(g.turnStart)
	}
	return max(t, 0)
}

// corresLeft is c's correspondence clock in game time: the days per turn,
// counting down while c is to move (lila gives the full days back after
// each move); once the game is over, what it was at the end.
func (g *game) corresLeft(c board.Color, now time.Time) time.Duration {
	if g.status != statusStarted {
		return g.times[c]
	}
	full := time.Duration(g.days) * 24 * time.Hour
	if g.sideToMove() == c {
		full -= g.gameTime(now.Sub(g.turnStart))
	}
	return max(full, 0)
}

// gameTime converts a real duration into correspondence game time.
func (g *game) gameTime(d time.Duration) time.Duration {
	return time.Duration(float64(d) * g.daySpeed)
}

// realTime converts correspondence game time into a real duration.
func (g *game) realTime(d time.Duration) time.Duration {
	return time.Duration(float64(d) / g.daySpeed)
}

// clockLeft is what the side to move c has left now: its clock, or its
// correspondence clock in game time.
func (g *game) clockLeft(c board.Color, now time.Time) time.Duration {
	if g.days > 0 {
		return g.corresLeft(c, now)
	}
	return g.remaining(c, now)
}

func (g *game) speed() string {
	if !g.hasClock {
		return "correspondence"
	}
	return string(lichess.SpeedOf(g.initial, g.inc))
}

func (g *game) perfKey() string {
	if g.variant == "standard" || g.variant == "fromPosition" {
		return g.speed()
	}
	return g.variant // chess960 and the other variants have their own perf

}

func (g *game) botMoved() bool {
	start := g.g.Start()
	first := start.SideToMove()
	if g.botColor == first {
		return len(g.moves) >= 1
	}
	return len(g.moves) >= 2
}

func (g *game) info() GameInfo {
	now := time.Now()
	pos := g.g.Position()
	gi := GameInfo{
		ID: g.id, BotColor: colorName(g.botColor), Opponent: g.opp, Variant: g.variant, Rated: g.rated,
		Moves: append([]string(nil), g.moves...), Spent: append([]time.Duration(nil), g.spent...), FEN: pos.FEN(), Status: g.status, Winner: g.winner,
		WTime: g.remaining(board.White, now), BTime: g.remaining(board.Black, now),
		Anonymous: g.anonymous, TournamentID: g.tournament,
		Started: g.createdAt, Finished: g.finished, BotOffers: g.botOffers,
		Days: g.days, BotLeastLeft: g.botLeast,
	}
	if g.days > 0 {
		gi.WTime, gi.BTime = g.corresLeft(board.White, now), g.corresLeft(board.Black, now)
	}
	for _, c := range g.chat {
		if c.user == "" {
			gi.BotChat = append(gi.BotChat, c.text)
		}
	}
	return gi
}

// Game returns a snapshot of a game (ok false if unknown).
func (s *Server) Game(id string) (GameInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil {
		return GameInfo{}, false
	}
	return g.info(), true
}

// Games returns snapshots of every game, oldest first.
func (s *Server) Games() []GameInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]GameInfo, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.games[id].info())
	}
	return out
}

// WaitGameOver waits until the game has ended and returns its final state.
func (s *Server) WaitGameOver(ctx context.Context, id string) (GameInfo, error) {
	var gi GameInfo
	err := s.WaitUntil(ctx, func() bool {
		var ok bool
		gi, ok = s.Game(id)
		return ok && gi.Over()
	})
	return gi, err
}

// newGame creates and starts a game. Call with s.mu held.
func (s *Server) newGame(id string, botColor board.Color, opp Player, spec ChallengeSpec) *game {
	start := board.StartPosition()
	initial := "startpos"
	chess960 := spec.Variant == "chess960" || spec.Variant == "fromPosition"
	if spec.FEN != "" {
		if p, err := board.ParseFEN(spec.FEN); err == nil {
			start = p
			initial = spec.FEN
		}
	}
	start.Chess960 = chess960
	if spec.GameFEN != "" {
		initial = spec.GameFEN
	}
	now := time.Now()
	g := &game{
		id: id, fullID: id + s.newID(4), botColor: botColor, opp: opp, variant: spec.Variant,
		initialFEN: initial, rated: spec.Rated, hasClock: spec.ClockLimit > 0 || spec.ClockIncrement > 0,
		initial: spec.ClockLimit, inc: spec.ClockIncrement, days: spec.Days, anonymous: spec.Anonymous, createdAt: now,
		g: board.NewGame(start), chess960: chess960, status: statusStarted,
		turnStart: now, lastMoveAt: now, opponent: spec.Opponent,
		daySpeed: float64(24*time.Hour) / float64(s.opts.DayLength), botLeast: -1,
		tournament: spec.tournamentID, source: spec.source,
	}
	if g.hasClock {
		g.days = 0
	}
	if g.source == "" {
		g.source = "friend"
	}
	if g.opponent == nil {
		g.opponent = s.opts.Opponent
	}
	g.times = [2]time.Duration{g.initial, g.initial}
	s.games[id] = g
	s.order = append(s.order, id)
	s.pushEvent(map[string]any{"type": "gameStart", "game": g.eventInfo(s, false)})
	s.afterChange(g)
	return g
}

// afterChange reschedules timers and the opponent after any state change,
// and pushes nothing itself. Call with s.mu held.
func (s *Server) afterChange(g *game) {
	g.gen++
	s.notify()
	s.cancelTimer(&g.flag)
	s.cancelTimer(&g.abort)
	s.cancelTimer(&g.oppMove)
	if g.status != statusStarted {
		g.stopTimers(s)
		return
	}
	gen := g.gen
	stm := g.sideToMove()
	switch {
	case g.hasClock && len(g.moves) < 2:
		// Only games with a clock expire before the first moves (lila's
		// Game.expirable); correspondence games wait on their days.
		wait := s.opts.FirstMoveTimeout - time.Since(g.lastMoveAt)
		g.abort = s.after(max(wait, 0), func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if g.gen == gen && g.status == statusStarted {
				s.finish(g, statusAborted, "")
			}
		})
	case g.hasClock:
		g.flag = s.after(g.remaining(stm, time.Now()), func() { s.checkFlag(g, gen) })
	case g.days > 0:
		g.flag = s.after(g.realTime(g.corresLeft(stm, time.Now())), func() { s.checkFlag(g, gen) })
	}
	if stm != g.botColor && !g.gone {
		g.oppMove = s.after(s.opts.OpponentDelay, func() { s.opponentMove(g, gen) })
	}
}

func (s *Server) checkFlag(g *game, gen int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.gen != gen || g.status != statusStarted {
		return
	}
	stm := g.sideToMove()
	if left := g.clockLeft(stm, time.Now()); left > 0 {
		if g.days > 0 {
			left = max(g.realTime(left), time.Millisecond)
		}
		g.flag = s.after(left, func() { s.checkFlag(g, gen) })
		return
	}
	s.outOfTime(g, stm)
}

// outOfTime ends the game: c's time is up. The other side wins unless it
// cannot mate. Call with s.mu held.
func (s *Server) outOfTime(g *game, c board.Color) {
	g.times[c] = 0
	g.turnStart = time.Now()
	if g.days > 0 {
		g.times[c.Other()] = time.Duration(g.days) * 24 * time.Hour
	}
	winner := c.Other()
	pos := g.g.Position()
	if !canMate(&pos, winner) {
		s.finish(g, statusOutOfTime, "")
		return
	}
	s.finish(g, statusOutOfTime, colorName(winner))
}

// canMate reports whether c has mating material (a pawn, a rook or queen,
// or two minor pieces).
func canMate(p *board.Position, c board.Color) bool {
	if p.Pieces(c, board.Pawn)|p.Pieces(c, board.Rook)|p.Pieces(c, board.Queen) != 0 {
		return true
	}
	return (p.Pieces(c, board.Knight) | p.Pieces(c, board.Bishop)).Count() >= 2
}

// opponentMove asks the Opponent for a move outside the lock, then plays it
// if the game has not changed meanwhile.
func (s *Server) opponentMove(g *game, gen int) {
	s.mu.Lock()
	if g.gen != gen || g.status != statusStarted || g.gone {
		s.mu.Unlock()
		return
	}
	offered := g.draw[g.botColor]
	info := g.info()
	clone := g.g.Clone()
	color := g.sideToMove()
	left, inc := g.remaining(color, time.Now()), g.inc
	if !g.hasClock {
		left = time.Hour
	}
	opp := g.opponent
	s.mu.Unlock()

	// A pending draw offer from the bot is answered before moving.
	acceptDraw := offered && s.opts.AcceptDraw != nil && s.opts.AcceptDraw(info)
	m := opp(s.ctx, clone, left, inc)

	s.mu.Lock()
	defer s.mu.Unlock()
	if g.gen != gen || g.status != statusStarted || s.closed {
		return
	}
	if g.resignOnTurn {
		s.opponentResigns(g)
		return
	}
	if offered && g.draw[g.botColor] {
		if acceptDraw {
			s.finish(g, statusDraw, "")
			return
		}
		g.draw[g.botColor] = false
	}
	if m == board.NoMove {
		s.finish(g, statusResign, colorName(color.Other()))
		return
	}
	pos := g.g.Position()
	if !pos.IsLegal(m) {
		s.opts.Logger.Error("fakelichess: opponent chose an illegal move; it resigns", "game", g.id, "move", m.String())
		s.finish(g, statusResign, colorName(color.Other()))
		return
	}
	s.play(g, m, color)
}

// wireUCI writes m as Lichess's gameState.moves does.
func (s *Server) wireUCI(g *game, pos board.Position, m board.Move) string {
	if !s.opts.LegacyCastling {
		pos.Chess960 = true // king takes rook, for every variant
	}
	return pos.UCI(m)
}

// play applies a legal move by color, with clocks and end detection. Call
// with s.mu held.
func (s *Server) play(g *game, m board.Move, color board.Color) {
	now := time.Now()
	pos := g.g.Position()
	uci := s.wireUCI(g, pos, m)
	if g.days > 0 {
		// lila checks the correspondence clock on any move attempt.
		left := g.corresLeft(color, now)
		if left <= 0 {
			s.outOfTime(g, color)
			return
		}
		if color == g.botColor && (g.botLeast < 0 || left < g.botLeast) {
			g.botLeast = left
		}
	}
	var spent time.Duration
	if g.clockRunning() {
		spent = now.Sub(g.turnStart)
		left := g.times[color] - spent
		if left <= 0 {
			g.times[color] = 0
			s.finish(g, statusOutOfTime, colorName(color.Other()))
			return
		}
		g.times[color] = left + g.inc
	}
	if err := g.g.Play(m); err != nil {
		s.opts.Logger.Error("fakelichess: playing a checked move failed", "err", err)
		return
	}
	g.moves = append(g.moves, uci)
	g.spent = append(g.spent, spent)
	g.turnStart, g.lastMoveAt = now, now
	g.draw[color.Other()] = false // a move declines the opponent's offer
	g.takeback = [2]bool{}
	out := g.g.Outcome()
	switch out.Reason {
	case board.Checkmate:
		s.finish(g, statusMate, colorName(color))
		return
	case board.Stalemate:
		s.finish(g, statusStalemate, "")
		return
	case board.Threefold, board.FiftyMove, board.Insufficient:
		s.finish(g, statusDraw, "")
		return
	}
	s.pushGame(g.id, g.stateJSON(s, now))
	s.afterChange(g)
}

// finish ends a game. Call with s.mu held.
func (s *Server) finish(g *game, status, winner string) {
	if g.status != statusStarted {
		return
	}
	now := time.Now()
	if g.clockRunning() {
		stm := g.sideToMove()
		g.times[stm] = g.remaining(stm, now)
	}
	if g.days > 0 && status != statusOutOfTime {
		g.times[board.White], g.times[board.Black] = g.corresLeft(board.White, now), g.corresLeft(board.Black, now)
	}
	g.status, g.winner, g.finished = status, winner, now
	g.draw, g.takeback = [2]bool{}, [2]bool{}
	s.pushGame(g.id, g.stateJSON(s, now))
	s.pushGame(g.id, nil)
	s.pushEvent(map[string]any{"type": "gameFinish", "game": g.eventInfo(s, true)})
	s.afterChange(g)
	if g.tournament != "" {
		s.tourneyGameOver(g)
	}
}

// --- the opponent, driven by tests ---
