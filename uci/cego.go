package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// ErrMalformed wraps every protocol error RunCEGO returns: CEGO tells an
// engine to terminate on a malformed message.
var ErrMalformed = errors.New("cego: malformed message")

// cegoForfeitMate is how close a forced mate against us must be, on two
// consecutive moves, before RunCEGO forfeits.
const cegoForfeitMate = 3

// cegoLAN writes m as CEGO long algebraic notation: castling is the king's
// own move (e1g1), whatever the variant.
func cegoLAN(pos board.Position, m board.Move) string {
	pos.Chess960 = false
	return pos.UCI(m)
}

// cegoParseMove reads a CEGO move in pos.
func cegoParseMove(pos board.Position, s string) (board.Move, error) {
	std := pos
	std.Chess960 = false
	if m, err := std.ParseUCIMove(s); err == nil {
		return m, nil
	}
	return pos.ParseUCIMove(s)
}

// cegoMaxLine bounds one CEGO message (a first-move message is four
// 64-bit times and a FEN: under 200 bytes).
const cegoMaxLine = 4096

type cegoLine struct {
	text string
	err  error // io.EOF or a read error ends the input
}

// RunCEGO plays one game as a CEGO revision 1 engine on in and out: it
// sends "ready", answers the first-move message and every later message
// with a move, and ponders on the expected reply between messages. It
// returns nil when the input ends (the mediator stops engines by closing
// or killing them) and an error wrapping ErrMalformed on a malformed
// message, which the caller reports on standard error with a non-zero exit
// status. When the search proves a mate against us within a few moves on
// two consecutive turns, it sends "forfeit" and returns nil; it never
// forfeits any other position.
func RunCEGO(ctx context.Context, in io.Reader, out io.Writer, eng *engine.Engine) error {
	w := bufio.NewWriter(out)
	send := func(s string) error {
		w.WriteString(s)
		w.WriteByte('\n')
		if err := w.Flush(); err != nil {
			return fmt.Errorf("cego: write: %w", err)
		}
		return nil
	}
	done := make(chan struct{})
	defer close(done)
	lines := make(chan cegoLine, 4)
	go func() {
		br := bufio.NewReaderSize(in, cegoMaxLine)
		for {
			b, err := br.ReadSlice('\n')
			ev := cegoLine{text: string(b)}
			switch {
			case err == bufio.ErrBufferFull:
				// Never buffer a longer line: no message is anywhere near
				// this long, and CEGO ends the engine on a malformed one.
				ev = cegoLine{err: fmt.Errorf("%w: a message longer than %d bytes (it starts %s)", ErrMalformed, cegoMaxLine, clip(string(b)))}
			case err != nil && len(b) > 0:
				ev = cegoLine{err: fmt.Errorf("%w: %s does not end with a newline", ErrMalformed, clip(string(b)))}
			case err != nil:
				ev = cegoLine{err: err}
			}
			select {
			case lines <- ev:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	next := func() (string, bool, error) {
		select {
		case ev := <-lines:
			if ev.err == io.EOF {
				return "", false, nil
			}
			if ev.err != nil {
				if errors.Is(ev.err, ErrMalformed) {
					return "", false, ev.err
				}
				return "", false, fmt.Errorf("cego: read: %w", ev.err)
			}
			return ev.text, true, nil
		case <-ctx.Done():
			return "", false, nil
		}
	}

	if err := send("ready"); err != nil {
		return err
	}
	line, ok, err := next()
	if !ok {
		return err
	}
	first, err := ParseCEGOFirst(line)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	start, err := board.ParseFEN(first.FEN)
	if err != nil {
		return fmt.Errorf("%w: first-move message: %w", ErrMalformed, err)
	}
	g := board.NewGame(start)
	us := start.SideToMove()
	ourInc, oppInc := first.YourInc, first.OppInc
	limits := func(ours, theirs time.Duration) engine.Limits {
		// A clock at zero has run out: negative tells the engine to move
		// at once (zero clocks and increments would mean "no clock").
		ours, theirs = ranOut(ours), ranOut(theirs)
		l := engine.Limits{WTime: ours, BTime: theirs, WInc: ourInc, BInc: oppInc}
		if us == board.Black {
			l.WTime, l.BTime, l.WInc, l.BInc = theirs, ours, oppInc, ourInc
		}
		return l
	}

	ours, theirs := first.YourTime, first.OppTime
	lostRun := 0
	var ready *engine.Result // a search finished after a ponder hit
	var readyBegan time.Time // when that ponder hit happened
	for {
		// Our turn: search (unless a ponder hit already did) and reply.
		pos := g.Position()
		if pos.SideToMove() != us {
			return fmt.Errorf("%w: it is not our turn", ErrMalformed)
		}
		began := time.Now()
		var res engine.Result
		if ready != nil {
			res, ready, began = *ready, nil, readyBegan
		} else {
			res = eng.Search(ctx, g, limits(ours, theirs), nil)
		}
		if ctx.Err() != nil {
			return nil
		}
		if res.Best == board.NoMove {
			return fmt.Errorf("%w: no legal move in %s (the game is over)", ErrMalformed, pos.FEN())
		}
		if res.Score.IsMate() && res.Score.MateIn() < 0 && -res.Score.MateIn() <= cegoForfeitMate {
			lostRun++
		} else {
			lostRun = 0
		}
		if lostRun >= 2 {
			return send("forfeit")
		}
		if err := send(cegoLAN(pos, res.Best)); err != nil {
			return err
		}
		if err := g.Play(res.Best); err != nil {
			return fmt.Errorf("cego: engine move: %w", err)
		}
		elapsed := time.Since(began)

		// Ponder on the expected reply while waiting for the message. Its
		// clock is the one we expect the mediator to send; the message's
		// differs only by transport latency.
		var ponder *cegoPonder
		if after := g.Position(); res.Ponder != board.NoMove && after.IsLegal(res.Ponder) {
			pg := g.Clone()
			if pg.Play(res.Ponder) == nil {
				expected := max(ours-elapsed, 0) + ourInc
				ponder = startCEGOPonder(ctx, eng, pg, res.Ponder, limits(expected, theirs))
			}
		}

		line, ok, err := next()
		if !ok {
			ponder.abandon()
			return err
		}
		msg, err := ParseCEGONext(line)
		if err != nil {
			ponder.abandon()
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		ours, theirs = msg.YourTime, msg.OppTime
		m, err := cegoParseMove(g.Position(), msg.Move)
		if err != nil {
			ponder.abandon()
			return fmt.Errorf("%w: opponent move: %w", ErrMalformed, err)
		}
		if ponder != nil && m == ponder.move {
			g = ponder.game
			readyBegan = time.Now()
			r := ponder.hitAndWait()
			ready = &r
			continue
		}
		ponder.abandon()
		if err := g.Play(m); err != nil {
			return fmt.Errorf("%w: opponent move: %w", ErrMalformed, err)
		}
	}
}

// cegoPonder is a ponder search running on the engine's goroutine.
type cegoPonder struct {
	move   board.Move
	game   *board.Game
	cancel context.CancelFunc
	h      *engine.Handle
}

func startCEGOPonder(ctx context.Context, eng *engine.Engine, g *board.Game, m board.Move, l engine.Limits) *cegoPonder {
	l.Ponder = true
	ctx, cancel := context.WithCancel(ctx)
	// Start returns with the search registered: a hit right after it
	// cannot be lost.
	h := eng.Start(ctx, g.Clone(), l, nil)
	return &cegoPonder{move: m, game: g, cancel: cancel, h: h}
}

// hitAndWait turns the ponder search into a timed search and waits for it.
func (p *cegoPonder) hitAndWait() engine.Result {
	p.h.PonderHit()
	res := p.h.Wait()
	p.cancel()
	return res
}

// abandon stops the ponder search and waits for it (nil-safe).
func (p *cegoPonder) abandon() {
	if p == nil {
		return
	}
	p.cancel()
	p.h.Wait()
}

// ranOut maps a clock at or below zero to a negative one (see engine.Limits).
func ranOut(d time.Duration) time.Duration {
	if d <= 0 {
		return -time.Nanosecond
	}
	return d
}
