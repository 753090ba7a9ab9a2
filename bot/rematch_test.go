package bot

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// TestRematchStreakRecordOrder: the cap counts rematches in the order they
// were accepted, whatever the order the games are recorded in (a game's
// goodbyes can delay its record past the next game's).
func TestRematchStreakRecordOrder(t *testing.T) {
	s := &Service{mem: store.NewMemory()}
	s.cfg.Policy.MaxRematches = 2
	t0 := time.Now()
	offer := func(id string, rematch bool) Verdict {
		c := &lichess.Challenge{ID: id}
		c.Challenger.ID = "alice"
		if rematch {
			c.RematchOf = "prev"
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.limitRematches(c, Decision{Verdict: Accept}).Verdict
	}
	record := func(id string, ended int) {
		s.rememberGame(store.Game{ID: id, Opponent: "alice", Result: store.Loss, Started: t0, Ended: t0.Add(time.Duration(ended) * time.Second)})
	}
	if v := offer("g0", false); v != Accept {
		t.Fatalf("fresh game: %v", v)
	}
	if v := offer("g1", true); v != Accept {
		t.Fatalf("rematch 1: %v", v)
	}
	record("g1", 2) // before the fresh game's record
	if v := offer("g2", true); v != Accept {
		t.Fatalf("rematch 2: %v", v)
	}
	if v := offer("g3", true); v != Decline {
		t.Fatalf("rematch 3 with the fresh game not recorded: %v, want declined", v)
	}
	record("g0", 1)
	record("g2", 3)
	if v := offer("g3", true); v != Decline {
		t.Fatalf("rematch 3 with all recorded: %v, want declined", v)
	}
	if len(s.rematches) != 0 {
		t.Errorf("%d accepted games kept after all were recorded", len(s.rematches))
	}
}
