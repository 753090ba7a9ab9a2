// Package client drives engine processes over UCI or xboard (CECP v2):
// the GUI side of the protocols whose engine side package uci implements.
// It speaks wire strings (FEN, long algebraic moves) and leaves the chess
// to its caller. Processes run through uci/proc: in their own process
// group, with output limits, killed as a group.
//
// One Engine is one process. Every fault — the process exits, floods its
// output, misses a handshake or a stop deadline, answers with a malformed
// bestmove — ends the Engine: its searches and later calls return the
// error (errors.Is one of the Err values below), and the process is killed.
// The caller starts a new Engine to go on.
package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/uci/proc"
)

// Errors that classify an engine fault (test them with errors.Is).
var (
	// ErrExited: the process ended.
	ErrExited = proc.ErrExited
	// ErrFlood: the process wrote a line or lines beyond the limits.
	ErrFlood = proc.ErrFlood
	// ErrHandshake: no uciok/readyok (xboard: feature done/pong) in time.
	ErrHandshake = errors.New("engine did not answer the handshake in time")
	// ErrHang: no bestmove within the stop grace after stop.
	ErrHang = errors.New("engine did not answer stop in time")
	// ErrBadMove: the engine's move is malformed or missing.
	ErrBadMove = errors.New("engine sent a malformed move")
	// ErrDown: the search did not run, the engine having ended before
	// (the error also wraps that earlier fault).
	ErrDown = errors.New("engine down after an earlier fault")
	// ErrUnsupported: the engine cannot do what was asked (an option it
	// does not announce, a variant it does not play).
	ErrUnsupported = errors.New("engine does not support this")
)

// Protocol is the protocol an engine speaks.
type Protocol string

// The protocols.
const (
	UCI    Protocol = "uci"
	XBoard Protocol = "xboard"
)

// DefaultMaxLinesPerSecond is the output rate above which an engine is
// taken for a runaway and killed (ErrFlood), unless Spec sets another.
const DefaultMaxLinesPerSecond = 10000

// Spec says how to run and set up an engine.
type Spec struct {
	// Argv is the program and its arguments, run without a shell.
	Argv []string
	// Dir is the working directory (network files, books); empty = ours.
	Dir string
	// Protocol is UCI (default) or XBoard.
	Protocol Protocol
	// Options are set after the handshake, in order. Each name must be
	// one the engine announces (case-insensitive); for xboard, Hash and
	// Threads map to memory and cores when the engine supports them.
	Options []Option
	// Ponder, when the engine announces a Ponder option (UCI), sets it so
	// that the engine plans for ponder searches.
	Ponder bool
	// OwnOverhead says the caller takes the move overhead off the clocks
	// it sends: an announced "Move Overhead" option is set to its minimum,
	// so that the overhead is not counted twice.
	OwnOverhead bool
	// HandshakeTimeout bounds uciok and each readyok (default 15 s, which
	// leaves Lc0 time to load its network).
	HandshakeTimeout time.Duration
	// StopGrace is how long a search may take to answer stop (default
	// 500 ms); past it the engine is killed (ErrHang).
	StopGrace time.Duration
	// MaxLinesPerSecond bounds the output rate (default
	// DefaultMaxLinesPerSecond). Engines print tens of lines a second while
	// they search, but in bursts far more: Stockfish prints a line for every
	// depth up to 245 once it has found a mate, each search, and several
	// quick searches (pondering, a bullet clock) put over 1,000 lines into
	// one second. Only a runaway engine goes beyond the default.
	MaxLinesPerSecond int
	// Log, if set, sees every line sent (">") and received ("<").
	Log func(dir, line string)
}

// Option is a Name=Value engine option.
type Option struct{ Name, Value string }

// ParseOptions reads "Name=Value,Name=Value". Names may contain spaces;
// values may not contain commas.
func ParseOptions(s string) ([]Option, error) {
	var out []Option
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			return nil, fmt.Errorf("engine option %q: want Name=Value", part)
		}
		if strings.EqualFold(name, "Move Overhead") || strings.EqualFold(name, "MoveOverhead") {
			return nil, fmt.Errorf("engine option %q: the bot keeps its own learned move overhead", name)
		}
		out = append(out, Option{name, value})
	}
	return out, nil
}

// OptionInfo is an option as the engine announces it.
type OptionInfo struct {
	Name, Type, Default string
	Min, Max            int
	HasRange            bool
	Vars                []string
}

// Opponent describes the other player, for UCI_Opponent (xboard: name,
// computer, rating).
type Opponent struct {
	Title    string // "" = none
	Rating   int    // 0 = unknown
	Computer bool
	Name     string
}

