package bot

import (
	"context"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/uci/client"
)

// Engine plays a game's moves: the embedded engine or an external process
// behind the same contract. A game's runner owns one Engine; the move
// sources that come before the engine (books and the like) and the runner
// see only this interface.
type Engine interface {
	// NewGame prepares the engine for the game (once, before its first
	// search). An error means the engine cannot play this game at all.
	NewGame(ctx context.Context, g GameInfo) error
	// Start begins a search of g's position under lim and returns at once
	// with the search registered: Stop, PonderHit and cancelling ctx reach
	// it whenever they are called. A cancelled search still answers with
	// its best move, promptly. info, if not nil, sees the progress reports
	// (on another goroutine).
	Start(ctx context.Context, g *board.Game, lim engine.Limits, info func(engine.Info)) Search
	// CanPonder reports whether a ponder search is worth starting now.
	CanPonder() bool
	// Close ends the engine once its searches have answered. broken says
	// the game panicked: nothing the engine holds is reused.
	Close(broken bool)
}

// Search is a search started by Engine.Start.
type Search interface {
	// PonderHit turns a ponder search into the search for our move.
	PonderHit()
	// Stop asks for the answer now.
	Stop()
	// Wait returns the answer (call it once). Best is board.NoMove only
	// when the position has no legal move.
	Wait() Answer
}

// Answer is a search's result and where it came from.
type Answer struct {
	engine.Result
	// Source names what chose the move: "engine" (the embedded one), the
	// external engine's name, "fallback" (the embedded engine standing in
	// for a faulty external one), "book" or "forced".
	Source string
	// Sent and Read, when set, are when the engine was asked and when its
	// answer was read (an external engine's position+go and bestmove); the
	// bot's own time is measured outside them.
	Sent, Read time.Time
}

// GameInfo is what an engine is told about a game at its start.
type GameInfo struct {
	Start     board.Position // the initial position (Chess960 flag as played)
	StartFEN  string         // "" for the standard start
	Variant   string         // Lichess variant key
	Base, Inc time.Duration  // the clock; zero when untimed
	Opponent  client.Opponent
	OurRating int
}

// builtinEngine is the embedded engine, from the service's pool (full:
// a full-size one, counted against the memory budget).
type builtinEngine struct {
	svc   *Service
	pool  *enginePool // where eng goes back
	eng   *engine.Engine
	full  bool
	visit bool // a correspondence game's visit
}

func (b *builtinEngine) NewGame(context.Context, GameInfo) error { return nil }

func (b *builtinEngine) Start(ctx context.Context, g *board.Game, lim engine.Limits, info func(engine.Info)) Search {
	b.svc.fairThreads(b.eng, b.visit)
	return builtinSearch{b.eng.Start(ctx, g, lim, info)}
}

func (b *builtinEngine) CanPonder() bool { return b.svc.canPonder() }

func (b *builtinEngine) Close(broken bool) {
	if broken {
		b.pool.discard(b.full)
		return
	}
	b.pool.put(b.eng, b.full)
}

type builtinSearch struct{ h *engine.Handle }

func (s builtinSearch) PonderHit()   { s.h.PonderHit() }
func (s builtinSearch) Stop()        { s.h.Stop() }
func (s builtinSearch) Wait() Answer { return Answer{Result: s.h.Wait(), Source: sourceEngine} }
