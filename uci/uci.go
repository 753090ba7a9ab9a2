// Package uci speaks the engine side of the Universal Chess Interface
// (UCI, April 2006) and of CEGO revision 1 over an io.Reader and io.Writer,
// driving an engine.Engine. The input loop never blocks on the search:
// isready, stop, ponderhit, debug and quit are answered while searching;
// commands that change the engine (position, go, setoption, ucinewgame)
// wait until the search has finished.
package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// EngineName and EngineAuthor are announced by "id".
const (
	EngineName   = "Ponderosa"
	EngineAuthor = "the Ponderosa authors"
)

// maxLine bounds one input line; longer lines are dropped with a note.
const maxLine = 1 << 20

// inputEvent is one line from the GUI, or the end of input.
type inputEvent struct {
	raw string
	eof error // set (io.EOF or a read error) at the end of input
}

// readLines feeds in's lines to out until the end of input or until done
// is closed. A line ends at '\n' or '\r' (any combination, as the spec
// allows), so "\r\n" yields an empty line, which is ignored.
func readLines(in io.Reader, out chan<- inputEvent, done <-chan struct{}) {
	br := bufio.NewReaderSize(in, 64*1024)
	var line []byte
	tooLong := false
	send := func(ev inputEvent) bool {
		select {
		case out <- ev:
			return true
		case <-done:
			return false
		}
	}
	for {
		c, err := br.ReadByte()
		if err != nil {
			if len(line) > 0 && !send(inputEvent{raw: string(line)}) {
				return
			}
			send(inputEvent{eof: err})
			return
		}
		if c == '\n' || c == '\r' {
			if tooLong {
				tooLong = false
				if !send(inputEvent{raw: "", eof: nil}) {
					return
				}
			} else if len(line) > 0 {
				if !send(inputEvent{raw: string(line)}) {
					return
				}
			}
			line = line[:0]
			continue
		}
		if tooLong {
			continue
		}
		if len(line) >= maxLine {
			tooLong = true
			line = line[:0]
			continue
		}
		line = append(line, c)
	}
}

// session is the state of one UCI conversation. Only the Run goroutine
// touches it (the job goroutine only sends events).
type session struct {
	eng     *engine.Engine
	out     *bufio.Writer
	werr    error
	debug   bool
	set     settings
	options []Option
	game    *board.Game
	job     *job
	events  chan jobEvent
	pending []pendingCmd // commands waiting for the job to end
	quit    bool
}

// Run speaks UCI on in and out with eng until "quit", the end of input or
// the cancellation of ctx. Exactly one goroutine writes out, one line at a
// time, flushed after every line. It returns nil on a normal end and the
// write error if out fails.
func Run(ctx context.Context, in io.Reader, out io.Writer, eng *engine.Engine) error {
	s := &session{
		eng:    eng,
		out:    bufio.NewWriter(out),
		game:   board.NewGame(board.StartPosition()),
		events: make(chan jobEvent, 1024),
	}
	// The engine's own options are the starting settings and the announced
	// defaults (engine.DefaultOptions() for `ponderosa uci`).
	o := eng.Options()
	s.set = settingsOf(o)
	s.options = newOptions(&s.set, s.applyOptions, eng.ClearHash, o.Net)

	done := make(chan struct{})
	defer close(done)
	input := make(chan inputEvent, 64)
	go readLines(in, input, done)

	for !s.quit && s.werr == nil {
		select {
		case ev := <-input:
			if ev.eof != nil {
				s.shutdown(ctx)
				break
			}
			if ev.raw == "" {
				s.infoString("input line longer than %d bytes ignored", maxLine)
				continue
			}
			s.handleLine(ctx, ev.raw)
		case ev := <-s.events:
			s.handleJobEvent(ctx, ev)
		case <-ctx.Done():
			s.shutdown(ctx)
		}
	}
	// After a write error: still end the job so its goroutine finishes.
	s.shutdown(ctx)
	return s.werr
}

// shutdown stops any job, waits for it (printing its bestmove) and ends
// the session.
func (s *session) shutdown(ctx context.Context) {
	s.quit = true // no queued command runs any more
	if s.job != nil {
		s.stopJob(ctx)
		for s.job != nil {
			s.handleJobEvent(ctx, <-s.events)
		}
	}
}

// println writes one line and flushes it.
func (s *session) println(line string) {
	if s.werr != nil {
		return
	}
	s.out.WriteString(line)
	s.out.WriteByte('\n')
	s.werr = s.out.Flush()
}

func (s *session) infoString(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	msg = strings.ReplaceAll(strings.ReplaceAll(msg, "\n", " "), "\r", " ")
	s.println("info string " + msg)
}

