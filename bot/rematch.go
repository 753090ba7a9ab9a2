package bot

import (
	"strings"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// limitRematches applies the rematch cap to the policy's decision d on
// challenge c: a rematch (c.RematchOf set) is taken while the challenger
// has had fewer than Policy.MaxRematches rematches in a row, and declined
// with "later" after; any other challenge the bot takes from that
// challenger starts the count again. Call with s.mu held.
func (s *Service) limitRematches(c *lichess.Challenge, d Decision) Decision {
	if d.Verdict == Decline || c.Challenger.ID == "" {
		return d // an anonymous player cannot be told apart from another
	}
	who := strings.ToLower(c.Challenger.ID)
	if c.RematchOf == "" {
		delete(s.rematches, who)
		return d
	}
	if s.rematches[who] >= s.cfg.Policy.MaxRematches {
		return Decision{Verdict: Decline, Reason: ReasonLater}
	}
	if s.rematches == nil {
		s.rematches = map[string]int{}
	}
	s.rematches[who]++
	return d
}
