// Package movesource asks the move sources outside the engine — the online
// tablebase, the cloud evaluation, the opening explorer — for a move. The
// bot starts them together with the engine's search (Set.Lookup) under one
// budget: each lookup's timeout is a small fraction of the clock left, and
// none is made below a minimum clock, so a slow or broken source never
// costs the engine time; the first good answer wins and the bot stops the
// search. A source that failed several times in a row is skipped for a
// while (a circuit breaker). Malformed answers are ignored with a log line.
//
// The Polyglot opening books (Books, books.go) are local files: the bot
// asks them before it starts a search, and a book move is played at once.
package movesource

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// Source names, as !source, the PGN comments, the metrics and the status
// page show them.
const (
	Tablebase = "tablebase"
	Cloud     = "cloud"
	Explorer  = "explorer"
	ChessDB   = "chessdb"
)

// Query is the position a move is wanted for.
type Query struct {
	Pos       board.Position
	Variant   string        // Lichess variant key: standard, chess960, fromPosition, atomic, antichess...
	Speed     string        // bullet, blitz, rapid, classical, correspondence
	Ply       int           // moves played in the game
	GameID    string        // seeds the books' random choices
	Remaining time.Duration // our clock (0: no clock, correspondence or unlimited)
}

// Answer is a source's move.
type Answer struct {
	Move   board.Move
	Source string
	Note   string // what the source said, for !source and the PGN comment
	// Verdict is the tablebase's category for us (lichess.TBWin...);
	// empty from other sources.
	Verdict lichess.TablebaseCategory
	// Eval is the source's evaluation of the position, when it gives one
	// (the cloud); nil otherwise.
	Eval *Eval
}

// Eval is a source's score of the position from White's point of view:
// centipawns, or a mate in Mate moves when Mate is not 0 (negative: Black
// mates), found at Depth.
type Eval struct {
	CP, Mate, Depth int
}

// source is one of the sources.
type source interface {
	name() string
	// lookup answers ok=false when the source has nothing for the position
	// (that is no failure); err is a failure (the breaker counts it).
	lookup(ctx context.Context, q *Query) (a Answer, ok bool, err error)
	// applies reports whether the source can know the position at all.
	applies(q *Query) bool
}

// Options configure a Set.
type Options struct {
	// LichessURL and Token: the token goes to a source only when
	// lichess.SourceToken allows it.
	LichessURL string
	Token      string
	UserAgent  string
	Logger     *slog.Logger

	// Sources says which sources are on, where they are and how they
	// choose (PONDEROSA_TABLEBASE ... PONDEROSA_EXPLORER_MAX_PLY).
	config.Sources

	// Fraction of the clock left a lookup may take (default 1/40), at most
	// MaxTimeout (default 2 s); below MinClock (default 10 s) no lookup is
	// made. Without a clock a lookup gets MaxTimeout.
	Fraction   float64
	MaxTimeout time.Duration
	MinClock   time.Duration
	// BreakAfter failures in a row skip a source for BreakFor (defaults 3
	// and 1 minute).
	BreakAfter int
	BreakFor   time.Duration
}

// Set is the ordered set of sources of one bot. It is safe for concurrent
// use by every game.
type Set struct {
	opts    Options
	log     *slog.Logger
	sources []source // in order: tablebase, cloud, explorer, chessdb
	clients []*lichess.Client

	mu      sync.Mutex
	breaker map[string]*breaker
}

type breaker struct {
	fails int
	until time.Time
}

