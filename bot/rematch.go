package bot

import (
	"strings"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// limitRematches applies the rematch cap to the policy's decision d on
// challenge c: a rematch (c.RematchOf set) is taken while the challenger
// has had fewer than Policy.MaxRematches rematches in a row, and declined
// with "later" after; any other game with that challenger starts the
// count again. The count comes from the store (games flagged
// store.FlagRematch, so it survives a restart) and from the games accepted
// that have not been recorded yet (s.rematches). Call with s.mu held.
func (s *Service) limitRematches(c *lichess.Challenge, d Decision) Decision {
	if d.Verdict == Decline || c.Challenger.ID == "" {
		return d // an anonymous player cannot be told apart from another
	}
	who := strings.ToLower(c.Challenger.ID)
	if c.RematchOf != "" && s.rematchStreak(who) >= s.cfg.Policy.MaxRematches {
		return Decision{Verdict: Decline, Reason: ReasonLater}
	}
	if s.rematches == nil {
		s.rematches = map[string]acceptedGame{}
	}
	s.rematchSeq++
	s.rematches[c.ID] = acceptedGame{who: who, rematch: c.RematchOf != "", seq: s.rematchSeq} // a challenge's id is its game's id
	return d
}

// acceptedGame is a game accepted from a player, kept while one of that
// player's accepted games is not recorded yet.
type acceptedGame struct {
	who      string // lowercase id
	rematch  bool
	seq      int  // the order of acceptance
	recorded bool // in the store
}

// rematchStreak counts who's rematches in a row in the order they were
// accepted: the rematches kept in s.rematches since the latest fresh game
// kept there, or, with none such, the rematches not recorded yet plus the
// store's count (the recorded ones are in it). The recorded games are kept
// while an earlier one is not recorded: a fresh game recorded after the
// rematches that followed it would end the store's run. Call with s.mu
// held.
func (s *Service) rematchStreak(who string) int {
	n, fresh := 0, -1
	for _, a := range s.rematches {
		if a.who == who && !a.rematch {
			fresh = max(fresh, a.seq)
		}
	}
	for _, a := range s.rematches {
		if a.who == who && a.rematch && a.seq > fresh && (fresh >= 0 || !a.recorded) {
			n++
		}
	}
	if fresh >= 0 {
		return n
	}
	return n + s.mem.RematchStreak(who)
}

// rememberGame records a finished game, flagged store.FlagRematch when it
// was accepted as a rematch, and forgets the player's accepted games once
// all of them are recorded (the store then has them in order).
func (s *Service) rememberGame(g store.Game) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.rematches[g.ID]; ok {
		if a.rematch {
			g.Flags = append(g.Flags, store.FlagRematch)
		}
		a.recorded = true
		s.rematches[g.ID] = a
		s.forgetRecorded(a.who)
	}
	delete(s.taken, g.ID)
	s.mem.AddGame(g) // under s.mu: limitRematches and capOpponent never see the game twice or not at all
}

// forgetRecorded drops who's accepted games when all of them are recorded.
// Call with s.mu held.
func (s *Service) forgetRecorded(who string) {
	for _, a := range s.rematches {
		if a.who == who && !a.recorded {
			return
		}
	}
	for id, a := range s.rematches {
		if a.who == who {
			delete(s.rematches, id)
		}
	}
}

// forgetRematch stops counting game id (a game that ends without a
// record).
func (s *Service) forgetRematch(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropAccepted(id)
}

// dropAccepted forgets accepted game id, which will have no record. Call
// with s.mu held.
func (s *Service) dropAccepted(id string) {
	a, ok := s.rematches[id]
	if !ok {
		return
	}
	delete(s.rematches, id)
	s.forgetRecorded(a.who)
}
