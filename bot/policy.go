package bot

import (
	"slices"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Decline reasons, spelled as the decline endpoint expects them.
const (
	ReasonGeneric     = "generic"
	ReasonLater       = "later"
	ReasonTooFast     = "tooFast"
	ReasonTooSlow     = "tooSlow"
	ReasonTimeControl = "timeControl"
	ReasonRated       = "rated"
	ReasonCasual      = "casual"
	ReasonStandard    = "standard"
	ReasonVariant     = "variant"
	ReasonNoBot       = "noBot"
	ReasonOnlyBot     = "onlyBot"
)

// Offer is what the challenge policy needs to know about a challenge. It is
// built from the Lichess challenge event.
type Offer struct {
	// Challenger is the challenger's lowercase id; ChallengerIsBot is true
	// when the challenger has the BOT title.
	Challenger      string
	ChallengerIsBot bool
	// Anonymous is true for a challenger who is not logged in (no id): a
	// human, declined when the policy does not accept anonymous players.
	Anonymous bool
	// Variant is the Lichess variant key (standard, chess960, ...).
	Variant string
	// Speed is the Lichess speed (ultraBullet ... classical, correspondence).
	Speed string
	// Clock is "clock", "correspondence" or "unlimited".
	Clock string
	// Base and Increment are the clock of a real-time challenge.
	Base, Increment time.Duration
	// Days is the days per move of a correspondence challenge.
	Days  int
	Rated bool
	// FEN is the challenge's start position ("" or "startpos": the
	// standard one).
	FEN string
}

// Verdict is the policy's answer to a challenge.
type Verdict int

// Verdicts.
const (
	// Accept the challenge now.
	Accept Verdict = iota
	// Queue the challenge until a game slot frees.
	Queue
	// Decline the challenge with Decision.Reason.
	Decline
)

func (v Verdict) String() string {
	switch v {
	case Accept:
		return "accept"
	case Queue:
		return "queue"
	case Decline:
		return "decline"
	}
	return "invalid"
}

// Decision is the verdict plus, for Decline, the reason to send.
type Decision struct {
	Verdict Verdict
	Reason  string
}

// speedOrder ranks the real-time speeds from fastest to slowest.
var speedOrder = []string{"ultraBullet", "bullet", "blitz", "rapid", "classical"}

// Decide applies the challenge policy p to o, given the number of games in
// progress of o's kind (active: the real-time games for a real-time offer,
// the correspondence and unlimited ones for those) and of challenges
// already waiting (queued). Correspondence and unlimited offers take none
// of the MaxGames slots and never wait: MaxCorrespondence bounds them, and
// beyond it they are declined with "later". It is a pure function: the
// caller does the accepting, queueing and declining.
func Decide(o Offer, p *config.Policy, active, queued int) Decision {
	decline := func(reason string) Decision { return Decision{Verdict: Decline, Reason: reason} }
	if slices.Contains(p.Block, o.Challenger) || (o.Anonymous && !p.Anonymous) {
		return decline(ReasonGeneric)
	}
	if len(p.Allow) > 0 && !slices.Contains(p.Allow, o.Challenger) {
		return decline(ReasonGeneric)
	}
	if o.ChallengerIsBot && !p.Bots {
		return decline(ReasonNoBot)
	}
	if !o.ChallengerIsBot && !p.Humans {
		return decline(ReasonOnlyBot)
	}
	if !slices.Contains(p.Variants, o.Variant) {
		if o.Variant != "standard" && len(p.Variants) == 1 && p.Variants[0] == "standard" {
			return decline(ReasonStandard)
		}
		return decline(ReasonVariant)
	}
	if o.FEN != "" && o.FEN != "startpos" {
		// A position the engine cannot set up would leave the game hanging:
		// ask for the standard position instead.
		if _, err := board.ParseFEN(o.FEN); err != nil {
			return decline(ReasonStandard)
		}
	}
	if r := timeControlReason(o, p); r != "" {
		return decline(r)
	}
	if o.Rated && !p.Rated {
		return decline(ReasonCasual)
	}
	if !o.Rated && !p.Casual {
		return decline(ReasonRated)
	}
	if o.Clock == "correspondence" || o.Clock == "unlimited" {
		if active < p.MaxCorrespondence {
			return Decision{Verdict: Accept}
		}
		return decline(ReasonLater)
	}
	switch {
	case active < p.MaxGames && queued == 0:
		return Decision{Verdict: Accept}
	case queued < p.QueueSize:
		return Decision{Verdict: Queue}
	}
	return decline(ReasonLater)
}

// timeControlReason returns the decline reason for o's time control, or ""
// when it is acceptable.
func timeControlReason(o Offer, p *config.Policy) string {
	switch o.Clock {
	case "correspondence":
		switch {
		case !p.Correspondence:
			return ReasonTimeControl
		case o.Days > 0 && o.Days < p.MinDays: // 0: not given
			return ReasonTooFast
		case o.Days > p.MaxDays:
			return ReasonTooSlow
		}
		return ""
	case "unlimited":
		if !p.Unlimited {
			return ReasonTimeControl
		}
		return ""
	case "clock":
	default:
		return ReasonTimeControl
	}
	if !slices.Contains(p.Speeds, o.Speed) {
		rank := slices.Index(speedOrder, o.Speed)
		if rank < 0 {
			return ReasonTimeControl
		}
		faster, slower := false, false
		for _, s := range p.Speeds {
			switch r := slices.Index(speedOrder, s); {
			case r > rank:
				slower = true // an accepted speed is slower than this one
			case r < rank:
				faster = true
			}
		}
		switch {
		case slower && !faster:
			return ReasonTooFast
		case faster && !slower:
			return ReasonTooSlow
		}
		return ReasonTimeControl
	}
	switch {
	case o.Base < p.MinBase || o.Increment < p.MinIncrement:
		return ReasonTooFast
	case o.Base > p.MaxBase || o.Increment > p.MaxIncrement:
		return ReasonTooSlow
	}
	return ""
}
