package match

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/uci/client"
)

// EngineSpec says how to run one engine.
type EngineSpec struct {
	// Name labels the engine in output and PGN; empty means the UCI "id
	// name" (or the program name for CEGO).
	Name string
	// Argv is the program and its arguments.
	Argv []string
	// CEGO selects the CEGO protocol instead of UCI.
	CEGO bool
	// Options are UCI options sent with setoption after the handshake, in
	// order ("Hash" → "64").
	Options [][2]string
}

// ParseEngineSpec reads a --engine value: a shell-style command line,
// optionally prefixed "cego:" or "uci:".
func ParseEngineSpec(s string) (EngineSpec, error) {
	spec := EngineSpec{}
	switch {
	case strings.HasPrefix(s, "cego:"):
		spec.CEGO = true
		s = s[len("cego:"):]
	case strings.HasPrefix(s, "uci:"):
		s = s[len("uci:"):]
	}
	argv, err := SplitCommand(s)
	if err != nil {
		return EngineSpec{}, err
	}
	spec.Argv = argv
	return spec, nil
}

// TimeControl is the clock of a game: Base per side plus Inc per move, or
// fixed per-move limits (MoveTime, Nodes, Depth) with no clock. CEGO
// engines need a clock.
type TimeControl struct {
	Base, Inc time.Duration
	MoveTime  time.Duration
	Nodes     uint64
	Depth     int
}

// Timed reports whether the game is played on a clock.
func (tc TimeControl) Timed() bool { return tc.Base > 0 }

// ParseTC reads "10+0.1" (seconds + increment seconds), "40" (seconds, no
// increment) or "inf" (no clock: use Nodes, Depth or MoveTime).
func ParseTC(s string) (TimeControl, error) {
	if s == "inf" || s == "" {
		return TimeControl{}, nil
	}
	base, inc, _ := strings.Cut(s, "+")
	var tc TimeControl
	b, err := strconv.ParseFloat(base, 64)
	if err != nil || b <= 0 || b > 1e6 {
		return TimeControl{}, fmt.Errorf("time control %q: want SECONDS[+INCREMENT], e.g. 10+0.1", s)
	}
	tc.Base = time.Duration(b * float64(time.Second))
	if inc != "" {
		i, err := strconv.ParseFloat(inc, 64)
		if err != nil || i < 0 || i > 1e6 {
			return TimeControl{}, fmt.Errorf("time control %q: bad increment %q", s, inc)
		}
		tc.Inc = time.Duration(i * float64(time.Second))
	}
	return tc, nil
}

// String writes tc in PGN TimeControl style ("10+0.1", "-" when untimed).
func (tc TimeControl) String() string {
	if !tc.Timed() {
		return "-"
	}
	s := strconv.FormatFloat(tc.Base.Seconds(), 'f', -1, 64)
	if tc.Inc > 0 {
		s += "+" + strconv.FormatFloat(tc.Inc.Seconds(), 'f', -1, 64)
	}
	return s
}

// moveRequest is what a player needs to choose a move.
type moveRequest struct {
	game             *board.Game // the game so far (opening included)
	ourTime, oppTime time.Duration
	ourInc, oppInc   time.Duration
	tc               TimeControl
	deadline         time.Time // forfeit on time after this
	lastMove         string    // the opponent's last move (CEGO), "" if none
}

// moveReply is a player's answer.
type moveReply struct {
	move     string // long algebraic notation as the engine sent it
	forfeit  bool   // CEGO "forfeit"
	elapsed  time.Duration
	hasScore bool
	score    int // centipawns from the mover's view; mates as ±(100000 - plies)
	mate     int // signed moves to mate, 0 if not a mate score
	depth    int
}

// player is one engine process driven over a protocol.
type player interface {
	name() string
	newGame(ctx context.Context) error
	move(ctx context.Context, req moveRequest) (moveReply, error)
	// endGame tells the player the game is over (CEGO engines are ended).
	endGame()
	// usable reports whether the player can play another game.
	usable() bool
	close()
}

const (
	handshakeTimeout = 15 * time.Second
	// untimedMoveTimeout bounds a move under a node or depth limit.
	untimedMoveTimeout = 5 * time.Minute
)

// uciPlayer drives a UCI engine.
type uciPlayer struct {
	spec     EngineSpec
	p        *process
	id       string
	broken   bool
	chess960 bool // the engine's UCI_Chess960 setting
}

