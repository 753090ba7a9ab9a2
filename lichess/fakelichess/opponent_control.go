package fakelichess

// What a test (or the sandbox) makes the opponent do in a running game.

import (
	"fmt"
	"time"
)

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

// OpponentResignOnTurn makes the opponent resign on its turn: now if it is
// to move, else instead of its next move. Unlike OpponentResign, the game
// never ends while a bot move may be on its way, so a test can hold every
// rejected move against the bot.
func (s *Server) OpponentResignOnTurn(gameID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.opGame(gameID)
	if err != nil {
		return err
	}
	if g.sideToMove() != g.botColor {
		s.opponentResigns(g)
		return nil
	}
	g.resignOnTurn = true
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
	s.opponentResigns(g)
	return nil
}

// opponentResigns ends g by the opponent's resignation, or aborts it while
// abortable (fewer than two moves). Call with s.mu held.
func (s *Server) opponentResigns(g *game) {
	if len(g.moves) < 2 {
		s.finish(g, statusAborted, "")
		return
	}
	s.finish(g, statusResign, colorName(g.botColor))
}
