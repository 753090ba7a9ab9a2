package fakelichess

// The bot-vs-bot game quota and opponents out of theirs, answered as lila
// does: 429 (or 400 for the opponent) with a ratelimit object.

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// writeLimited writes lila's quota answer: {"error": msg, "ratelimit":
// {"key": key, "seconds": N}} (429 for our own quota, 400 for the
// opponent's).
func writeLimited(w http.ResponseWriter, status int, msg, key string, now, until time.Time) {
	secs := max(0, int(until.Sub(now).Seconds()+0.999))
	writeJSON(w, status, map[string]any{"error": msg, "ratelimit": map[string]any{"key": key, "seconds": secs}})
}

// botQuotaUntil returns when the bot may start a bot-vs-bot game again, or
// the zero time when it may now. Call with s.mu held.
func (s *Server) botQuotaUntil(now time.Time) time.Time {
	keep := s.botGames[:0] // the games still in the window
	for _, t := range s.botGames {
		if now.Sub(t) < s.opts.BotGameQuotaWindow {
			keep = append(keep, t)
		}
	}
	s.botGames = keep
	q := s.opts.BotGameQuota
	if q <= 0 || len(keep) < q {
		return time.Time{}
	}
	return keep[len(keep)-q].Add(s.opts.BotGameQuotaWindow)
}

// botLimitError writes the answer lila's BotLimit gives when a game between
// the bot and the bot opp may not start (our quota: 429; the opponent's:
// 400), and reports whether it wrote one. Call with s.mu held.
func (s *Server) botLimitError(w http.ResponseWriter, opp Player) bool {
	if opp.Title != "BOT" {
		return false
	}
	now := s.opts.Now()
	if until := s.botQuotaUntil(now); !until.IsZero() {
		writeLimited(w, http.StatusTooManyRequests,
			fmt.Sprintf("You played %d games against other bots today, please wait before challenging another bot.", s.opts.BotGameQuota),
			"bot.vsBot.day", now, until)
		return true
	}
	if until := s.oppLimited[opp.ID]; until.After(now) {
		writeLimited(w, http.StatusBadRequest,
			fmt.Sprintf("%s played 100 games against other bots today, please wait until %s to challenge them.", opp.Name, until.UTC().Format(time.RFC3339)),
			"bot.vsBot.day", now, until)
		return true
	}
	return false
}

// LimitOpponent makes the bot opponent id out of bot-vs-bot games for d:
// challenging it, or accepting its challenge, answers 400 with a
// ratelimit object, as lila does when the OTHER bot used its daily games.
func (s *Server) LimitOpponent(id string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.oppLimited[strings.ToLower(id)] = s.opts.Now().Add(d)
}

// BotGamesToday returns how many bot-vs-bot games count against
// BotGameQuota now.
func (s *Server) BotGamesToday() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.botQuotaUntil(s.opts.Now()) // drops the games out of the window
	return len(s.botGames)
}
