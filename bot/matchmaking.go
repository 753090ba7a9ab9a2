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

// Matchmaking waits: how long an unanswered challenge of ours lives, and
// the pause after a failure. What a decline backs off, and for how long,
// is in matchmaking_declines.go.
const (
	outgoingExpiry = 30 * time.Second
	failurePause   = time.Minute
)

// matchmaker challenges online bots when the service has been idle. It is
// used by the event loop goroutine only.
type matchmaker struct {
	cfg       config.Matchmaking
	offers    []offer // what the settings allow, weighted
	rng       *rand.Rand
	idleSince time.Time
	out       string // our unanswered challenge
	outTo     string
	outOffer  offer
	outAt     time.Time
	pauseTill time.Time
	// refused is the memory of declines: opponent id → scope → refusal
	// (matchmaking_declines.go), kept in mem across restarts.
	refused map[string]map[string]store.Refusal
	mem     store.Store
}

func newMatchmaker(cfg config.Matchmaking, mem store.Store) matchmaker {
	return matchmaker{cfg: cfg, offers: offersOf(cfg), rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x6d6d)),
		refused: map[string]map[string]store.Refusal{}, mem: mem}
}

// engineCanPlay960 drops the chess960 offers when the external engine
// cannot play Chess960 (no UCI_Chess960 option, or xboard); it is an error
// when no offer is left.
func (m *matchmaker) engineCanPlay960(can bool, log *slog.Logger) error {
	if can || !m.cfg.Enabled {
		return nil
	}
	n := len(m.offers)
	m.offers = slices.DeleteFunc(m.offers, func(o offer) bool { return o.variant == "chess960" })
	if len(m.offers) == 0 {
		return errors.New("PONDEROSA_MATCHMAKING_VARIANTS: only chess960, which the engine cannot play (no UCI_Chess960 option)")
	}
	if len(m.offers) < n {
		log.Warn("matchmaking: the engine cannot play chess960 (no UCI_Chess960 option): no chess960 challenges")
	}
	return nil
}

// gone forgets our challenge id once it was cancelled.
func (m *matchmaker) gone(id string) {
	if id == m.out {
		m.out = ""
	}
}

// started notes that game id began: when it is our challenge's, the
// opponent's declines in a row are forgotten.
func (m *matchmaker) started(id string) {
	if id == m.out && id != "" {
		m.accepted(m.outTo, time.Now())
		m.out = ""
	}
}

// declined records that a bot declined our challenge, backing off what
// the reason says.
func (m *matchmaker) declined(id string, reason lichess.DeclineReason, log *slog.Logger) {
	if id != m.out || id == "" {
		return
	}
	b := backoffFor(reason, m.outOffer)
	until := m.backOff(m.outTo, string(reason), b, time.Now())
	log.Info("matchmaking challenge declined", "opponent", m.outTo, "reason", reason, "offer", m.outOffer.String(),
		"backs_off", scopeText(b.scope), "until", until.Round(time.Second))
	m.out = ""
}

