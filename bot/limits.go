package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// Lichess's limits as the service meets them (issue 12):
//
//   - the daily bot-vs-bot quota (lila's BotLimit, key bot.vsBot.day: 100
//     games a day) answers 429 with a "ratelimit" object when the bot
//     accepts a bot's challenge or challenges a bot. Until its reset the
//     service declines bot challenges at once with "later" (it does not try
//     to accept them), matchmaking waits for the reset, human challenges
//     are still accepted, and running games are not touched. The status
//     endpoint and the log say "bot-vs-bot games exhausted until HH:MM";
//   - the opponent's quota (400 with a "ratelimit" object): that challenge
//     is declined with "later" (or, for matchmaking, that bot is left alone
//     for the seconds Lichess gives);
//   - a plain 429 pauses only its endpoint family in the client; an accept
//     refused that way is declined with "later" rather than left hanging.

// LimitsNote explains, for `ponderosa bot --settings`, how the bot meets
// Lichess's rate limits and quotas (no setting changes it).
const LimitsNote = `Lichess limits (not settings; see the README, "Rate limits and quotas"):
  - a plain 429 pauses only its endpoint family (e.g. accepting challenges) for Retry-After,
    or a minute; a 429 on a game's move or action is retried within that game while its
    clock allows; no 429 ever stops the moves of running games.
  - the daily bot-vs-bot quota (100 games, key bot.vsBot.day): once met, bot challenges are
    declined at once with "later" until its reset, matchmaking waits for the reset, humans
    are still accepted, running games go on; /status and the log say
    "bot-vs-bot games exhausted until HH:MM".
  - a bot that is itself out of games (400 with ratelimit.seconds) is declined with "later"
    and left alone by matchmaking for those seconds.
`

// botQuotaText is how the status endpoint and the log show the quota.
func botQuotaText(until time.Time) string {
	return "bot-vs-bot games exhausted until " + until.Local().Format("15:04")
}

// setBotQuota records that the bot-vs-bot quota is used up until until.
func (s *stats) setBotQuota(until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if until.After(s.botQuotaUntil) {
		s.botQuotaUntil = until
	}
}

// botQuota returns the end of the bot-vs-bot quota's exhaustion (zero or
// past when bot games may be played).
func (s *stats) botQuota() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.botQuotaUntil
}

// limitsLocked lists the limits in force now. Call with s.mu held.
func (s *stats) limitsLocked(now time.Time) []string {
	var out []string
	if now.Before(s.botQuotaUntil) {
		out = append(out, botQuotaText(s.botQuotaUntil))
	}
	return out
}

// botGamesExhausted reports whether bot-vs-bot games are used up now.
func (s *Service) botGamesExhausted() bool { return time.Now().Before(s.stats.botQuota()) }

// quotaReached records a quota 429 and, for the bot-vs-bot quota,
// declines the bot challenges waiting in the queue.
func (s *Service) quotaReached(ctx context.Context, rl *lichess.RateLimitError) {
	s.log.Warn("quota reached: "+rl.Key, "until", rl.Until, "msg", rl.Message)
	s.rememberQuota(rl)
	if rl.Key != botQuotaKey {
		return
	}
	first := !s.botGamesExhausted()
	s.stats.setBotQuota(rl.Until)
	if first {
		s.log.Warn(botQuotaText(rl.Until)+"; declining bot challenges with \"later\" until then, humans still welcome",
			"until", rl.Until)
	}
	s.mu.Lock()
	var bots []lichess.Challenge
	keep := s.queue[:0]
	for _, c := range s.queue {
		if c.Challenger.IsBot() {
			bots = append(bots, c)
		} else {
			keep = append(keep, c)
		}
	}
	s.queue = keep
	s.mu.Unlock()
	for _, c := range bots {
		s.declineLater(ctx, c.ID, s.log.With("challenge_id", c.ID, "challenger", c.Challenger.Name))
	}
}

// botQuotaKey is lila's key of the daily bot-vs-bot games.
const botQuotaKey = "bot.vsBot.day"

// declineLater declines a challenge with "later".
func (s *Service) declineLater(ctx context.Context, id string, log *slog.Logger) {
	cctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	if err := s.api.DeclineChallenge(cctx, id, lichess.DeclineLater); err != nil {
		log.Warn("decline failed", "err", err)
	}
}

// acceptFailed handles an accept that Lichess refused: a quota or the
// opponent's quota, or a paused endpoint, end in a "later" decline, so
// that the challenger is not left waiting.
func (s *Service) acceptFailed(ctx context.Context, id string, err error, log *slog.Logger) {
	if rl, ok := lichess.QuotaReached(err); ok {
		s.quotaReached(ctx, rl)
		s.declineLater(ctx, id, log)
		return
	}
	if d, ok := lichess.OpponentLimited(err); ok {
		log.Info("the challenger is out of bot games; declining", "for", d.Round(time.Second))
		s.declineLater(ctx, id, log)
		return
	}
	var rl *lichess.RateLimitError
	if errors.As(err, &rl) {
		s.declineLater(ctx, id, log)
	}
}
