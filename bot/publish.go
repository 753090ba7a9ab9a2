package bot

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/live"
)

const (
	// maxRecentChallenges and maxMoveSamples bound what the page lists.
	maxRecentChallenges = 20
	maxMoveSamples      = 60
	maxRecentResults    = 15
	// publishEvery is the shortest interval between two encoded updates:
	// changes in between are coalesced into one.
	publishEvery = 100 * time.Millisecond
	// refreshEvery re-publishes the state while pages are open, so that
	// ages, the uptime and the event stream's state (read, not pushed)
	// stay fresh.
	refreshEvery = 5 * time.Second
)

// publisher is the one place where the bot's and the games' live state goes
// (the design's "what people see" seam): the games and the event loop
// write into it under a short lock and never wait for a reader; its run
// loop composes a snapshot, encodes it once and fans it out to the status
// page's streams, where slow readers are dropped. /status and the page read
// the same snapshots.
type publisher struct {
	hub   *live.Hub
	dirty chan struct{} // capacity 1: "something changed"

	mu         sync.Mutex
	games      map[string]*live.GameView
	challenges []live.ChallengeView // oldest first
	moves      []live.MoveSample    // oldest first
}

func newPublisher() *publisher {
	return &publisher{hub: live.NewHub(0), dirty: make(chan struct{}, 1),
		games: map[string]*live.GameView{}}
}

// notify marks the state changed; it never blocks.
func (p *publisher) notify() {
	select {
	case p.dirty <- struct{}{}:
	default:
	}
}

// updateGame applies f to the view of game id (created on first use).
// f runs under the publisher's lock: it must only copy values in, and must
// give the view slices that the caller will not modify afterwards.
func (p *publisher) updateGame(id string, f func(g *live.GameView)) {
	p.mu.Lock()
	g := p.games[id]
	if g == nil {
		g = &live.GameView{ID: id}
		p.games[id] = g
	}
	f(g)
	p.mu.Unlock()
	p.notify()
}

// endGame removes the game from the live views.
func (p *publisher) endGame(id string) {
	p.mu.Lock()
	delete(p.games, id)
	p.mu.Unlock()
	p.notify()
}

// challenge records a challenge and the decision taken.
func (p *publisher) challenge(c live.ChallengeView) {
	p.mu.Lock()
	p.challenges = appendBounded(p.challenges, c, maxRecentChallenges)
	p.mu.Unlock()
	p.notify()
}

// move records a posted move's latency.
func (p *publisher) move(m live.MoveSample) {
	p.mu.Lock()
	p.moves = appendBounded(p.moves, m, maxMoveSamples)
	p.mu.Unlock()
	p.notify()
}

func appendBounded[T any](s []T, v T, n int) []T {
	if len(s) >= n {
		s = slices.Delete(s, 0, len(s)-n+1)
	}
	return append(s, v)
}

// fill copies the publisher's part of a snapshot into snap.
func (p *publisher) fill(snap *live.Snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	snap.Games = make([]live.GameView, 0, len(p.games))
	for _, g := range p.games {
		snap.Games = append(snap.Games, g.Clone())
	}
	snap.Bot.Challenges = make([]live.ChallengeView, 0, len(p.challenges))
	for i := len(p.challenges) - 1; i >= 0; i-- {
		snap.Bot.Challenges = append(snap.Bot.Challenges, p.challenges[i])
	}
	snap.Bot.Moves = slices.Clone(p.moves)
	sort.Slice(snap.Games, func(i, j int) bool {
		a, b := &snap.Games[i], &snap.Games[j]
		if !a.Started.Equal(b.Started) {
			return a.Started.Before(b.Started)
		}
		return a.ID < b.ID
	})
}

// run publishes an encoded snapshot after each change (at most one per
// publishEvery) until ctx ends, then drops the subscribers.
func (p *publisher) run(ctx context.Context, compose func() live.Snapshot, onErr func(error)) {
	defer p.hub.Close()
	refresh := time.NewTicker(refreshEvery)
	defer refresh.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.dirty:
		case <-refresh.C:
			if p.hub.Subscribers() == 0 {
				continue
			}
		}
		if wait := publishEvery - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		select { // changes during the wait are in this snapshot
		case <-p.dirty:
		default:
		}
		last = time.Now()
		frame, err := live.EncodeFrame(compose())
		if err != nil {
			onErr(err)
			continue
		}
		p.hub.Publish(frame)
	}
}