// NewGame is what an engine is told at the start of a game.
type NewGame struct {
	// FEN is the game's start position ("" = the standard start).
	FEN      string
	Chess960 bool
	// Base and Inc are the game's clock (zero when untimed).
	Base, Inc time.Duration
	Opponent  *Opponent // nil = unknown
	// RatingAdv is our rating minus the opponent's (UCI_RatingAdv); only
	// sent when HasRatingAdv.
	RatingAdv    int
	HasRatingAdv bool
	// OurRating is our rating (xboard "rating"), 0 = unknown.
	OurRating int
}

// Position is a position to search: the start FEN ("" = the standard
// start) and the moves played from it, in long algebraic notation
// (king-takes-rook castling when Chess960 is on).
type Position struct {
	FEN   string
	Moves []string
}

// Limits are a search's limits, as in UCI "go". Zero means none.
type Limits struct {
	WTime, BTime, WInc, BInc time.Duration
	MovesToGo                int
	MoveTime                 time.Duration
	Depth                    int
	Nodes                    uint64
	Ponder, Infinite         bool
}

// Bound says whether a score is exact or a bound.
type Bound int

// Bounds.
const (
	Exact Bound = iota
	Lower
	Upper
)

// Info is one progress report.
type Info struct {
	Depth, SelDepth, MultiPV int
	HasScore                 bool
	CP                       int // centipawns from the mover's view
	Mate                     int // signed moves to mate; 0 = not a mate score
	Bound                    Bound
	Nodes, NPS               uint64
	Time                     time.Duration
	HashFull                 int
	PV                       []string
	CurrMove                 string
	CurrMoveNumber           int
	String                   string // "info string ..."
}

// BestMove is a search's answer.
type BestMove struct {
	Move, Ponder string
	// Last is the last scored principal-variation report (MultiPV 1, not
	// a bound), if any.
	Last    Info
	HasLast bool
	// GoSent and Read are when the search command was written and the
	// answer read.
	GoSent, Read time.Time
}

// Engine is one engine process, ready to search.
type Engine struct {
	spec Spec
	p    *proc.Process
	drv  driver
	id   string
	opts []OptionInfo

	mu   sync.Mutex
	last *Search // the latest search; the next waits for it
	err  error   // set once the engine is broken
}

// driver is the protocol-specific part.
type driver interface {
	handshake(ctx context.Context, e *Engine) error
	setOption(e *Engine, o Option) error
	sync(ctx context.Context, e *Engine) error
	newGame(ctx context.Context, e *Engine, g NewGame) error
	canPonder(e *Engine) bool
	// search runs s to its answer; it is called on s's goroutine.
	search(e *Engine, s *Search) (BestMove, error)
}

// Start runs the engine, does the handshake and sets the options.
func Start(ctx context.Context, spec Spec) (*Engine, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("empty engine command")
	}
	if spec.HandshakeTimeout <= 0 {
		spec.HandshakeTimeout = 15 * time.Second
	}
	if spec.StopGrace <= 0 {
		spec.StopGrace = 500 * time.Millisecond
	}
	if spec.MaxLinesPerSecond <= 0 {
		spec.MaxLinesPerSecond = DefaultMaxLinesPerSecond
	}
	var drv driver
	switch spec.Protocol {
	case UCI, "":
		drv = &uciDriver{}
	case XBoard:
		drv = &xboardDriver{}
	default:
		return nil, fmt.Errorf("engine protocol %q: want uci or xboard", spec.Protocol)
	}
	p, err := proc.Start(ctx, proc.Config{Argv: spec.Argv, Dir: spec.Dir, Log: spec.Log,
		MaxLineBytes: 64 << 10, MaxLinesPerSecond: spec.MaxLinesPerSecond})
	if err != nil {
		return nil, err
	}
	e := &Engine{spec: spec, p: p, drv: drv, id: spec.Argv[0]}
	if err := e.setup(ctx); err != nil {
		p.Close("", 0) // killed and waited for: nothing is left behind
		return nil, e.describe(err)
	}
	return e, nil
}

func (e *Engine) setup(ctx context.Context) error {
	if err := e.drv.handshake(ctx, e); err != nil {
		return err
	}
	if e.spec.OwnOverhead {
		for _, o := range e.opts {
			if (strings.EqualFold(o.Name, "Move Overhead") || strings.EqualFold(o.Name, "MoveOverhead")) && o.Type == "spin" {
				if err := e.drv.setOption(e, Option{o.Name, strconv.Itoa(max(o.Min, 0))}); err != nil {
					return err
				}
			}
		}
	}
	for _, o := range e.spec.Options {
		if err := e.drv.setOption(e, o); err != nil {
			return err
		}
	}
	return e.drv.sync(ctx, e)
}

// describe adds the last lines of standard error to a start-up error
// (an exit error from the process layer carries them already).
func (e *Engine) describe(err error) error {
	if errors.Is(err, ErrExited) || errors.Is(err, ErrFlood) {
		return err
	}
	if st := e.p.Stderr(); len(st) > 0 {
		return fmt.Errorf("%w; stderr: %s", err, strings.Join(st, " | "))
	}
	return err
}

