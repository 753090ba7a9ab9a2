package fakelichess

// The bot's game actions: move, draw and takeback offers, chat, abort,
// resign and claims.

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

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

// ongoingBotGame returns the game named in the path if it is still going,
// or answers 404 or 400 and returns nil. Call with s.mu held.
func (s *Server) ongoingBotGame(w http.ResponseWriter, r *http.Request) *game {
	g := s.botGame(w, r.PathValue("id"))
	if g != nil && g.status != statusStarted {
		writeError(w, http.StatusBadRequest, "This game is over")
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
	s.handleYesNo(w, r, func(g *game) *[2]bool { return &g.draw }, func(g *game, opp board.Color) {
		if g.draw[opp] {
			s.finish(g, statusDraw, "")
		} else {
			s.botOffersDraw(g)
		}
	})
}

// handleYesNo serves the bot's answer to a draw offer or takeback request:
// yes runs yes (accept the opponent's, or make one), no withdraws the
// opponent's pending one from offers.
func (s *Server) handleYesNo(w http.ResponseWriter, r *http.Request, offers func(*game) *[2]bool, yes func(g *game, opp board.Color)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.ongoingBotGame(w, r)
	if g == nil {
		return
	}
	opp := g.botColor.Other()
	switch r.PathValue("accept") {
	case "yes", "true":
		yes(g, opp)
	case "no", "false":
		if o := offers(g); o[opp] {
			o[opp] = false
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
	g.spent = g.spent[:n-undo]
	g.takeback = [2]bool{}
	g.draw = [2]bool{}
	g.turnStart = time.Now()
	s.pushGame(g.id, g.stateJSON(s, time.Now()))
	s.afterChange(g)
}

func (s *Server) handleTakeback(w http.ResponseWriter, r *http.Request) {
	s.handleYesNo(w, r, func(g *game) *[2]bool { return &g.takeback }, func(g *game, opp board.Color) {
		if g.takeback[opp] {
			s.takeBack(g, opp)
			return
		}
		if len(g.moves) == 0 {
			return
		}
		g.takeback[g.botColor] = true
		s.pushGame(g.id, g.stateJSON(s, time.Now()))
		s.notify()
		s.opponentAnswers(g, &g.takeback, s.opts.AcceptTakeback, func() { s.takeBack(g, g.botColor) })
	})
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
	if g.status != statusStarted || len(g.moves) >= 2 || g.tournament != "" { // tournament games cannot be aborted
		writeError(w, http.StatusBadRequest, "This game can no longer be aborted")
		return
	}
	s.finish(g, statusAborted, "")
	writeOK(w)
}

func (s *Server) handleResign(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.ongoingBotGame(w, r)
	if g == nil {
		return
	}
	if len(g.moves) < 2 && g.tournament == "" {
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
