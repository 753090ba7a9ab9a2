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
	return Decide(o, p, len(s.games)+len(s.pending), len(s.queue))
}

// capOpponent declines with "later" a challenge from an opponent who has
// had PONDEROSA_MAX_GAMES_PER_OPPONENT finished games in the last 24 hours,
// or PONDEROSA_MAX_GAMES_IN_A_ROW games in a row. The counts come from the
// store, so they survive restarts; running games are not counted. Call
// with s.mu held.
func (s *Service) capOpponent(c *lichess.Challenge, d Decision) Decision {
	p := &s.cfg.Policy
	if d.Verdict == Decline || c.Challenger.ID == "" || (p.MaxPerOpponentDay == 0 && p.MaxInARow == 0) {
		return d
	}
	who := strings.ToLower(c.Challenger.ID)
	if p.MaxPerOpponentDay > 0 && s.mem.GamesAgainst(who, time.Now().Add(-24*time.Hour)) >= p.MaxPerOpponentDay {
		s.log.Info("challenger has had its games today", "challenger", who, "cap", p.MaxPerOpponentDay)
		return Decision{Verdict: Decline, Reason: ReasonLater}
	}
	if p.MaxInARow > 0 && s.mem.StreakAgainst(who) >= p.MaxInARow {
		s.log.Info("challenger has had its games in a row", "challenger", who, "cap", p.MaxInARow)
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
	if !isBot || p.MaxBotGames <= 0 {
		return d
	}
	if s.activeBotGames() >= p.MaxBotGames {
		return Decision{Verdict: Decline, Reason: ReasonLater}
	}
	if s.botGames == nil {
		s.botGames = map[string]bool{}
	}
	s.botGames[c.ID] = true
	return d
}

// activeBotGames counts the games against bots running, accepted or
// queued, forgetting those that ended. Call with s.mu held.
func (s *Service) activeBotGames() int {
	n := 0
	for id := range s.botGames {
		_, pending := s.pending[id]
		queued := slices.ContainsFunc(s.queue, func(q lichess.Challenge) bool { return q.ID == id })
		if s.games[id] || pending || queued {
			n++
			continue
		}
		delete(s.botGames, id)
	}
	return n
}
