package bot

// Spare external engine processes, started ahead so that a restart after a
// fault costs no start-up time.

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/ponderosa-chess/ponderosa/uci/client"
)

// sparePool keeps external engine processes started ahead of the games,
// so that a game does not wait for a start (Stockfish loads its network,
// Lc0 its weights): up to the game limit, less the games that took one.
// A game takes a spare; when it ends a new one starts. No process ever
// serves two games.
type sparePool struct {
	spec client.Spec
	log  *slog.Logger
	ctx  context.Context
	c    chan *client.Engine
	wg   sync.WaitGroup
	// starting counts the starts in flight.
	starting atomic.Int32
}

func newSparePool(ctx context.Context, spec client.Spec, log *slog.Logger, first *client.Engine, size int) *sparePool {
	p := &sparePool{spec: spec, log: log, ctx: ctx, c: make(chan *client.Engine, max(size, 1))}
	p.c <- first
	for range size - 1 {
		p.refill()
	}
	return p
}

// take returns a spare process: one that is ready, or the next one to
// start if a start is in flight (rather than one more start competing for
// the CPU); nil when there is none.
func (p *sparePool) take(ctx context.Context) *client.Engine {
	if p == nil {
		return nil
	}
	for {
		var e *client.Engine
		select {
		case e = <-p.c:
		default:
			if p.starting.Load() == 0 {
				return nil
			}
			select {
			case e = <-p.c:
			case <-ctx.Done():
				return nil
			}
		}
		if e.Err() == nil {
			return e
		}
		e.Close()
		p.refill()
	}
}

func (p *sparePool) refill() {
	if p == nil || p.ctx.Err() != nil {
		return
	}
	p.starting.Add(1)
	p.wg.Go(func() {
		e, err := client.Start(p.ctx, p.spec)
		defer p.starting.Add(-1)
		if err != nil {
			if p.ctx.Err() == nil {
				p.log.Warn("spare engine process did not start", "err", err)
			}
			return
		}
		select {
		case p.c <- e:
		default:
			e.Close()
		}
	})
}

// close ends the spare processes (after its context is cancelled) and
// waits for the starts in flight.
func (p *sparePool) close() {
	if p == nil {
		return
	}
	p.wg.Wait()
	for {
		select {
		case e := <-p.c:
			e.Close()
		default:
			return
		}
	}
}
