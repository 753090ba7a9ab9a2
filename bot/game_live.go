package bot

import (
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/live"
	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// The game runner's side of the publisher: each function copies what the
// page shows into the game's view, under the publisher's short lock, and
// returns. None of them waits for the page or its readers.

// Where a move came from, as the page and the logs show it.
const (
	sourceEngine = "engine"
	sourceBook   = "book"
	sourceForced = "forced" // the only legal move; no space: the store counts sources as name=count
)

func livePlayer(p lichess.GamePlayer) live.PlayerView {
	return live.PlayerView{Name: playerName(p), Title: p.Title, Rating: p.Rating, Provisional: p.Provisional}
}

// publishSetup shows the game's players and settings.
func (r *gameRunner) publishSetup(f *lichess.GameFull) {
	color := r.us.String()
	tc := clockString(f)
	if f.Clock != nil {
		tc = liveTC(f.Clock.InitialTime(), f.Clock.IncrementTime())
	}
	r.svc.pub.updateGame(r.id, func(g *live.GameView) {
		g.URL = r.svc.gameURL(r.id)
		g.White, g.Black = livePlayer(f.White), livePlayer(f.Black)
		g.Color, g.Variant, g.Speed, g.TimeControl, g.Rated = color, string(f.Variant.Key), string(f.Speed), tc, f.Rated
		g.Timed = f.Clock != nil
		g.Started = r.began
	})
}

// publishState shows the position, the moves and the clocks of the last
// gameState, which arrived at at.
func (r *gameRunner) publishState(at time.Time) {
	b := &r.board
	if b.game == nil {
		return
	}
	pos := b.game.Position()
	fen := pos.FEN()
	last := ""
	if m := b.lastMove(); m != board.NoMove {
		before := b.positionAt(b.ply() - 1)
		last = before.UCI(m)
	}
	san := b.game.SANMoves()
	wt, bt, _, _ := b.state.Clock()
	running := b.kind == realTime && b.state.Status == lichess.StatusStarted && len(san) >= 2
	r.svc.pub.updateGame(r.id, func(g *live.GameView) {
		g.FEN, g.LastMove, g.Moves = fen, last, san
		g.WhiteClock, g.BlackClock, g.ClockAt, g.ClockRunning = wt, bt, at, running
		g.WhiteToMove = pos.SideToMove() == board.White
	})
}

// reporter returns the info callback of a search on game g: it shows the
// latest complete iteration (score from White's side, PV in SAN). It runs
// on the search's goroutine, once per iteration.
func (r *gameRunner) reporter(g *board.Game, ponder *atomic.Bool) func(engine.Info) {
	root := g.Position()
	whiteToMove := root.SideToMove() == board.White
	return func(in engine.Info) {
		if in.PV == nil || in.MultiPV > 1 {
			return // a currmove report, or a secondary line
		}
		e := &live.EvalView{Depth: in.Depth, Nodes: in.Nodes, NPS: in.NPS, Ponder: ponder.Load()}
		if in.Score.IsMate() {
			e.Mate = in.Score.MateIn()
			if e.Mate == 0 {
				e.Mate = -1
			}
		} else {
			e.CP = int(in.Score)
		}
		if !whiteToMove {
			e.CP, e.Mate = -e.CP, -e.Mate
		}
		pos := root
		e.PV = make([]string, 0, len(in.PV))
		for _, m := range in.PV {
			if !pos.IsLegal(m) {
				break
			}
			e.PV = append(e.PV, pos.SAN(m))
			var next board.Position
			pos.MakeMove(m, &next)
			pos = next
		}
		r.svc.pub.updateGame(r.id, func(v *live.GameView) { v.Eval = e })
	}
}

// moveSource says where the move of a finished search came from.
func moveSource(pos *board.Position, res Answer) string {
	if res.Source != "" {
		return res.Source
	}
	if res.Depth > 0 || res.Nodes > 0 {
		return sourceEngine
	}
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	if ml.N == 1 {
		return sourceForced
	}
	return sourceBook
}

// publishMove records our posted move: where it came from and what it
// cost beyond the search.
func (r *gameRunner) publishMove(source string, ply int, internal, roundTrip time.Duration) {
	r.svc.pub.updateGame(r.id, func(g *live.GameView) { g.Source = source })
	r.svc.pub.move(live.MoveSample{GameID: r.id, Ply: ply, Latency: internal, RoundTrip: roundTrip,
		Overhead: r.svc.overhead.Overhead()})
}

// publishPonder counts a ponder hit (or miss) of this game.
func (r *gameRunner) publishPonder(hit bool) {
	r.svc.pub.updateGame(r.id, func(g *live.GameView) {
		if hit {
			g.PonderHits++
		} else {
			g.PonderMiss++
		}
	})
}
