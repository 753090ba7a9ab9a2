package bot

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// Matchmaking waits: how long a bot that declined is left alone, how long
// an unanswered challenge of ours lives, and the pause after a failure.
const (
	refusedPause   = time.Hour
	laterPause     = 10 * time.Minute
	outgoingExpiry = 30 * time.Second
	failurePause   = time.Minute
)

// matchmaker challenges online bots when the service has been idle. It is
// used by the event loop goroutine only.
type matchmaker struct {
	cfg       config.Matchmaking
	rng       *rand.Rand
	idleSince time.Time
	out       string // our unanswered challenge
	outTo     string
	outAt     time.Time
	pauseTill time.Time
	refused   map[string]time.Time // bot id → leave it alone until
	mem       store.Store          // remembers refused across restarts
}

func newMatchmaker(cfg config.Matchmaking, mem store.Store) matchmaker {
	return matchmaker{cfg: cfg, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x6d6d)),
		refused: map[string]time.Time{}, mem: mem}
}

// refuse leaves the bot alone until until, and remembers why.
func (m *matchmaker) refuse(id string, until time.Time, reason string) {
	m.refused[id] = until
	m.mem.SetRefusal(store.Refusal{Opponent: id, Reason: reason, Until: until})
}

// gone forgets our challenge id once it became a game or was cancelled.
func (m *matchmaker) gone(id string) {
	if id == m.out {
		m.out = ""
	}
}

// declined records that a bot declined our challenge.
func (m *matchmaker) declined(id string, reason lichess.DeclineReason, log *slog.Logger) {
	if id != m.out || id == "" {
		return
	}
	pause := refusedPause
	if reason.Is(lichess.DeclineLater) {
		pause = laterPause
	}
	log.Info("matchmaking challenge declined", "opponent", m.outTo, "reason", reason, "retry_after", pause)
	m.refuse(m.outTo, time.Now().Add(pause), string(reason))
	m.out = ""
}

// matchmake sends a challenge to a random online bot when the service has
// been idle long enough and no challenge of ours is waiting.
func (s *Service) matchmake(ctx context.Context) {
	m := &s.mm
	if !m.cfg.Enabled || ctx.Err() != nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	busy := len(s.games)+len(s.pending)+len(s.queue) > 0
	s.mu.Unlock()
	if m.out != "" && now.Sub(m.outAt) > outgoingExpiry {
		s.log.Info("matchmaking challenge unanswered; cancelling it", "challenge_id", m.out, "opponent", m.outTo)
		cctx, cancel := context.WithTimeout(ctx, actionTimeout)
		s.api.CancelChallenge(cctx, m.out)
		cancel()
		s.mu.Lock()
		delete(s.pending, m.out)
		s.mu.Unlock()
		m.refuse(m.outTo, now.Add(laterPause), "unanswered")
		m.out = ""
	}
	switch {
	case busy:
		m.idleSince = now
		return
	case m.out != "" || now.Before(m.pauseTill) || now.Sub(m.idleSince) < m.cfg.Idle:
		return
	case s.botGamesExhausted():
		m.pauseTill = s.stats.botQuota() // matchmaking waits for the quota's reset
		s.log.Info("matchmaking paused: "+botQuotaText(m.pauseTill), "until", m.pauseTill)
		return
	}
	tc := pickTimeControl(m.rng, m.cfg.TimeControls)
	speed := string(lichess.SpeedOf(tc.Base, tc.Increment))
	bots, err := s.api.OnlineBots(ctx, 100)
	if err != nil {
		s.log.Warn("matchmaking: cannot list online bots", "err", err)
		m.pauseTill = now.Add(failurePause)
		return
	}
	ours := ratingOf(s.me, speed)
	var pool []lichess.User
	nextFree := now.Add(failurePause) // the earliest end of a refusal among the online bots
	for _, b := range bots {
		id := strings.ToLower(b.ID)
		if id == s.me.ID || slices.Contains(s.cfg.Policy.Block, id) {
			continue
		}
		if until := m.refused[id]; now.Before(until) {
			if until.Before(nextFree) {
				nextFree = until
			}
			continue
		}
		if d := m.cfg.MaxRatingDiff; d > 0 {
			if r := ratingOf(&b, speed); r < ours-d || r > ours+d {
				continue
			}
		}
		pool = append(pool, b)
	}
	if len(pool) == 0 {
		s.log.Debug("matchmaking: no suitable online bot", "speed", speed)
		m.pauseTill = nextFree // no longer than until a bot left alone is free again
		return
	}
	opp := pool[m.rng.IntN(len(pool))]
	cctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	ch, err := s.api.CreateChallenge(cctx, opp.Username, lichess.ChallengeParams{Rated: m.cfg.Rated,
		ClockLimit: int(tc.Base / time.Second), ClockIncrement: int(tc.Increment / time.Second)})
	var rl *lichess.RateLimitError
	var ae *lichess.APIError
	if d, ok := lichess.OpponentLimited(err); ok {
		// The other bot used up its games: leave it alone until its reset.
		s.log.Info("matchmaking: the opponent is out of bot games", "opponent", opp.Username, "retry_after", d.Round(time.Second))
		if d <= 0 {
			d = failurePause
		}
		m.refuse(strings.ToLower(opp.ID), now.Add(d), "out of bot games")
		return
	}
	switch {
	case errors.As(err, &rl) && rl.Quota():
		s.quotaReached(ctx, rl)
		m.pauseTill = rl.Until
		return
	case errors.As(err, &rl):
		s.log.Warn("matchmaking: rate limited", "until", rl.Until, "family", rl.Family)
		m.pauseTill = rl.Until
		return
	case errors.As(err, &ae) && ae.Status == http.StatusBadRequest:
		s.log.Info("matchmaking: challenge refused", "opponent", opp.Username, "err", err)
		m.refuse(strings.ToLower(opp.ID), now.Add(refusedPause), "challenge refused")
		return
	case err != nil:
		s.log.Warn("matchmaking: challenge failed", "opponent", opp.Username, "err", err)
		m.pauseTill = now.Add(failurePause)
		return
	}
	s.log.Info("matchmaking challenge", "challenge_id", ch.ID, "opponent", opp.Username, "time_control", tc.String(), "rated", m.cfg.Rated)
	m.out, m.outTo, m.outAt = ch.ID, strings.ToLower(opp.ID), now
	m.mem.AddChallenge(store.Challenge{ID: ch.ID, At: now, Outgoing: true, Opponent: m.outTo, Variant: "standard",
		Speed: speed, Rated: m.cfg.Rated, Decision: "sent"})
	s.mu.Lock()
	s.pending[ch.ID] = now
	s.mu.Unlock()
}

// ratingOf returns u's rating in speed, 1500 when unknown.
func ratingOf(u *lichess.User, speed string) int {
	if p, ok := u.Perfs[speed]; ok && p.Rating > 0 {
		return p.Rating
	}
	return 1500
}