func newUCIPlayer(ctx context.Context, spec EngineSpec, log func(dir, line string)) (*uciPlayer, error) {
	label := spec.Name
	if label == "" {
		label = spec.Argv[0]
	}
	p, err := startProcess(ctx, label, spec.Argv, log)
	if err != nil {
		return nil, err
	}
	u := &uciPlayer{spec: spec, p: p, id: label}
	if err := u.handshake(ctx); err != nil {
		p.Close("quit", time.Second)
		return nil, err
	}
	return u, nil
}

func (u *uciPlayer) handshake(ctx context.Context) error {
	if err := u.p.Send("uci"); err != nil {
		return err
	}
	deadline := time.Now().Add(handshakeTimeout)
	for {
		line, err := u.p.ReadLine(ctx, deadline)
		if err != nil {
			return fmt.Errorf("waiting for uciok: %w", err)
		}
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "id" && f[1] == "name" && u.spec.Name == "" {
			u.id = strings.Join(f[2:], " ")
		}
		if len(f) == 1 && f[0] == "uciok" {
			break
		}
	}
	for _, o := range u.spec.Options {
		if err := u.p.Send("setoption name " + o[0] + " value " + o[1]); err != nil {
			return err
		}
	}
	return u.sync(ctx)
}

// sync sends isready and waits for readyok.
func (u *uciPlayer) sync(ctx context.Context) error {
	if err := u.p.Send("isready"); err != nil {
		return err
	}
	deadline := time.Now().Add(handshakeTimeout)
	for {
		line, err := u.p.ReadLine(ctx, deadline)
		if err != nil {
			return fmt.Errorf("waiting for readyok: %w", err)
		}
		if strings.TrimSpace(line) == "readyok" {
			return nil
		}
	}
}

func (u *uciPlayer) name() string { return u.id }

func (u *uciPlayer) newGame(ctx context.Context) error {
	if err := u.p.Send("ucinewgame"); err != nil {
		u.broken = true
		return err
	}
	if err := u.sync(ctx); err != nil {
		u.broken = true
		return err
	}
	return nil
}

func (u *uciPlayer) move(ctx context.Context, req moveRequest) (moveReply, error) {
	start := req.game.Start()
	if start.Chess960 != u.chess960 {
		// Castling is then written king-takes-rook, both ways.
		if err := u.p.Send(fmt.Sprintf("setoption name UCI_Chess960 value %t", start.Chess960)); err != nil {
			u.broken = true
			return moveReply{}, err
		}
		u.chess960 = start.Chess960
	}
	var b strings.Builder
	if start.FEN() == board.StartFEN {
		b.WriteString("position startpos")
	} else {
		b.WriteString("position fen " + start.FEN())
	}
	if moves := req.game.Moves(); len(moves) > 0 {
		b.WriteString(" moves")
		pos := start
		var child board.Position
		for _, m := range moves {
			b.WriteString(" " + pos.UCI(m))
			pos.MakeMove(m, &child)
			pos = child
		}
	}
	if err := u.p.Send(b.String()); err != nil {
		u.broken = true
		return moveReply{}, err
	}
	pos := req.game.Position()
	goCmd := "go"
	if req.tc.Timed() {
		wt, bt, wi, bi := req.ourTime, req.oppTime, req.ourInc, req.oppInc
		if pos.SideToMove() == board.Black {
			wt, bt, wi, bi = bt, wt, bi, wi
		}
		goCmd += fmt.Sprintf(" wtime %d btime %d winc %d binc %d", wt.Milliseconds(), bt.Milliseconds(), wi.Milliseconds(), bi.Milliseconds())
	}
	if req.tc.MoveTime > 0 {
		goCmd += fmt.Sprintf(" movetime %d", req.tc.MoveTime.Milliseconds())
	}
	if req.tc.Nodes > 0 {
		goCmd += fmt.Sprintf(" nodes %d", req.tc.Nodes)
	}
	if req.tc.Depth > 0 {
		goCmd += fmt.Sprintf(" depth %d", req.tc.Depth)
	}
	sent := time.Now()
	if err := u.p.Send(goCmd); err != nil {
		u.broken = true
		return moveReply{}, err
	}
	var r moveReply
	for {
		line, err := u.p.ReadLine(ctx, req.deadline)
		if err != nil {
			r.elapsed = time.Since(sent)
			if errors.Is(err, ErrTimeout) {
				u.recoverFromTimeout(ctx)
			} else {
				u.broken = true
			}
			return r, err
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "info":
			if in, err := client.ParseUCIInfo(f[1:]); err == nil {
				r.noteScore(in)
			}
		case "bestmove":
			r.elapsed = time.Since(sent)
			if len(f) < 2 {
				return r, fmt.Errorf("engine %s: bestmove without a move", u.id)
			}
			r.move = f[1]
			return r, nil
		}
	}
}

