package bot

// Incoming challenges: the policy's verdict, acceptance, and the queue of
// acceptable challenges waiting for a free slot.

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// offerOf describes a challenge for the policy.
func offerOf(c *lichess.Challenge) Offer {
	return Offer{
		Challenger: strings.ToLower(c.Challenger.ID), ChallengerIsBot: c.Challenger.IsBot(),
		Anonymous: c.Challenger.IsAnonymous(),
		Variant:   string(c.Variant.Key), Speed: string(c.Speed), Clock: c.TimeControl.Type,
		Base:      time.Duration(c.TimeControl.Limit) * time.Second,
		Increment: time.Duration(c.TimeControl.Increment) * time.Second,
		Days:      c.TimeControl.DaysPerTurn,
		Rated:     c.Rated,
		FEN:       c.InitialFEN,
	}
}

func (s *Service) onChallenge(ctx context.Context, c *lichess.Challenge, compat *lichess.Compat) {
	if strings.EqualFold(c.Challenger.ID, s.me.ID) {
		return // one of ours
	}
	log := s.log.With("challenge_id", c.ID, "challenger", c.Challenger.Name)
	s.mu.Lock()
	for _, q := range s.queue {
		if q.ID == c.ID {
			s.mu.Unlock()
			return // replayed after a reconnect
		}
	}
	_, isPending := s.pending[c.ID]
	d := s.decide(c)
	if compat != nil && !compat.Bot {
		d = Decision{Verdict: Decline, Reason: ReasonVariant}
	}
	if d.Verdict != Decline && c.Challenger.IsBot() && s.botGamesExhausted() {
		d = Decision{Verdict: Decline, Reason: ReasonLater} // bot-vs-bot quota used up: no accept call
	}
	if isPending {
		s.mu.Unlock()
		return
	}
	d = s.limitRematches(c, d)
	d = s.capOpponent(c, d)
	d = s.fairSlots(c, d)
	if d.Verdict != Decline {
		s.noteTaken(c.ID, c.Challenger.ID, c.Challenger.IsBot())
	}
	if d.Verdict == Queue {
		s.queue = append(s.queue, *c)
	}
	s.mu.Unlock()
	key := d.Verdict.String()
	if d.Verdict == Decline {
		key += ":" + d.Reason
	}
	s.stats.count(func(st *stats) { st.challenges[key]++ })
	s.rememberChallenge(c, false, d.Verdict.String(), d.Reason)
	s.pub.challenge(s.challengeView(c, d))
	log.Info("challenge", "decision", d.Verdict.String(), "reason", d.Reason, "variant", c.Variant.Key,
		"speed", c.Speed, "time_control", c.TimeControl.Show, "rated", c.Rated)
	switch d.Verdict {
	case Accept:
		if isCorrespondenceOffer(c) {
			s.mu.Lock()
			s.corr.pending[c.ID] = true // counted against PONDEROSA_MAX_CORRESPONDENCE_GAMES, not the slots
			s.mu.Unlock()
		}
		s.accept(ctx, c.ID, log)
	case Decline:
		cctx, cancel := context.WithTimeout(ctx, actionTimeout)
		defer cancel()
		if err := s.api.DeclineChallenge(cctx, c.ID, lichess.DeclineReason(d.Reason)); err != nil {
			log.Warn("decline failed", "err", err)
		}
	}
}

func (s *Service) accept(ctx context.Context, id string, log *slog.Logger) {
	s.mu.Lock()
	s.pending[id] = time.Now()
	s.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	if err := s.api.AcceptChallenge(cctx, id); err != nil {
		log.Warn("accept failed", "err", err)
		s.mu.Lock()
		delete(s.pending, id)
		s.dropAccepted(id)
		s.mu.Unlock()
		s.acceptFailed(ctx, id, err, log)
	}
}

// serveQueue accepts queued challenges while slots are free.
func (s *Service) serveQueue(ctx context.Context) {
	for ctx.Err() == nil {
		s.mu.Lock()
		if len(s.queue) == 0 || s.busySlots() >= s.cfg.Policy.MaxGames {
			s.mu.Unlock()
			return
		}
		c := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		log := s.log.With("challenge_id", c.ID, "challenger", c.Challenger.Name)
		log.Info("accepting queued challenge")
		s.accept(ctx, c.ID, log)
	}
}

// expirePending frees the slots of accepted challenges whose game never
// started.
func (s *Service) expirePending() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.pending {
		if time.Since(t) > pendingTimeout {
			delete(s.pending, id)
			s.dropAccepted(id) // no game to count
		}
	}
}

// declineQueue declines the waiting challenges at shutdown.
func (s *Service) declineQueue() {
	s.mu.Lock()
	q := s.queue
	s.queue = nil
	s.mu.Unlock()
	for _, c := range q {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.api.DeclineChallenge(ctx, c.ID, lichess.DeclineLater); err != nil {
			s.log.Warn("decline failed", "challenge_id", c.ID, "err", err)
		}
		cancel()
	}
}