// scopeText names a scope for the log.
func scopeText(scope string) string {
	if scope == scopeOpponent {
		return "the opponent"
	}
	return scope
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
	busy := len(s.games)+len(s.pending)+len(s.queue)+len(s.activeTourneys) > 0 // no matchmaking while a tournament may pair us
	// Correspondence games take no real-time slot, so they leave the bot
	// idle; correspondence offers wait while PONDEROSA_MAX_CORRESPONDENCE_GAMES
	// are in progress or accepted.
	corrFull := s.corrCount() >= s.cfg.Policy.MaxCorrespondence
	s.mu.Unlock()
	if m.out != "" && now.Sub(m.outAt) > outgoingExpiry {
		s.log.Info("matchmaking challenge unanswered; cancelling it", "challenge_id", m.out, "opponent", m.outTo)
		cctx, cancel := context.WithTimeout(ctx, actionTimeout)
		s.api.CancelChallenge(cctx, m.out)
		cancel()
		s.mu.Lock()
		delete(s.pending, m.out)
		s.mu.Unlock()
		m.backOff(m.outTo, "unanswered", backoffLater, now)
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
	bots, err := s.api.OnlineBots(ctx, 100)
	if err != nil {
		s.log.Warn("matchmaking: cannot list online bots", "err", err)
		m.pauseTill = now.Add(failurePause)
		return
	}
	o, pool, nextFree := m.choose(s, bots, corrFull, now)
	if len(pool) == 0 {
		s.log.Debug("matchmaking: no suitable online bot for any offer")
		m.pauseTill = nextFree // no longer than until a bot left alone is free again
		return
	}
	opp := pool[m.rng.IntN(len(pool))]
	cctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	ch, err := s.api.CreateChallenge(cctx, opp.Username, o.params())
	var rl *lichess.RateLimitError
	var ae *lichess.APIError
	if d, ok := lichess.OpponentLimited(err); ok {
		// The other bot used up its games: leave it alone until its reset.
		s.log.Info("matchmaking: the opponent is out of bot games", "opponent", opp.Username, "retry_after", d.Round(time.Second))
		if d <= 0 {
			d = failurePause
		}
		m.leaveAlone(strings.ToLower(opp.ID), "out of bot games", now.Add(d))
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
		m.backOff(strings.ToLower(opp.ID), "challenge refused", backoffGeneric, now)
		return
	case err != nil:
		s.log.Warn("matchmaking: challenge failed", "opponent", opp.Username, "err", err)
		m.pauseTill = now.Add(failurePause)
		return
	}
	s.log.Info("matchmaking challenge", "challenge_id", ch.ID, "opponent", opp.Username, "time_control", o.tc.String(),
		"variant", o.variant, "rated", o.rated)
	m.out, m.outTo, m.outOffer, m.outAt = ch.ID, strings.ToLower(opp.ID), o, now
	m.mem.AddChallenge(store.Challenge{ID: ch.ID, At: now, Outgoing: true, Opponent: m.outTo, Variant: o.variant,
		Speed: o.speed(), Rated: o.rated, Decision: "sent"})
	s.mu.Lock()
	s.pending[ch.ID] = now
	if o.tc.Days > 0 {
		s.corr.pending[ch.ID] = true // counted against PONDEROSA_MAX_CORRESPONDENCE_GAMES, not the slots
	}
	s.mu.Unlock()
}

// choose draws an offer by the weights and the online bots that may get
// it (not us, not blocked, within the rating distance in the offer's perf,
// not backed off for it); an offer no bot may get is set aside and another
// drawn, so a bot that declined one time control, variant or mode is still
// offered the others. Correspondence offers are left out when corrFull.
// With no offer for anyone, nextFree is the earliest end of a refusal that
// held a bot back (at most failurePause away).
func (m *matchmaker) choose(s *Service, bots []lichess.User, corrFull bool, now time.Time) (o offer, pool []lichess.User, nextFree time.Time) {
	nextFree = now.Add(failurePause)
	cands := slices.DeleteFunc(slices.Clone(m.offers), func(o offer) bool { return corrFull && o.tc.Days > 0 })
	for len(cands) > 0 {
		i := pickOffer(m.rng, cands)
		o = cands[i]
		ours := ratingOf(s.me, o.perf())
		pool = pool[:0]
		for _, b := range bots {
			id := strings.ToLower(b.ID)
			if id == s.me.ID || slices.Contains(s.cfg.Policy.Block, id) {
				continue
			}
			if no, until := m.blocked(id, o, now); no {
				if until.Before(nextFree) {
					nextFree = until
				}
				continue
			}
			if d := m.cfg.MaxRatingDiff; d > 0 {
				if r := ratingOf(&b, o.perf()); r < ours-d || r > ours+d {
					continue
				}
			}
			pool = append(pool, b)
		}
		if len(pool) > 0 {
			return o, pool, nextFree
		}
		cands = slices.Delete(cands, i, i+1)
	}
	return offer{}, nil, nextFree
}

// ratingOf returns u's rating in speed, 1500 when unknown.
func ratingOf(u *lichess.User, speed string) int {
	if p, ok := u.Perfs[speed]; ok && p.Rating > 0 {
		return p.Rating
	}
	return 1500
}
