package bot

import (
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// decide is the policy's verdict on c with the allow and block lists from
// URLs added (userlists.go). Call with s.mu held.
func (s *Service) decide(c *lichess.Challenge) Decision {
	o := offerOf(c)
	p, allowNone := s.lists.policy(&s.cfg.Policy)
	if allowNone && !slices.Contains(s.cfg.Policy.Allow, o.Challenger) {
		return Decision{Verdict: Decline, Reason: ReasonGeneric}
	}
	active := s.busySlots()
	if isCorrespondenceOffer(c) {
		active = s.corrCount()
	}
	return Decide(o, p, active, len(s.queue))
}

// capOpponent declines with "later" a challenge from an opponent who has
// had PONDEROSA_MAX_GAMES_PER_OPPONENT games in the last 24 hours, or
// PONDEROSA_MAX_GAMES_IN_A_ROW games in a row. The finished games come
// from the store, so they survive restarts; the games being played against
// the challenger (running, accepted or queued, resumed ones included) add
// to both counts, so that challenges arriving together cannot pass a cap.
// A game against someone else that has not ended does not break a run.
// Call with s.mu held.
func (s *Service) capOpponent(c *lichess.Challenge, d Decision) Decision {
	p := &s.cfg.Policy
	if d.Verdict == Decline || c.Challenger.ID == "" || (p.MaxPerOpponentDay == 0 && p.MaxInARow == 0) {
		return d
	}
	who := strings.ToLower(c.Challenger.ID)
	ongoing := s.ongoingAgainst(who)
	if p.MaxPerOpponentDay > 0 && s.mem.GamesAgainst(who, time.Now().Add(-24*time.Hour))+ongoing >= p.MaxPerOpponentDay {
		s.log.Info("challenger has had its games today", "challenger", who, "cap", p.MaxPerOpponentDay, "ongoing", ongoing)
		return Decision{Verdict: Decline, Reason: ReasonLater}
	}
	if p.MaxInARow > 0 && s.mem.StreakAgainst(who)+ongoing >= p.MaxInARow {
		s.log.Info("challenger has had its games in a row", "challenger", who, "cap", p.MaxInARow, "ongoing", ongoing)
		return Decision{Verdict: Decline, Reason: ReasonLater}
	}
	return d
}

// fairSlots applies the bot-slot reservation, the rating bounds per speed
// and the increment bots must give in bullet to challenge c. Call with
// s.mu held.
func (s *Service) fairSlots(c *lichess.Challenge, d Decision) Decision {
	if d.Verdict == Decline {
		return d
	}
	p := &s.cfg.Policy
	isBot := c.Challenger.IsBot()
	speed := string(c.Speed)
	if r, ok := p.RatingBounds[speed]; ok && c.Challenger.ID != "" {
		if rt := c.Challenger.Rating; (r.Min > 0 && rt < r.Min) || (r.Max > 0 && rt > r.Max) {
			return Decision{Verdict: Decline, Reason: ReasonGeneric}
		}
	}
	if p.BotBulletIncrement && isBot && (speed == "bullet" || speed == "ultraBullet") && c.TimeControl.Increment == 0 {
		return Decision{Verdict: Decline, Reason: ReasonTimeControl}
	}
	if isBot && p.MaxBotGames > 0 && !isCorrespondenceOffer(c) && s.activeBotGames() >= p.MaxBotGames {
		return Decision{Verdict: Decline, Reason: ReasonLater}
	}
	return d
}

// takenGame is the opponent of a game the service plays or is about to
// play (an accepted or queued challenge, a running game).
type takenGame struct {
	who string // lowercase Lichess id; "" for anonymous players and the AI
	bot bool
}

// noteTaken records the opponent of game id (a challenge's id is its
// game's id): when a challenge is accepted or queued, and when a game's
// stream tells who plays it, which covers the games resumed at start and
// those of our own challenges. Call with s.mu held.
func (s *Service) noteTaken(id, who string, bot bool) {
	if s.taken == nil {
		s.taken = map[string]takenGame{}
	}
	s.taken[id] = takenGame{who: strings.ToLower(who), bot: bot}
}

// countTaken counts the games noted by noteTaken that are still running
// (correspondence games in progress included), accepted or queued and
// match, forgetting those that are none of these. slotsOnly counts only
// the games that take real-time slots (not correspondence). Call with
// s.mu held.
func (s *Service) countTaken(match func(takenGame) bool, slotsOnly bool) int {
	n := 0
	for id, g := range s.taken {
		_, pending := s.pending[id]
		queued := slices.ContainsFunc(s.queue, func(q lichess.Challenge) bool { return q.ID == id })
		corr := s.corr.games[id] != nil || s.corr.pending[id]
		if !s.games[id] && !pending && !queued && !corr {
			delete(s.taken, id)
			continue
		}
		if match(g) && !(corr && slotsOnly) {
			n++
		}
	}
	return n
}

// activeBotGames counts the games against bots running, accepted or
// queued, resumed ones and matchmaking's included. Call with s.mu held.
func (s *Service) activeBotGames() int {
	return s.countTaken(func(g takenGame) bool { return g.bot }, true)
}

// ongoingAgainst counts the games against who running, accepted or
// queued. Call with s.mu held.
func (s *Service) ongoingAgainst(who string) int {
	return s.countTaken(func(g takenGame) bool { return g.who == who }, false)
}
