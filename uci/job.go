package uci

// Jobs: the search, perft or bench that runs while the input loop goes on,
// and what ends each of them.

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// jobEvent is output of the running job (search, perft, bench): a line to
// print, or its end.
type jobEvent struct {
	line   string
	done   bool
	result *engine.Result // for searches
}

// job is the running search or long command.
type job struct {
	cancel   context.CancelFunc
	state    jobState
	afterHit jobState // what a ponderhit makes of a pondering search
	root     board.Position
	held     *engine.Result // finished but not allowed to print bestmove yet
	handle   *engine.Handle // the search (nil for perft, bench)
}

// jobState is what ends the running job.
type jobState int

const (
	// running: the job ends by itself (a search with a limit, a pondering
	// search that was hit, perft, bench).
	running jobState = iota
	// untilStop: go infinite, or a go with no limit at all; bestmove only
	// after stop.
	untilStop
	// pondering: go ponder not hit yet; bestmove only after ponderhit or
	// stop.
	pondering
	// stopped: stop received; the job ends as soon as it can.
	stopped
)

// pendingCmd is a command received while a job ran. A stop or ponderhit
// that arrives while a go is still queued applies to that go too, so a
// burst like "go infinite / stop" never leaves a search running.
type pendingCmd struct {
	cmd          Command
	stopped, hit bool
}

// waitsForGUI reports whether the job runs until the GUI ends it: its
// bestmove is held until then.
func (j *job) waitsForGUI() bool { return j.state == untilStop || j.state == pondering }

// isSearch reports whether the job is a search (not perft or bench).
func (j *job) isSearch() bool { return j.handle != nil }

// startSearch starts the search of a go command as the running job.
func (s *session) startSearch(ctx context.Context, c Go) {
	root := s.game.Position()
	l := engine.Limits{
		WTime: c.WTime, BTime: c.BTime, WInc: c.WInc, BInc: c.BInc,
		MovesToGo: c.MovesToGo, Depth: c.Depth, Mate: c.Mate, Nodes: c.Nodes,
		MoveTime: c.MoveTime, Infinite: c.Infinite, Ponder: c.Ponder,
	}
	for _, ms := range c.SearchMoves {
		m, err := root.ParseUCIMove(ms)
		if err != nil {
			s.infoString("searchmoves: %s ignored: %v", clip(ms), err)
			continue
		}
		l.SearchMoves = append(l.SearchMoves, m)
	}
	if len(c.SearchMoves) > 0 && len(l.SearchMoves) == 0 {
		s.infoString("searchmoves: no legal move given, searching all moves")
	}
	clock := c.WTime != 0 || c.BTime != 0 || c.WInc != 0 || c.BInc != 0
	timed := clock || c.MoveTime > 0 || c.Depth > 0 || c.Nodes > 0 || c.Mate > 0
	// A go with no limit at all runs until stop, as go infinite does: the
	// engine is told so too, so that it never returns at its maximum depth.
	l.Infinite = c.Infinite || !timed
	ctx, cancel := context.WithCancel(ctx)
	j := &job{cancel: cancel, root: root}
	j.afterHit = running
	if l.Infinite {
		j.afterHit = untilStop
	}
	j.state = j.afterHit
	if c.Ponder {
		j.state = pondering
	}
	s.job = j
	g := s.game.Clone()
	events := s.events
	eng := s.eng
	started := time.Now()
	report := func(info engine.Info) {
		line, ok := formatInfo(&root, info, time.Since(started))
		if ok {
			events <- jobEvent{line: line}
		}
	}
	// Start returns once the search is registered, so a stop or ponderhit
	// read right after this "go" always reaches it.
	j.handle = eng.Start(ctx, g, l, report)
	go func() {
		defer cancel()
		res := j.handle.Wait()
		events <- jobEvent{done: true, result: &res}
	}()
}

// formatInfo renders an engine report as a UCI info line. Currmove reports
// are only sent after the first second, as the spec suggests.
func formatInfo(root *board.Position, info engine.Info, since time.Duration) (string, bool) {
	var b strings.Builder
	if info.PV == nil && info.CurrMove != board.NoMove {
		if since < time.Second {
			return "", false
		}
		fmt.Fprintf(&b, "info depth %d currmove %s currmovenumber %d", info.Depth, root.UCI(info.CurrMove), info.CurrMoveNumber)
		return b.String(), true
	}
	fmt.Fprintf(&b, "info depth %d", info.Depth)
	if info.SelDepth > 0 {
		fmt.Fprintf(&b, " seldepth %d", info.SelDepth)
	}
	mpv := info.MultiPV
	if mpv < 1 {
		mpv = 1
	}
	fmt.Fprintf(&b, " multipv %d score %s", mpv, info.Score)
	if bs := info.Bound.String(); bs != "" {
		b.WriteString(" " + bs)
	}
	fmt.Fprintf(&b, " nodes %d nps %d hashfull %d time %d", info.Nodes, info.NPS, info.HashFull, info.Time.Milliseconds())
	if len(info.PV) > 0 {
		b.WriteString(" pv")
		pos := *root
		var child board.Position
		for _, m := range info.PV {
			if !pos.IsLegal(m) {
				break
			}
			b.WriteString(" " + pos.UCI(m))
			pos.MakeMove(m, &child)
			pos = child
		}
	}
	return b.String(), true
}

