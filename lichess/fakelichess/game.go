package fakelichess

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

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
	ID        string
	BotColor  string // "white" or "black"
	Opponent  Player
	Variant   string
	Rated     bool
	Moves     []string // as sent on the wire
	FEN       string   // current position
	Status    string   // Lichess status name
	Winner    string   // "white", "black" or "" (draw, abort, ongoing)
	WTime     time.Duration
	BTime     time.Duration
	BotChat   []string // texts the bot wrote (player room)
	Started   time.Time
	Finished  time.Time
	BotOffers int  // draw offers made by the bot
	Anonymous bool // the opponent was not logged in
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
	anonymous   bool // the opponent is not logged in
	createdAt   time.Time
	g           *board.Game
	chess960    bool // king-takes-rook semantics (chess960, fromPosition)
	moves       []string
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

// corresLeft is c's correspondence clock: the days per turn, counting down
// while c is to move (lila gives the full days back after each move).
func (g *game) corresLeft(c board.Color, now time.Time) time.Duration {
	full := time.Duration(g.days) * 24 * time.Hour
	if g.status == statusStarted && g.sideToMove() == c {
		full -= now.Sub(g.turnStart)
	}
	return max(full, 0)
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

var variantNames = map[string][2]string{
	"standard": {"Standard", "Std"}, "chess960": {"Chess960", "960"}, "fromPosition": {"From Position", "FEN"},
	"crazyhouse": {"Crazyhouse", "Crazy"}, "antichess": {"Antichess", "Anti"}, "atomic": {"Atomic", "Atom"},
	"horde": {"Horde", "Horde"}, "kingOfTheHill": {"King of the Hill", "KotH"}, "racingKings": {"Racing Kings", "Racing"},
	"threeCheck": {"Three-check", "3check"},
}

// playable reports whether the fake can play a variant by the rules.
func playable(variant string) bool {
	return variant == "standard" || variant == "chess960" || variant == "fromPosition"
}

func variantJSON(key string, short bool) map[string]string {
	n, ok := variantNames[key]
	if !ok {
		n = [2]string{key, key}
	}
	m := map[string]string{"key": key, "name": n[0]}
	if short {
		m["short"] = n[1]
	}
	return m
}

func perfName(key string) string {
	if n, ok := variantNames[key]; ok {
		return n[0]
	}
	if key == "ultraBullet" {
		return "UltraBullet"
	}
	return strings.ToUpper(key[:1]) + key[1:]
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

// stateJSON is the gameState object.
func (g *game) stateJSON(s *Server, now time.Time) map[string]any {
	m := map[string]any{"type": "gameState", "moves": strings.Join(g.moves, " "), "status": g.status}
	if g.hasClock {
		m["wtime"], m["btime"] = ms(g.remaining(board.White, now)), ms(g.remaining(board.Black, now))
		m["winc"], m["binc"] = ms(g.inc), ms(g.inc)
	} else if g.days > 0 {
		m["wtime"], m["btime"] = ms(g.corresLeft(board.White, now)), ms(g.corresLeft(board.Black, now))
		m["winc"], m["binc"] = 0, 0
	} else {
		m["wtime"], m["btime"], m["winc"], m["binc"] = unlimitedMillis, unlimitedMillis, 0, 0
	}
	if g.winner != "" {
		m["winner"] = g.winner
	}
	if g.draw[board.White] {
		m["wdraw"] = true
	}
	if g.draw[board.Black] {
		m["bdraw"] = true
	}
	if g.takeback[board.White] {
		m["wtakeback"] = true
	}
	if g.takeback[board.Black] {
		m["btakeback"] = true
	}
	if g.status == statusStarted && len(g.moves) < 2 {
		m["expiration"] = map[string]int64{"idleMillis": ms(now.Sub(g.lastMoveAt)), "millisToMove": ms(s.opts.FirstMoveTimeout)}
	}
	return m
}

func (g *game) playerJSON(s *Server, c board.Color) map[string]any {
	p := g.opp
	if c == g.botColor {
		p = s.bot
	} else if g.anonymous {
		return map[string]any{} // lila adds only what it knows: nothing
	}
	m := map[string]any{"id": p.ID, "name": p.Name, "rating": p.Rating, "title": nil}
	if p.Title != "" {
		m["title"] = p.Title
	}
	return m
}

func (g *game) fullJSON(s *Server) map[string]any {
	state := g.stateJSON(s, time.Now())
	m := map[string]any{
		"type": "gameFull", "id": g.id, "variant": variantJSON(g.variant, true),
		"speed": g.speed(), "perf": map[string]string{"name": perfName(g.perfKey())},
		"rated": g.rated, "createdAt": g.createdAt.UnixMilli(),
		"white": g.playerJSON(s, board.White), "black": g.playerJSON(s, board.Black),
		"initialFen": g.initialFEN, "state": state,
	}
	if g.hasClock {
		m["clock"] = map[string]int64{"initial": ms(g.initial), "increment": ms(g.inc)}
	} else if g.days > 0 {
		m["daysPerTurn"] = g.days
	}
	return m
}

// eventInfo is the GameEventInfo of gameStart/gameFinish and nowPlaying.
func (g *game) eventInfo(s *Server, finish bool) map[string]any {
	pos := g.g.Position()
	last := ""
	if len(g.moves) > 0 {
		last = g.moves[len(g.moves)-1]
	}
	m := map[string]any{
		"fullId": g.fullID, "gameId": g.id, "id": g.id, "color": colorName(g.botColor),
		"fen": pos.FEN(), "lastMove": last, "source": "friend",
		"status":  map[string]any{"id": statusIDs[g.status], "name": g.status},
		"variant": variantJSON(g.variant, false), "speed": g.speed(), "perf": g.perfKey(),
		"rated": g.rated, "hasMoved": g.botMoved(),
		"opponent": g.opponentJSON(),
		"isMyTurn": g.status == statusStarted && pos.SideToMove() == g.botColor,
		"rating":   s.bot.Rating, "compat": map[string]bool{"bot": true, "board": false},
	}
	if g.hasClock {
		m["secondsLeft"] = int(g.remaining(g.botColor, time.Now()).Seconds())
	} else if g.days > 0 {
		m["secondsLeft"] = int(g.corresLeft(g.botColor, time.Now()).Seconds())
	}
	if finish {
		if g.winner != "" {
			m["winner"] = g.winner
		}
		if g.rated {
			m["ratingDiff"] = 0
		}
	}
	return m
}

// opponentJSON is the opponent object of gameStart/gameFinish/nowPlaying;
// an anonymous one is {"id": null, "username": "Anon."} as in the API's
// account-playing-anon example.
func (g *game) opponentJSON() map[string]any {
	if g.anonymous {
		return map[string]any{"id": nil, "username": "Anon."}
	}
	return map[string]any{"id": g.opp.ID, "username": g.opp.Name, "rating": g.opp.Rating}
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
		Moves: append([]string(nil), g.moves...), FEN: pos.FEN(), Status: g.status, Winner: g.winner,
		WTime: g.remaining(board.White, now), BTime: g.remaining(board.Black, now),
		Anonymous: g.anonymous,
		Started:   g.createdAt, Finished: g.finished, BotOffers: g.botOffers,
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
	if len(g.moves) < 2 {
		wait := s.opts.FirstMoveTimeout - time.Since(g.lastMoveAt)
		g.abort = s.after(max(wait, 0), func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if g.gen == gen && g.status == statusStarted {
				s.finish(g, statusAborted, "")
			}
		})
	} else if g.hasClock {
		g.flag = s.after(g.remaining(stm, time.Now()), func() { s.checkFlag(g, gen) })
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
	if left := g.remaining(stm, time.Now()); left > 0 {
		g.flag = s.after(left, func() { s.checkFlag(g, gen) })
		return
	}
	g.times[stm] = 0
	g.turnStart = time.Now()
	winner := stm.Other()
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
	if g.clockRunning() {
		left := g.times[color] - now.Sub(g.turnStart)
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
	g.status, g.winner, g.finished = status, winner, now
	g.draw, g.takeback = [2]bool{}, [2]bool{}
	s.pushGame(g.id, g.stateJSON(s, now))
	s.pushGame(g.id, nil)
	s.pushEvent(map[string]any{"type": "gameFinish", "game": g.eventInfo(s, true)})
	s.afterChange(g)
}

// botGame finds a game of the bot for a game action, writing the error.
// Call with s.mu held.
func (s *Server) botGame(w http.ResponseWriter, id string) *game {
	g := s.games[id]
	if g == nil {
		writeError(w, http.StatusNotFound, "No such game")
		return nil
	}
	return g
}

func (s *Server) handleMove(w http.ResponseWriter, r *http.Request) {
	id, uci := r.PathValue("id"), r.PathValue("move")
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.botGame(w, id)
	if g == nil {
		return
	}
	if g.status != statusStarted || g.sideToMove() != g.botColor {
		writeError(w, http.StatusBadRequest, "Not your turn, or game already over")
		return
	}
	pos := g.g.Position()
	m, err := pos.ParseUCIMove(uci)
	if err != nil || (g.variant == "chess960" && m.IsCastling() && uci[2:4] != m.To().String()) {
		writeError(w, http.StatusBadRequest, "Invalid UCI: "+uci)
		return
	}
	offer := r.URL.Query().Get("offeringDraw")
	opp := g.botColor.Other()
	if offer == "true" && g.draw[opp] {
		s.play(g, m, g.botColor)
		if g.status == statusStarted {
			s.finish(g, statusDraw, "")
		}
		writeOK(w)
		return
	}
	s.play(g, m, g.botColor)
	if g.status == statusStarted && offer == "true" {
		s.botOffersDraw(g)
	}
	writeOK(w)
}

// botOffersDraw records the bot's offer and schedules the opponent's
// answer. Call with s.mu held.
func (s *Server) botOffersDraw(g *game) {
	if len(g.moves) < 2 {
		return // ignored before ply 2, as Lichess does
	}
	g.draw[g.botColor] = true
	g.botOffers++
	s.pushGame(g.id, g.stateJSON(s, time.Now()))
	s.notify()
	s.opponentAnswers(g, &g.draw, s.opts.AcceptDraw, func() { s.finish(g, statusDraw, "") })
}

// opponentAnswers schedules the opponent's answer to the bot's pending
// offer flagged in offers (a draw or a takeback): after OpponentDelay it asks
// decide (nil = decline) without holding s.mu, then accepts, or withdraws the
// offer. The answer is dropped if the game moved on meanwhile. Call with s.mu
// held.
func (s *Server) opponentAnswers(g *game, offers *[2]bool, decide func(GameInfo) bool, accept func()) {
	gen := g.gen
	pending := func() bool { return g.gen == gen && g.status == statusStarted && offers[g.botColor] }
	s.cancelTimer(&g.answer)
	g.answer = s.after(s.opts.OpponentDelay, func() {
		s.mu.Lock()
		if !pending() {
			s.mu.Unlock()
			return
		}
		info := g.info()
		s.mu.Unlock()
		yes := decide != nil && decide(info)
		s.mu.Lock()
		defer s.mu.Unlock()
		if !pending() {
			return
		}
		if yes {
			accept()
			return
		}
		offers[g.botColor] = false
		s.pushGame(g.id, g.stateJSON(s, time.Now()))
		s.notify()
	})
}

func (s *Server) handleDraw(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.botGame(w, r.PathValue("id"))
	if g == nil {
		return
	}
	if g.status != statusStarted {
		writeError(w, http.StatusBadRequest, "This game is over")
		return
	}
	opp := g.botColor.Other()
	switch r.PathValue("accept") {
	case "yes", "true":
		if g.draw[opp] {
			s.finish(g, statusDraw, "")
		} else {
			s.botOffersDraw(g)
		}
	case "no", "false":
		if g.draw[opp] {
			g.draw[opp] = false
			s.pushGame(g.id, g.stateJSON(s, time.Now()))
			s.notify()
		}
	default:
		writeError(w, http.StatusBadRequest, "Invalid value")
		return
	}
	writeOK(w)
}

// takeBack undoes plies until proposer is to move again. Call with s.mu held.
func (s *Server) takeBack(g *game, proposer board.Color) {
	n := len(g.moves)
	undo := 1
	if g.sideToMove() == proposer {
		undo = 2
	}
	if n < undo {
		return
	}
	start := g.g.Start()
	ng := board.NewGame(start)
	played := g.g.Moves()
	for _, m := range played[:n-undo] {
		if err := ng.Play(m); err != nil {
			return
		}
	}
	g.g = ng
	g.moves = g.moves[:n-undo]
	g.takeback = [2]bool{}
	g.draw = [2]bool{}
	g.turnStart = time.Now()
	s.pushGame(g.id, g.stateJSON(s, time.Now()))
	s.afterChange(g)
}

func (s *Server) handleTakeback(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.botGame(w, r.PathValue("id"))
	if g == nil {
		return
	}
	if g.status != statusStarted {
		writeError(w, http.StatusBadRequest, "This game is over")
		return
	}
	opp := g.botColor.Other()
	switch r.PathValue("accept") {
	case "yes", "true":
		if g.takeback[opp] {
			s.takeBack(g, opp)
			break
		}
		if len(g.moves) == 0 {
			break
		}
		g.takeback[g.botColor] = true
		s.pushGame(g.id, g.stateJSON(s, time.Now()))
		s.notify()
		s.opponentAnswers(g, &g.takeback, s.opts.AcceptTakeback, func() { s.takeBack(g, g.botColor) })
	case "no", "false":
		if g.takeback[opp] {
			g.takeback[opp] = false
			s.pushGame(g.id, g.stateJSON(s, time.Now()))
			s.notify()
		}
	default:
		writeError(w, http.StatusBadRequest, "Invalid value")
		return
	}
	writeOK(w)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	room, text := r.PostForm.Get("room"), r.PostForm.Get("text")
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.botGame(w, r.PathValue("id"))
	if g == nil {
		return
	}
	if room != "player" && room != "spectator" {
		writeError(w, http.StatusBadRequest, "room: Invalid value")
		return
	}
	if text == "" || utf8.RuneCountInString(text) > 140 {
		writeError(w, http.StatusBadRequest, "text: Invalid value")
		return
	}
	g.chat = append(g.chat, chatLine{room: room, text: text})
	s.pushGame(g.id, map[string]any{"type": "chatLine", "room": room, "username": s.bot.Name, "text": text})
	s.notify()
	writeOK(w)
}

func (s *Server) handleAbort(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.botGame(w, r.PathValue("id"))
	if g == nil {
		return
	}
	if g.status != statusStarted || len(g.moves) >= 2 {
		writeError(w, http.StatusBadRequest, "This game can no longer be aborted")
		return
	}
	s.finish(g, statusAborted, "")
	writeOK(w)
}

func (s *Server) handleResign(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.botGame(w, r.PathValue("id"))
	if g == nil {
		return
	}
	if g.status != statusStarted {
		writeError(w, http.StatusBadRequest, "This game is over")
		return
	}
	if len(g.moves) < 2 {
		s.finish(g, statusAborted, "") // an abortable game is aborted, as lila does
	} else {
		s.finish(g, statusResign, colorName(g.botColor.Other()))
	}
	writeOK(w)
}

func (s *Server) handleClaim(w http.ResponseWriter, r *http.Request) {
	victory := strings.HasSuffix(r.URL.Path, "claim-victory")
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.botGame(w, r.PathValue("id"))
	if g == nil {
		return
	}
	if g.status != statusStarted || !g.gone || time.Since(g.goneAt) < s.opts.ClaimWinAfter {
		if victory {
			writeError(w, http.StatusBadRequest, "You cannot claim the win on this game")
		} else {
			writeError(w, http.StatusBadRequest, "You cannot claim draw on this game")
		}
		return
	}
	if victory {
		s.finish(g, statusTimeout, colorName(g.botColor))
	} else {
		s.finish(g, statusDraw, "")
	}
	writeOK(w)
}

// --- the opponent, driven by tests ---

// opGame finds an ongoing game for an opponent action. Call with s.mu held.
func (s *Server) opGame(id string) (*game, error) {
	if s.closed {
		return nil, errClosed
	}
	g := s.games[id]
	if g == nil {
		return nil, fmt.Errorf("fakelichess: no game %q", id)
	}
	if g.status != statusStarted {
		return nil, fmt.Errorf("fakelichess: game %s is over (%s)", id, g.status)
	}
	return g, nil
}

// OpponentOfferDraw makes the opponent offer a draw (bdraw/wdraw appears in
// the next gameState). The bot accepts with HandleDrawOffer(yes) or a move
// with offeringDraw=true; any other bot move declines it.
func (s *Server) OpponentOfferDraw(gameID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.opGame(gameID)
	if err != nil {
		return err
	}
	opp := g.botColor.Other()
	if g.draw[g.botColor] {
		s.finish(g, statusDraw, "")
		return nil
	}
	g.draw[opp] = true
	s.pushGame(g.id, g.stateJSON(s, time.Now()))
	s.notify()
	return nil
}

// OpponentProposeTakeback makes the opponent propose taking back its last
// move.
func (s *Server) OpponentProposeTakeback(gameID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.opGame(gameID)
	if err != nil {
		return err
	}
	if len(g.moves) == 0 {
		return fmt.Errorf("fakelichess: nothing to take back in %s", gameID)
	}
	g.takeback[g.botColor.Other()] = true
	s.pushGame(g.id, g.stateJSON(s, time.Now()))
	s.notify()
	return nil
}

// OpponentSay writes a chat line from the opponent (room "player").
func (s *Server) OpponentSay(gameID, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.opGame(gameID)
	if err != nil {
		return err
	}
	g.chat = append(g.chat, chatLine{room: "player", user: g.opp.Name, text: text})
	s.pushGame(g.id, map[string]any{"type": "chatLine", "room": "player", "username": g.opp.Name, "text": text})
	s.notify()
	return nil
}

// OpponentLeave makes the opponent leave: it stops moving, and the game
// stream gets opponentGone with claimWinInSeconds counting down (a line now
// and one when it reaches 0), after which ClaimVictory is allowed.
func (s *Server) OpponentLeave(gameID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.opGame(gameID)
	if err != nil {
		return err
	}
	g.gone, g.goneAt = true, time.Now()
	secs := int((s.opts.ClaimWinAfter + time.Second - 1) / time.Second)
	s.pushGame(g.id, map[string]any{"type": "opponentGone", "gone": true, "claimWinInSeconds": secs})
	gen := g.gen
	s.cancelTimer(&g.goneTimer)
	g.goneTimer = s.after(s.opts.ClaimWinAfter, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if g.gone && g.status == statusStarted && g.gen >= gen {
			s.pushGame(g.id, map[string]any{"type": "opponentGone", "gone": true, "claimWinInSeconds": 0})
			s.notify()
		}
	})
	s.afterChange(g)
	return nil
}

// OpponentReturn brings a gone opponent back (opponentGone gone:false).
func (s *Server) OpponentReturn(gameID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.opGame(gameID)
	if err != nil {
		return err
	}
	if !g.gone {
		return nil
	}
	g.gone = false
	s.cancelTimer(&g.goneTimer)
	s.pushGame(g.id, map[string]any{"type": "opponentGone", "gone": false})
	s.afterChange(g)
	return nil
}

// OpponentResign makes the opponent resign (or abort, while abortable).
func (s *Server) OpponentResign(gameID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.opGame(gameID)
	if err != nil {
		return err
	}
	if len(g.moves) < 2 {
		s.finish(g, statusAborted, "")
	} else {
		s.finish(g, statusResign, colorName(g.botColor))
	}
	return nil
}
