package fakelichess

import (
	"context"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// EngineOpponent returns a sparring opponent: the real engine at a fixed
// node budget per move, weak at small budgets but a real player. It keeps
// one engine per concurrent game and is safe for concurrent games.
func EngineOpponent(nodes uint64) Opponent {
	pool := sync.Pool{New: func() any { return engine.New(engine.Options{HashMB: 4, Threads: 1}) }}
	return func(ctx context.Context, g *board.Game, left, inc time.Duration) board.Move {
		e := pool.Get().(*engine.Engine)
		defer pool.Put(e)
		return e.Search(ctx, g, engine.Limits{Nodes: nodes}, nil).Best
	}
}