// recoverFromTimeout stops a search that overran; if no bestmove comes
// within a second, the engine is marked broken and will be restarted.
func (u *uciPlayer) recoverFromTimeout(ctx context.Context) {
	if err := u.p.Send("stop"); err != nil {
		u.broken = true
		return
	}
	deadline := time.Now().Add(time.Second)
	for {
		line, err := u.p.ReadLine(ctx, deadline)
		if err != nil {
			u.broken = true
			return
		}
		if strings.HasPrefix(line, "bestmove") {
			return
		}
	}
}

// noteScore keeps the score of an info line when it is the exact score of
// the main line (bounds and multipv > 1 are passed over). Mates become
// ±(100000 - plies to mate).
func (r *moveReply) noteScore(in client.Info) {
	if !in.HasScore || in.Bound != client.Exact || in.MultiPV > 1 {
		return
	}
	r.hasScore, r.score, r.mate = true, in.CP, in.Mate
	switch {
	case in.Mate > 0:
		r.score = 100000 - (2*in.Mate - 1)
	case in.Mate < 0:
		r.score = -100000 - 2*in.Mate
	}
	if in.Depth > 0 {
		r.depth = in.Depth
	}
}

func (u *uciPlayer) endGame()     {}
func (u *uciPlayer) usable() bool { return !u.broken && u.p.Alive() }
func (u *uciPlayer) close()       { u.p.Close("quit", 2*time.Second) }

// cegoPlayer drives a CEGO engine: one process per game, as the protocol
// has no new-game message (the mediator ends the engines after a game).
type cegoPlayer struct {
	ctx     context.Context
	spec    EngineSpec
	log     func(dir, line string)
	label   string
	p       *process
	started bool // the first-move message was sent this game
}

func newCEGOPlayer(ctx context.Context, spec EngineSpec, log func(dir, line string)) *cegoPlayer {
	label := spec.Name
	if label == "" {
		label = spec.Argv[0]
		if i := strings.LastIndexByte(label, '/'); i >= 0 {
			label = label[i+1:]
		}
	}
	return &cegoPlayer{ctx: ctx, spec: spec, log: log, label: label}
}

func (c *cegoPlayer) name() string { return c.label }

func (c *cegoPlayer) newGame(ctx context.Context) error {
	c.endGame()
	p, err := startProcess(c.ctx, c.label, c.spec.Argv, c.log)
	if err != nil {
		return err
	}
	line, err := p.ReadLine(ctx, time.Now().Add(handshakeTimeout))
	if err == nil && line != "ready" {
		err = fmt.Errorf("engine %s: want \"ready\", got %q", c.label, line)
	}
	if err != nil {
		p.Close("", 100*time.Millisecond)
		return fmt.Errorf("waiting for ready: %w", err)
	}
	c.p, c.started = p, false
	return nil
}

// cegoMove writes m the CEGO way: castling as the king's own move.
func cegoMove(pos board.Position, m board.Move) string {
	pos.Chess960 = false
	return pos.UCI(m)
}

func (c *cegoPlayer) move(ctx context.Context, req moveRequest) (moveReply, error) {
	if c.p == nil {
		return moveReply{}, fmt.Errorf("engine %s: not started", c.label)
	}
	if !req.tc.Timed() {
		return moveReply{}, fmt.Errorf("engine %s: CEGO needs a clock (--tc)", c.label)
	}
	var msg string
	if !c.started || req.lastMove == "" {
		pos := req.game.Position()
		msg = fmt.Sprintf("%d %d %d %d %s", int64(req.ourTime), int64(req.ourInc), int64(req.oppTime), int64(req.oppInc), pos.FEN())
		c.started = true
	} else {
		msg = fmt.Sprintf("%d %d %s", int64(req.ourTime), int64(req.oppTime), req.lastMove)
	}
	sent := time.Now()
	if err := c.p.Send(msg); err != nil {
		return moveReply{}, err
	}
	line, err := c.p.ReadLine(ctx, req.deadline)
	r := moveReply{elapsed: time.Since(sent)}
	if err != nil {
		return r, err
	}
	if line == "forfeit" {
		r.forfeit = true
		return r, nil
	}
	r.move = line
	return r, nil
}

func (c *cegoPlayer) endGame() {
	if c.p != nil {
		c.p.Close("", 0)
		c.p = nil
	}
}

func (c *cegoPlayer) usable() bool { return true }
func (c *cegoPlayer) close()       { c.endGame() }