// New returns the set of the sources opts turns on; nil when none is on.
func New(opts Options) *Set {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Fraction <= 0 {
		opts.Fraction = 1.0 / 40
	}
	if opts.MaxTimeout <= 0 {
		opts.MaxTimeout = 2 * time.Second
	}
	if opts.MinClock <= 0 {
		opts.MinClock = 10 * time.Second
	}
	if opts.BreakAfter <= 0 {
		opts.BreakAfter = 3
	}
	if opts.BreakFor <= 0 {
		opts.BreakFor = time.Minute
	}
	s := &Set{opts: opts, log: opts.Logger, breaker: map[string]*breaker{}}
	client := func(base string) *lichess.Client {
		c := lichess.New(lichess.Options{BaseURL: base, Token: lichess.SourceToken(opts.LichessURL, base, opts.Token),
			UserAgent: opts.UserAgent, Logger: opts.Logger, Retries: -1, CallTimeout: opts.MaxTimeout})
		s.clients = append(s.clients, c)
		return c
	}
	// ChessDB is no Lichess service: it never gets the token, whatever
	// its URL.
	tokenless := func(base string) *lichess.Client {
		c := lichess.New(lichess.Options{BaseURL: base, UserAgent: opts.UserAgent, Logger: opts.Logger, Retries: -1, CallTimeout: opts.MaxTimeout})
		s.clients = append(s.clients, c)
		return c
	}
	if opts.Tablebase {
		s.sources = append(s.sources, &tablebase{c: client(opts.TablebaseURL)})
	}
	if opts.Cloud {
		s.sources = append(s.sources, &cloud{c: client(opts.CloudURL), minDepth: opts.CloudMinDepth})
	}
	if opts.Explorer {
		s.sources = append(s.sources, &explorer{c: client(opts.ExplorerURL), db: opts.ExplorerDB,
			minGames: opts.ExplorerMinGames, maxPly: opts.ExplorerMaxPly, byScore: opts.ExplorerByScore,
			player: opts.ExplorerPlayer, speeds: opts.ExplorerSpeeds, ratings: opts.ExplorerRatings, modes: opts.ExplorerModes})
	}
	if opts.ChessDB {
		s.sources = append(s.sources, &chessDB{c: tokenless(opts.ChessDBURL)})
	}
	if len(s.sources) == 0 {
		return nil
	}
	return s
}

// Close releases the sources' connections.
func (s *Set) Close() {
	if s == nil {
		return
	}
	for _, c := range s.clients {
		c.Close()
	}
}

// Timeout is the budget of a lookup at clock remaining; 0 means no lookup.
func (s *Set) Timeout(remaining time.Duration) time.Duration {
	if remaining <= 0 {
		return s.opts.MaxTimeout
	}
	if remaining < s.opts.MinClock {
		return 0
	}
	return min(s.opts.MaxTimeout, time.Duration(float64(remaining)*s.opts.Fraction))
}

// Lookup asks every applicable source at once and returns the first good
// answer in the set's order of preference among those that answered; ok is
// false when none did within the timeout or ctx ended. It never waits past
// the timeout.
func (s *Set) Lookup(ctx context.Context, q Query) (Answer, bool) {
	if s == nil {
		return Answer{}, false
	}
	d := s.Timeout(q.Remaining)
	if d <= 0 {
		return Answer{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		i  int
		a  Answer
		ok bool
	}
	results := make(chan result, len(s.sources))
	n := 0
	for i, src := range s.sources {
		if !src.applies(&q) || !s.allowed(src.name()) {
			continue
		}
		n++
		go func() {
			a, ok, err := src.lookup(ctx, &q)
			s.record(src.name(), err, ctx)
			if ok && !q.Pos.IsLegal(a.Move) {
				s.log.Warn("move source: illegal move ignored", "source", src.name(), "fen", q.Pos.FEN())
				ok = false
			}
			results <- result{i, a, ok}
		}()
	}
	// The first good answer wins; the goroutines left end with ctx
	// (cancelled on return) and send into the buffered channel.
	for ; n > 0; n-- {
		if r := <-results; r.ok {
			return r.a, true
		}
	}
	return Answer{}, false
}

// allowed reports whether the breaker lets src be asked now.
func (s *Set) allowed(src string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.breaker[src]
	return b == nil || time.Now().After(b.until)
}

// record counts a failure (or clears the count); a lookup cut by the
// caller's context (the engine was faster) is no failure.
func (s *Set) record(src string, err error, ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.breaker[src]
	if b == nil {
		b = &breaker{}
		s.breaker[src] = b
	}
	if err == nil || errors.Is(err, lichess.ErrNotKnown) {
		b.fails = 0
		return
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	b.fails++
	s.log.Warn("move source failed", "source", src, "fails", b.fails, "err", err)
	if b.fails >= s.opts.BreakAfter {
		b.until = time.Now().Add(s.opts.BreakFor)
		b.fails = 0
		s.log.Warn("move source skipped for a while", "source", src, "until", b.until)
	}
}

func parseMove(pos *board.Position, uci string) (board.Move, error) {
	m, err := pos.ParseUCIMove(uci)
	if err != nil {
		return board.NoMove, fmt.Errorf("move %q: %w", uci, err)
	}
	return m, nil
}

func pieces(pos *board.Position) int {
	return (pos.ByColor(board.White) | pos.ByColor(board.Black)).Count()
}

func variantIs(v string, keys ...string) bool {
	for _, k := range keys {
		if strings.EqualFold(v, k) {
			return true
		}
	}
	return false
}

func errorsIsNotKnown(err error) bool { return errors.Is(err, lichess.ErrNotKnown) }
