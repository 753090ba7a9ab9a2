package bot

import (
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// Matchmaking's memory of declines. A decline backs off what the opponent
// refused, for a pause that doubles with each decline of that kind in a
// row (store.RefusalMemory: a decline within a week of the last one's end
// counts as in a row), up to a cap:
//
//	reason               backs off                                  pause, doubling up to
//	later                the opponent                               10 min, 24 h
//	generic, onlyBot     the opponent                               1 h, 7 days
//	noBot                the opponent                               7 days, 28 days
//	timeControl          that time control with that opponent       6 h, 7 days
//	tooFast              that time control and faster ones          6 h, 7 days
//	tooSlow              that time control and slower ones          6 h, 7 days
//	variant              that variant with that opponent            6 h, 7 days
//	standard             every variant but standard with it         6 h, 7 days
//	rated, casual        the mode we sent (the other one is fine)   6 h, 7 days
//
// A reason that does not fit what we sent (standard to a standard
// challenge, rated to a rated one) counts as generic. Our own unanswered
// challenges back off like later, a challenge Lichess refuses (400) like
// generic, and an opponent out of its bot games is left alone until its
// reset. A game from our challenge forgets the opponent's declines in a
// row (not the scoped ones still running). The memory is kept in the store
// (table refusals), so a restart keeps it.

// Scopes of a refusal (store.Refusal.Scope).
const (
	scopeOpponent = ""         // the whole opponent
	scopeTC       = "tc:"      // + a time control: that one
	scopeFaster   = "faster:"  // + a time control: it and the faster ones
	scopeSlower   = "slower:"  // + a time control: it and the slower ones
	scopeVariant  = "variant:" // + a variant key
	scopeVariants = "variant:*"
	scopeMode     = "mode:" // + rated or casual
)

// backoff is how a decline backs off: the scope, the first pause and the
// cap of the doubling pauses.
type backoff struct {
	scope          string
	first, longest time.Duration
}

var (
	backoffLater   = backoff{scopeOpponent, 10 * time.Minute, 24 * time.Hour}
	backoffGeneric = backoff{scopeOpponent, time.Hour, 7 * 24 * time.Hour}
)

// backoffFor says what a decline for reason of offer o backs off.
func backoffFor(reason lichess.DeclineReason, o offer) backoff {
	scoped := func(scope string) backoff { return backoff{scope, 6 * time.Hour, 7 * 24 * time.Hour} }
	switch {
	case reason.Is(lichess.DeclineLater):
		return backoffLater
	case reason.Is(lichess.DeclineNoBot):
		return backoff{scopeOpponent, 7 * 24 * time.Hour, 28 * 24 * time.Hour}
	case reason.Is(lichess.DeclineTimeControl):
		return scoped(scopeTC + o.tc.String())
	case reason.Is(lichess.DeclineTooFast):
		return scoped(scopeFaster + o.tc.String())
	case reason.Is(lichess.DeclineTooSlow):
		return scoped(scopeSlower + o.tc.String())
	case reason.Is(lichess.DeclineVariant):
		return scoped(scopeVariant + o.variant)
	case reason.Is(lichess.DeclineStandard) && o.variant != "standard":
		return scoped(scopeVariants)
	case reason.Is(lichess.DeclineRated) && !o.rated, reason.Is(lichess.DeclineCasual) && o.rated:
		return scoped(scopeMode + o.mode())
	}
	return backoffGeneric
}

// pause is the backoff's pause at the strikes-th decline in a row.
func (b backoff) pause(strikes int) time.Duration {
	d := b.first
	for i := 1; i < strikes && d < b.longest; i++ {
		d *= 2
	}
	return min(d, b.longest)
}

// covers reports whether a refusal's scope covers offer o.
func covers(scope string, o offer) bool {
	switch {
	case scope == scopeOpponent:
		return true
	case scope == scopeVariants:
		return o.variant != "standard"
	case strings.HasPrefix(scope, scopeVariant):
		return o.variant == scope[len(scopeVariant):]
	case strings.HasPrefix(scope, scopeMode):
		return o.mode() == scope[len(scopeMode):]
	case strings.HasPrefix(scope, scopeTC):
		return o.tc.String() == scope[len(scopeTC):]
	case strings.HasPrefix(scope, scopeFaster), strings.HasPrefix(scope, scopeSlower):
		_, key, _ := strings.Cut(scope, ":")
		tc, err := config.ParseTimeControl(key)
		if err != nil {
			return false // a scope this build cannot read backs off nothing
		}
		if strings.HasPrefix(scope, scopeFaster) {
			return o.tc.Estimate() <= tc.Estimate()
		}
		return o.tc.Estimate() >= tc.Estimate()
	}
	return false
}

// backOff records a decline of kind b by opponent: one more strike in a
// row, left alone for the pause of that many strikes (never shortening a
// pause still running).
func (m *matchmaker) backOff(opponent, reason string, b backoff, now time.Time) time.Time {
	prev, ok := m.refused[opponent][b.scope]
	strikes := 1
	if ok && prev.Until.After(now.Add(-store.RefusalMemory)) {
		strikes = min(prev.Strikes+1, 64)
	}
	until := now.Add(b.pause(strikes))
	if ok && prev.Until.After(until) {
		until = prev.Until
	}
	m.set(store.Refusal{Opponent: opponent, Scope: b.scope, Reason: reason, Strikes: strikes, Until: until})
	return until
}

// leaveAlone leaves the whole opponent alone until until, for reason,
// without a strike (its quota, not its will).
func (m *matchmaker) leaveAlone(opponent, reason string, until time.Time) {
	prev := m.refused[opponent][scopeOpponent]
	if prev.Until.After(until) {
		until = prev.Until
	}
	m.set(store.Refusal{Opponent: opponent, Reason: reason, Strikes: prev.Strikes, Until: until})
}

// set keeps r in memory and in the store; a zero Until forgets it.
func (m *matchmaker) set(r store.Refusal) {
	m.keep(r)
	m.mem.SetRefusal(r)
}

// restore reads the refusals the store remembers.
func (m *matchmaker) restore(rs []store.Refusal) {
	for _, r := range rs {
		m.keep(r)
	}
}

// keep holds r in memory; a zero Until forgets it.
func (m *matchmaker) keep(r store.Refusal) {
	scopes := m.refused[r.Opponent]
	if r.Until.IsZero() {
		delete(scopes, r.Scope)
		if len(scopes) == 0 {
			delete(m.refused, r.Opponent)
		}
		return
	}
	if scopes == nil {
		scopes = map[string]store.Refusal{}
		m.refused[r.Opponent] = scopes
	}
	scopes[r.Scope] = r
}

// accepted forgets opponent's declines in a row once it took a game of
// ours: the next "later" starts from the first pause again.
func (m *matchmaker) accepted(opponent string, now time.Time) {
	if r, ok := m.refused[opponent][scopeOpponent]; ok && !r.Until.After(now) {
		m.set(store.Refusal{Opponent: opponent, Scope: scopeOpponent})
	}
}

// blocked reports whether a running refusal of opponent covers offer o,
// and until when the latest such refusal runs.
func (m *matchmaker) blocked(opponent string, o offer, now time.Time) (bool, time.Time) {
	var until time.Time
	for scope, r := range m.refused[opponent] {
		if r.Until.After(now) && covers(scope, o) && r.Until.After(until) {
			until = r.Until
		}
	}
	return !until.IsZero(), until
}