// handleJobEvent prints job output and, at the end of a job, its bestmove
// (unless it must be held) and the commands that waited for it.
func (s *session) handleJobEvent(ctx context.Context, ev jobEvent) {
	if !ev.done {
		s.println(ev.line)
		return
	}
	j := s.job
	if j == nil {
		return
	}
	if j.isSearch() {
		res := *ev.result
		// Never end a go infinite or an unanswered go ponder on our own.
		if j.waitsForGUI() {
			j.held = &res
			return
		}
		s.finishSearch(ctx, res)
		return
	}
	s.endJob(ctx)
}

// finishSearch prints the final info and bestmove of the current search.
func (s *session) finishSearch(ctx context.Context, res engine.Result) {
	j := s.job
	root := j.root
	if res.Best != board.NoMove && root.IsLegal(res.Best) {
		if res.Depth > 0 {
			// The final statistics, directly before bestmove (as the spec asks).
			nps := uint64(0)
			if res.Time > 0 {
				nps = uint64(float64(res.Nodes) / res.Time.Seconds())
			}
			s.println(fmt.Sprintf("info depth %d score %s nodes %d nps %d time %d", res.Depth, res.Score, res.Nodes, nps, res.Time.Milliseconds()))
		}
		line := "bestmove " + root.UCI(res.Best)
		var child board.Position
		root.MakeMove(res.Best, &child)
		if res.Ponder != board.NoMove && child.IsLegal(res.Ponder) {
			line += " ponder " + child.UCI(res.Ponder)
		}
		s.println(line)
	} else {
		s.println("bestmove 0000")
	}
	s.endJob(ctx)
}

// endJob clears the job and runs the commands that waited for it, until
// one of them starts a new job.
func (s *session) endJob(ctx context.Context) {
	if s.job != nil {
		s.job.cancel()
		// The job goroutine has sent its done event; nothing more will come.
		s.job = nil
	}
	for len(s.pending) > 0 && s.job == nil && !s.quit {
		pc := s.pending[0]
		s.pending = s.pending[1:]
		s.execute(ctx, pc)
	}
}

func (s *session) startPerft(ctx context.Context, depth int) {
	ctx, cancel := context.WithCancel(ctx)
	s.job = &job{cancel: cancel}
	pos := s.game.Position()
	events := s.events
	// stop, quit, the end of input and the end of ctx (SIGTERM) all cancel
	// the job; the walk looks at the flag between subtrees.
	var stop atomic.Bool
	stopWalk := context.AfterFunc(ctx, func() { stop.Store(true) })
	go func() {
		defer cancel()
		defer stopWalk()
		var l board.MoveList
		pos.GenerateLegal(&l)
		var child board.Position
		var total uint64
		for _, m := range l.Slice() {
			pos.MakeMove(m, &child)
			n, finished := child.PerftStop(depth-1, &stop)
			if !finished {
				events <- jobEvent{line: "info string perft stopped"}
				events <- jobEvent{done: true}
				return
			}
			total += n
			events <- jobEvent{line: fmt.Sprintf("%s: %d", pos.UCI(m), n)}
		}
		events <- jobEvent{line: ""}
		events <- jobEvent{line: fmt.Sprintf("Nodes searched: %d", total)}
		events <- jobEvent{done: true}
	}()
}

func (s *session) startBench(ctx context.Context, depth int) {
	ctx, cancel := context.WithCancel(ctx)
	s.job = &job{cancel: cancel}
	events := s.events
	eng := s.eng
	go func() {
		defer cancel()
		nodes, elapsed := eng.Bench(ctx, depth)
		nps := uint64(0)
		if elapsed > 0 {
			nps = uint64(float64(nodes) / elapsed.Seconds())
		}
		if ctx.Err() != nil {
			events <- jobEvent{line: "info string bench stopped"}
		}
		events <- jobEvent{line: fmt.Sprintf("Total time (ms) : %d", elapsed.Milliseconds())}
		events <- jobEvent{line: fmt.Sprintf("Nodes searched: %d", nodes)}
		events <- jobEvent{line: fmt.Sprintf("Nodes/second: %d", nps)}
		events <- jobEvent{done: true}
	}()
}
