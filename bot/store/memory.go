package store

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// memoryGames bounds the games a Memory keeps (the oldest go first): the
// counters look back days, not years, and DB seeds at most this many.
const memoryGames = 20000

// Memory is a Store in memory only: the default in unit tests and what the
// bot runs on when the disk fails. It is safe for concurrent use.
type Memory struct {
	mu       sync.Mutex
	games    []Game              // by Ended, oldest first
	ids      map[string]struct{} // of games
	quotas   map[string]QuotaWindow
	overhead *Overhead
	refusals map[refusalKey]Refusal
	health   Health
	changed  chan struct{} // closed and replaced at every change
}

// NewMemory returns an empty, healthy Memory.
func NewMemory() *Memory {
	return &Memory{ids: map[string]struct{}{}, quotas: map[string]QuotaWindow{}, refusals: map[refusalKey]Refusal{},
		changed: make(chan struct{})}
}

// Fallback returns an empty Memory that reports itself degraded for the
// reason err gives: what the bot runs on when the database cannot be
// opened.
func Fallback(err error) *Memory {
	m := NewMemory()
	m.health = Health{Degraded: true, Reason: "in memory only (nothing is saved): " + err.Error()}
	return m
}

// Changed returns a channel closed at the next change of the memory (a
// game, a window, the overhead, a refusal, the health): wait on it, then
// read what changed.
func (m *Memory) Changed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

// notify wakes the waiters of Changed. Call with m.mu held.
func (m *Memory) notify() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// AddGame implements Store.
func (m *Memory) AddGame(g Game) {
	g.Opponent = strings.ToLower(g.Opponent)
	g.Sources = maps.Clone(g.Sources)
	g.Flags = slices.Clone(g.Flags)
	m.mu.Lock()
	defer m.mu.Unlock()
	defer m.notify()
	if _, dup := m.ids[g.ID]; dup {
		i := slices.IndexFunc(m.games, func(x Game) bool { return x.ID == g.ID })
		m.games = slices.Delete(m.games, i, i+1)
	}
	m.ids[g.ID] = struct{}{}
	// Games end in order, nearly always: search from the end.
	i := len(m.games)
	for i > 0 && m.games[i-1].Ended.After(g.Ended) {
		i--
	}
	m.games = slices.Insert(m.games, i, g)
	m.trim()
}

// trim forgets the oldest games beyond memoryGames, a quarter of them at a
// time (not one game per game added).
func (m *Memory) trim() {
	if n := len(m.games) - memoryGames; n > memoryGames/4 {
		for _, g := range m.games[:n] {
			delete(m.ids, g.ID)
		}
		m.games = slices.Delete(m.games, 0, n)
	}
}

// AddChallenge implements Store. Memory keeps no challenges: nothing reads
// them back but the history on disk.
func (m *Memory) AddChallenge(Challenge) {}

// SetQuota implements Store.
func (m *Memory) SetQuota(w QuotaWindow) {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer m.notify()
	if w.Until.IsZero() || !w.Until.After(time.Now()) {
		delete(m.quotas, w.Key)
		return
	}
	m.quotas[w.Key] = w
}