// handleLine parses one input line and acts on it.
func (s *session) handleLine(ctx context.Context, raw string) {
	cmd, err := Parse(raw)
	if s.debug {
		s.infoString("received: %s", strings.TrimSpace(raw))
	}
	if err != nil {
		if !errors.Is(err, ErrEmpty) {
			s.infoString("%v", err)
		} else if s.debug {
			s.infoString("unknown command ignored: %s", strings.TrimSpace(raw))
		}
		return
	}
	switch c := cmd.(type) {
	case UCICmd:
		s.println("id name " + EngineName)
		s.println("id author " + EngineAuthor)
		for _, o := range s.options {
			s.println(o.Declare())
		}
		s.println("uciok")
		return
	case Debug:
		s.debug = c.On
		return
	case IsReady:
		// Answered at once when idle or when only a search that waits for
		// stop/ponderhit stands before it; otherwise after the commands
		// queued before it (the running job ends by itself soon).
		if s.job == nil || len(s.pending) == 0 || s.job.waitsForGUI() {
			s.println("readyok")
			return
		}
	case Register:
		s.println("registration checking")
		s.println("registration ok")
		return
	case Stop:
		for i := range s.pending {
			switch s.pending[i].cmd.(type) {
			case Go, Bench:
				s.pending[i].stopped = true
			}
		}
		if s.job != nil {
			s.stopJob(ctx)
		}
		return
	case PonderHit:
		for i := len(s.pending) - 1; i >= 0; i-- {
			if g, ok := s.pending[i].cmd.(Go); ok {
				if g.Ponder {
					s.pending[i].hit = true
				}
				return // the hit is for the latest go
			}
		}
		if j := s.job; j != nil && j.state == pondering {
			j.state = j.afterHit
			j.handle.PonderHit()
			if j.held != nil && !j.waitsForGUI() {
				s.finishSearch(ctx, *j.held)
			}
		}
		return
	case Quit:
		s.shutdown(ctx)
		return
	}
	if s.job != nil {
		s.pending = append(s.pending, pendingCmd{cmd: cmd})
		return
	}
	s.execute(ctx, pendingCmd{cmd: cmd})
}

// stopJob handles "stop": cancel the job; a held result is printed now.
func (s *session) stopJob(ctx context.Context) {
	j := s.job
	j.state = stopped
	j.cancel()
	if j.handle != nil {
		j.handle.Stop()
	}
	if j.held != nil {
		s.finishSearch(ctx, *j.held)
	}
}

// execute runs a command that needs the engine idle.
func (s *session) execute(ctx context.Context, pc pendingCmd) {
	switch c := pc.cmd.(type) {
	case IsReady:
		s.println("readyok")
	case SetOption:
		s.setOption(c)
	case NewGame:
		s.eng.NewGame()
		s.game = board.NewGame(s.startPosition())
	case Position:
		s.setPosition(c)
	case Go:
		if c.Perft > 0 {
			s.startPerft(ctx, c.Perft)
			if pc.stopped {
				s.stopJob(ctx)
			}
			return
		}
		if pc.hit {
			c.Ponder = false // pondering that was hit at once is a normal search
		}
		s.startSearch(ctx, c)
		if pc.stopped {
			s.stopJob(ctx)
		}
	case Bench:
		s.startBench(ctx, c.Depth)
		if pc.stopped {
			s.stopJob(ctx)
		}
	case Display:
		pos := s.game.Position()
		for _, l := range strings.Split(strings.TrimRight(pos.String(), "\n"), "\n") {
			s.println(l)
		}
		var cs []string
		for b := pos.Checkers(); b != 0; {
			cs = append(cs, b.PopLSB().String())
		}
		s.println("Checkers: " + strings.Join(cs, " "))
	case Eval:
		pos := s.game.Position()
		for _, l := range strings.Split(strings.TrimRight(s.eng.EvalTrace(&pos), "\n"), "\n") {
			s.println(l)
		}
	}
}

func (s *session) startPosition() board.Position {
	p := board.StartPosition()
	p.Chess960 = s.set.chess960
	return p
}

// applyOptions pushes the settings to the engine. A hash table that does
// not fit in memory is refused there (the old table stays): the error goes
// back to the option, which keeps its old value.
func (s *session) applyOptions() error {
	if s.set.useNNUE && s.set.net == nil {
		s.infoString("Use NNUE: no network loaded (set EvalFile); the hand-crafted evaluation plays")
	}
	return s.eng.SetOptions(s.set.engineOptions(s.eng.Options()))
}

func (s *session) setOption(c SetOption) {
	for _, o := range s.options {
		if !strings.EqualFold(o.Name(), c.Name) {
			continue
		}
		note, err := o.Set(c.Value)
		if err != nil {
			s.infoString("%v", err)
			return
		}
		if note != "" {
			s.infoString("%s", note)
		}
		if s.debug {
			s.infoString("option %s set", o.Name())
		}
		return
	}
	s.infoString("no such option: %s", clip(c.Name))
}

func (s *session) setPosition(c Position) {
	var start board.Position
	if c.FEN == "" {
		start = board.StartPosition()
	} else {
		p, err := board.ParseFEN(c.FEN)
		if err != nil {
			s.infoString("position ignored: %v", err)
			return
		}
		start = p
	}
	start.Chess960 = start.Chess960 || s.set.chess960
	g := board.NewGame(start)
	for i, ms := range c.Moves {
		pos := g.Position()
		m, err := pos.ParseUCIMove(ms)
		if err == nil {
			err = g.Play(m)
		}
		if err != nil {
			s.infoString("position: move %d %s is not legal here (%v); moves from it on are ignored", i+1, clip(ms), err)
			break
		}
	}
	s.game = g
}