// ID is the engine's name ("id name" or xboard myname), else its program.
func (e *Engine) ID() string { return e.id }

// Options lists the options the engine announced.
func (e *Engine) Options() []OptionInfo { return e.opts }

// HasOption reports whether the engine announced the option.
func (e *Engine) HasOption(name string) bool { _, ok := e.option(name); return ok }

func (e *Engine) option(name string) (OptionInfo, bool) {
	for _, o := range e.opts {
		if strings.EqualFold(o.Name, name) {
			return o, true
		}
	}
	return OptionInfo{}, false
}

// CanPonder reports whether the engine takes "go ponder" searches.
func (e *Engine) CanPonder() bool { return e.drv.canPonder(e) }

// Err returns the fault that ended the engine, or nil.
func (e *Engine) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// NewGame tells the engine a new game starts. It waits for a search in
// progress to end first (stop it before).
func (e *Engine) NewGame(ctx context.Context, g NewGame) error {
	if err := e.waitLast(); err != nil {
		return err
	}
	if err := e.drv.newGame(ctx, e, g); err != nil {
		if !errors.Is(err, ErrUnsupported) {
			e.kill(err)
		}
		return err
	}
	return nil
}

// waitLast waits for the latest search and returns the engine's fault.
func (e *Engine) waitLast() error {
	e.mu.Lock()
	last := e.last
	e.mu.Unlock()
	if last != nil {
		<-last.done
	}
	return e.Err()
}

// kill records the fault (the first one wins) and kills the process.
func (e *Engine) kill(err error) {
	e.mu.Lock()
	if e.err == nil {
		e.err = err
	}
	e.mu.Unlock()
	e.p.Kill()
}

// Close ends the engine: quit, then the process group is killed if it has
// not exited within a second. It waits for the search in progress.
func (e *Engine) Close() {
	e.mu.Lock()
	last := e.last
	if e.err == nil {
		e.err = errors.New("engine closed")
	}
	e.mu.Unlock()
	if last != nil {
		last.Stop()
	}
	e.p.Close("quit", time.Second)
	if last != nil {
		<-last.done
	}
}

// Search is a search in progress.
type Search struct {
	ctx  context.Context
	pos  Position
	lim  Limits
	info func(Info)

	mu      sync.Mutex
	signals chan struct{} // one token: a stop or ponderhit is pending
	hit     bool
	stop    bool
	done    chan struct{}
	res     BestMove
	err     error
}

// Go starts a search and returns at once. The search begins when the
// previous one has answered (a stopped search still answers, exactly one
// bestmove per go). Cancelling ctx stops the search as Stop does. info, if
// not nil, is called on the search's goroutine for every report.
func (e *Engine) Go(ctx context.Context, pos Position, lim Limits, info func(Info)) *Search {
	s := &Search{ctx: ctx, pos: pos, lim: lim, info: info, signals: make(chan struct{}, 1), done: make(chan struct{})}
	e.mu.Lock()
	prev := e.last
	e.last = s
	e.mu.Unlock()
	go func() {
		defer close(s.done)
		if prev != nil {
			<-prev.done
		}
		if err := e.Err(); err != nil {
			s.err = fmt.Errorf("%w: %w", ErrDown, err)
			return
		}
		res, err := e.drv.search(e, s)
		if err != nil {
			e.kill(err)
			s.err = err
			return
		}
		s.res = res
	}()
	return s
}

// PonderHit turns a ponder search into a normal one, whenever it is called.
func (s *Search) PonderHit() {
	s.mu.Lock()
	s.hit = true
	s.mu.Unlock()
	s.signal()
}

// Stop asks the search to answer now.
func (s *Search) Stop() {
	s.mu.Lock()
	s.stop = true
	s.mu.Unlock()
	s.signal()
}

func (s *Search) signal() {
	select {
	case s.signals <- struct{}{}:
	default:
	}
}

// pending reads the stop and hit requests so far.
func (s *Search) pending() (hit, stop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hit, s.stop
}

// Done is closed when the search has answered or failed.
func (s *Search) Done() <-chan struct{} { return s.done }

// Wait returns the answer, or the fault that ended the engine.
func (s *Search) Wait() (BestMove, error) {
	<-s.done
	return s.res, s.err
}

// validMove checks the long algebraic shape of a move: from and to
// squares and an optional promotion piece.
func validMove(m string) bool {
	if len(m) != 4 && len(m) != 5 {
		return false
	}
	for i := 0; i < 4; i += 2 {
		if m[i] < 'a' || m[i] > 'h' || m[i+1] < '1' || m[i+1] > '8' {
			return false
		}
	}
	return len(m) == 4 || strings.IndexByte("qrbnQRBN", m[4]) >= 0
}