// Quotas implements Store.
func (m *Memory) Quotas(now time.Time) []QuotaWindow {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []QuotaWindow
	for k, w := range m.quotas {
		if w.Until.After(now) {
			out = append(out, w)
		} else {
			delete(m.quotas, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// SetOverhead implements Store.
func (m *Memory) SetOverhead(o Overhead) {
	o.Samples = slices.Clone(o.Samples)
	if n := len(o.Samples) - maxOverheadSamples; n > 0 {
		o.Samples = o.Samples[n:]
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	defer m.notify()
	m.overhead = &o
}

// Overhead implements Store.
func (m *Memory) Overhead() (Overhead, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.overhead == nil {
		return Overhead{}, false
	}
	o := *m.overhead
	o.Samples = slices.Clone(o.Samples)
	return o, true
}

// refusalKey is a refusal's opponent and scope.
type refusalKey struct{ opponent, scope string }

// SetRefusal implements Store.
func (m *Memory) SetRefusal(r Refusal) {
	r.Opponent = strings.ToLower(r.Opponent)
	m.mu.Lock()
	defer m.mu.Unlock()
	defer m.notify()
	k := refusalKey{r.Opponent, r.Scope}
	if r.Until.IsZero() {
		delete(m.refusals, k)
		return
	}
	m.refusals[k] = r
}

// Refusals implements Store.
func (m *Memory) Refusals(now time.Time) []Refusal {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Refusal
	for _, r := range m.refusals {
		if r.Until.After(now.Add(-RefusalMemory)) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Opponent != out[j].Opponent {
			return out[i].Opponent < out[j].Opponent
		}
		return out[i].Scope < out[j].Scope
	})
	return out
}

// walk is what countBack does with one game.
type walk int

const (
	walkSkip  walk = iota // pass over the game
	walkCount             // count it and go on
	walkStop              // end the walk before it
)

// countBack walks the games from the latest back and counts those that f
// counts, until f stops.
func (m *Memory) countBack(f func(g *Game) walk) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for i := len(m.games) - 1; i >= 0; i-- {
		switch f(&m.games[i]) {
		case walkCount:
			n++
		case walkStop:
			return n
		}
	}
	return n
}

// GamesAgainst implements Store.
func (m *Memory) GamesAgainst(opponent string, since time.Time) int {
	opponent = strings.ToLower(opponent)
	return m.countBack(func(g *Game) walk {
		switch {
		case g.Ended.Before(since):
			return walkStop
		case g.Opponent == opponent && g.Result != Aborted:
			return walkCount
		}
		return walkSkip
	})
}

// StreakAgainst implements Store.
func (m *Memory) StreakAgainst(opponent string) int {
	opponent = strings.ToLower(opponent)
	return m.countBack(func(g *Game) walk {
		switch {
		case g.Result == Aborted:
			return walkSkip
		case g.Opponent != opponent:
			return walkStop
		}
		return walkCount
	})
}

// RematchStreak implements Store.
func (m *Memory) RematchStreak(opponent string) int {
	opponent = strings.ToLower(opponent)
	return m.countBack(func(g *Game) walk {
		switch {
		case g.Opponent != opponent:
			return walkSkip
		case !slices.Contains(g.Flags, FlagRematch):
			return walkStop
		}
		return walkCount
	})
}

// RecentGames implements Store.
func (m *Memory) RecentGames(n int) []Game {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Game, 0, min(n, len(m.games)))
	for i := len(m.games) - 1; i >= 0 && len(out) < n; i-- {
		g := m.games[i]
		g.Sources, g.Flags = maps.Clone(g.Sources), slices.Clone(g.Flags)
		out = append(out, g)
	}
	return out
}

// Health implements Store.
func (m *Memory) Health() Health {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.health
}

// degrade marks the memory degraded, keeping the first reason.
func (m *Memory) degrade(reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer m.notify()
	if !m.health.Degraded {
		m.health = Health{Degraded: true, Reason: reason}
	}
}

// prune forgets games that ended before the cut and expired windows.
func (m *Memory) prune(cut, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := sort.Search(len(m.games), func(i int) bool { return !m.games[i].Ended.Before(cut) })
	for _, g := range m.games[:i] {
		delete(m.ids, g.ID)
	}
	m.games = slices.Delete(m.games, 0, i)
	for k, w := range m.quotas {
		if !w.Until.After(now) {
			delete(m.quotas, k)
		}
	}
	for k, r := range m.refusals {
		if !r.Until.After(now.Add(-RefusalMemory)) {
			delete(m.refusals, k)
		}
	}
}

// TallyBy sums games into one Tally per key (aborted games left out), the
// most games first; with names, a Tally's Name is its latest game's
// OpponentName. It is the history's arithmetic over games in memory.
func TallyBy(games []Game, key func(*Game) string, names bool) []Tally {
	type acc struct {
		w, d, l, rated, sum, diff int
		name                      string
		last                      time.Time
	}
	accs := map[string]*acc{}
	for i := range games {
		g := &games[i]
		if g.Result == Aborted {
			continue
		}
		k := key(g)
		a := accs[k]
		if a == nil {
			a = &acc{}
			accs[k] = a
		}
		win, loss := 0, 0
		switch g.Result {
		case Win:
			a.w, win = a.w+1, 1
		case Draw:
			a.d++
		case Loss:
			a.l, loss = a.l+1, 1
		default:
			continue
		}
		if g.OpponentRating > 0 {
			a.rated++
			a.sum += g.OpponentRating
			a.diff += win - loss
		}
		if names && !g.Ended.Before(a.last) {
			a.name, a.last = g.OpponentName, g.Ended
		}
	}
	out := make([]Tally, 0, len(accs))
	for k, a := range accs {
		t := tallyOf(k, a.w, a.d, a.l, a.rated, a.sum, a.diff)
		t.Name = a.name
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Tally) int {
		if a.Games != b.Games {
			return b.Games - a.Games
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}
