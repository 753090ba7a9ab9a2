package bot

// The games' engines: a pool that reuses them, their share of the CPU and
// memory, and whether there is room to ponder.

import (
	"fmt"
	"sync"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine"
)

// fairThreads gives eng its share of the search threads. A
// correspondence game's search takes one (at most corrSlots of them run,
// half the threads); the real-time games divide the rest among them.
func (s *Service) fairThreads(eng *engine.Engine, visit bool) {
	n := 1
	if !visit {
		n = max(1, (s.threads-s.corrOpen())/max(1, s.activeGames()))
	}
	if o := eng.Options(); o.Threads != n {
		o.Threads = n
		eng.SetOptions(o)
	}
}

// canPonder reports whether there are threads to spare for pondering: a
// ponder search runs beside the searches of the other games, so it is only
// worth it with at least two threads per game (or a single game).
func (s *Service) canPonder() bool {
	return s.activeGames() <= max(1, s.threads/2)
}

// botEngineOptions are the engine defaults with the configured hash and
// no Move Overhead: the bot subtracts its own learned overhead from the
// clock before it searches (clock.go), so the engine must not subtract
// another one.
func botEngineOptions(hashMB int) engine.Options {
	o := engine.DefaultOptions()
	o.HashMB, o.Threads, o.MoveOverhead = hashMB, 1, 0
	return o
}

// enginePool reuses engines (and their hash tables) across games. At most
// max engines with the configured hash exist at once, in games or free:
// the memory checked at start (checkMemoryBudget). Games beyond max —
// resumed at start, or started elsewhere (gameStart events are played
// whatever the limit) — get an engine with the smallest hash, which is
// not kept.
type enginePool struct {
	opts engine.Options
	max  int
	mu   sync.Mutex
	free []*engine.Engine
	made int // full-size engines in existence
}

// get returns an engine and whether it is a full-size one.
func (p *enginePool) get() (*engine.Engine, bool) {
	p.mu.Lock()
	var e *engine.Engine
	if n := len(p.free); n > 0 {
		e, p.free = p.free[n-1], p.free[:n-1]
	}
	full := e != nil || p.made < p.max
	if e == nil && full {
		p.made++
	}
	p.mu.Unlock()
	switch {
	case e != nil:
		e.NewGame()
		return e, true
	case full:
		return engine.New(p.opts), true
	}
	small := p.opts
	small.HashMB = engine.MinHashMB
	return engine.New(small), false
}

// put gives an engine back after its game.
func (p *enginePool) put(e *engine.Engine, full bool) {
	if !full {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, e)
}

// discard forgets an engine that is not given back.
func (p *enginePool) discard(full bool) {
	if full {
		p.mu.Lock()
		p.made--
		p.mu.Unlock()
	}
}

// corrEngineBudget is how many full-size engines the correspondence games
// may have: one per visit slot when correspondence or unlimited challenges
// are accepted; otherwise none, and the games that show up anyway (started
// elsewhere, or before the setting changed) play with minimal ones.
func corrEngineBudget(cfg config.Config, threads int) int {
	if cfg.Policy.Correspondence || cfg.Policy.Unlimited {
		return corrSlots(threads)
	}
	return 0
}

// checkMemoryBudget refuses to start when the full-size engines
// (PONDEROSA_MAX_GAMES for the real-time games, corrEngineBudget for the
// correspondence ones) with PONDEROSA_HASH_MB each would not fit in the
// memory available.
func checkMemoryBudget(games, corr, hashMB int) error {
	need := uint64(games+corr) * engine.HashBytes(hashMB)
	if err := engine.CheckMemory(need); err != nil {
		what := fmt.Sprintf("PONDEROSA_MAX_GAMES (%d)", games)
		if corr > 0 {
			what = fmt.Sprintf("(%s + %d open correspondence games)", what, corr)
		}
		return fmt.Errorf("%s × PONDEROSA_HASH_MB (%d MiB) needs %d MiB of hash tables: %w; lower one of them", what, hashMB, need>>20, err)
	}
	return nil
}
