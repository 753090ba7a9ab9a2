// Package fakelichess is an in-process fake Lichess: an HTTP server on the
// loopback interface that speaks the Bot API's JSON and ndjson (the subset a
// bot uses), with the real rules of chess (engine/board), server-side clocks
// with increment and flag fall, first-move abort timers, keep-alive lines,
// and an opponent that plays, offers draws and takebacks, chats, leaves and
// comes back. It keeps Lichess's limits as lila writes them: the daily
// bot-vs-bot game quota (BotGameQuota: 429 with a "ratelimit" object), the
// opponent's quota (LimitOpponent: 400 with one), form errors as objects of
// field errors, one stream per game (a second closes the first),
// challengeDeclined sent to the declining side too, anonymous challengers
// ("challenger": null), and correspondence games as bot-api.md §13 has
// them: clocks that count down in days per move (a day can be shortened
// for tests, Options.DayLength), a loss on time at 0, no first-move abort,
// nothing on the event stream when the opponent moves, and
// account/playing listing the games to move first. Faults
// can be injected: dropped or silent streams, error statuses (5xx, 429 with
// or without Retry-After, 401, redirects) on chosen paths, and latency.
// Every request is recorded for assertions.
//
// Arenas and Swiss tournaments run on an accelerated clock and pair the bot
// with the built-in opponents (tournament.go).
//
// It serves tests of the lichess client and the bot, and `ponderosa bot
// --sandbox`. It needs no *testing.T:
//
//	srv := fakelichess.New(fakelichess.Options{})
//	defer srv.Close()
//	client := lichess.New(lichess.Options{BaseURL: srv.URL(), Token: srv.Token()})
//	srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute})
//
// JSON shapes follow the official OpenAPI spec (lichess-org/api doc/specs)
// field by field: times in gameState and gameFull.clock are milliseconds,
// challenge time controls and secondsLeft are seconds, the event-stream
// status is an {id, name} object and the game-stream status a bare name.
package fakelichess

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Player is a Lichess user as the fake shows it.
type Player struct {
	ID     string // lowercase id; derived from Name when empty
	Name   string
	Title  string // "BOT" for bots, "" for most humans
	Rating int
}

func (p Player) norm() Player {
	if p.Name == "" {
		p.Name = p.ID
	}
	if p.ID == "" {
		p.ID = strings.ToLower(p.Name)
	}
	if p.Rating == 0 {
		p.Rating = 1500
	}
	return p
}

// Options configure a Server. The zero value works.
type Options struct {
	// Bot is the account the token belongs to (default id "ponderosa",
	// name "Ponderosa", title BOT).
	Bot Player
	// NotBot starts the account without the BOT title, so that
	// UpgradeToBot can be exercised; game streams answer 400 until then.
	NotBot bool
	// Token is the only token accepted (default "lip_fake_token").
	Token string
	// KeepAlive is the keep-alive interval of both streams (default 6 s,
	// as lila schedules it).
	KeepAlive time.Duration
	// FirstMoveTimeout aborts a game whose side to move has not made its
	// first move in time (default 20 s, the bullet value).
	FirstMoveTimeout time.Duration
	// ClaimWinAfter is how long the opponent must be gone before the bot
	// may claim victory (default 10 s).
	ClaimWinAfter time.Duration
	// Opponent chooses the opponent's moves (default CapturesFirst with
	// Seed). ChallengeSpec.Opponent overrides it per game.
	Opponent Opponent
	// OpponentDelay is how long the opponent waits before moving or
	// answering an offer (default 20 ms).
	OpponentDelay time.Duration
	// AcceptDraw and AcceptTakeback decide the opponent's answer to the
	// bot's offers (default: decline).
	AcceptDraw     func(GameInfo) bool
	AcceptTakeback func(GameInfo) bool
	// AnswerChallenge decides the answer to a challenge the bot creates:
	// "" accepts, a decline key ("later", "tooFast", …) declines. Default:
	// accept. AnswerDelay is the wait before answering (default 50 ms).
	AnswerChallenge func(ChallengeInfo) string
	AnswerDelay     time.Duration
	// Teams are the ids of the teams the bot belongs to (for arena team
	// battles).
	Teams []string
	// OnlineBots is the list served by GET /api/bot/online, and the users
	// the bot may challenge (default three bots).
	OnlineBots []Player
	// BotGameQuota, if positive, is how many bot-vs-bot games the bot may
	// start within BotGameQuotaWindow, as lila's BotLimit counts them (100
	// a day on Lichess): once used up, challenging a bot or accepting a
	// bot's challenge answers 429 {"error": ..., "ratelimit": {"key":
	// "bot.vsBot.day", "seconds": N}}; games against humans are not
	// counted nor limited. The window slides: a game stops counting
	// BotGameQuotaWindow after it started (default 24 h).
	BotGameQuota       int
	BotGameQuotaWindow time.Duration
	// MaxRequestsPerMinute, if positive, answers 429 to any request (streams
	// included) beyond that many in the last minute, so that a bot that
	// spams requests notices.
	MaxRequestsPerMinute int
	// LegacyCastling writes castling in standard games as e1g1 in
	// gameState.moves (the old output) instead of king-takes-rook e1h1.
	LegacyCastling bool
	// Seed makes ids, chess960 positions and the default opponent
	// reproducible (0 picks one at random).
	Seed uint64
	// Logger receives the fake's own log lines (nil discards them).
	Logger *slog.Logger
	// Now is the clock of the sliding quota windows (BotGameQuotaWindow,
	// MaxRequestsPerMinute, LimitOpponent), so that tests can move it
	// instead of sleeping (default time.Now). Game clocks and timers run
	// on real time.
	Now func() time.Time
	// DayLength is how long a day of a correspondence game lasts in real
	// time (default 24 h): tests shrink it so that days per move pass in
	// seconds. The correspondence clocks still read in game time (a full
	// day is 86 400 000 ms in gameState, 86 400 in secondsLeft), running
	// 24h/DayLength times faster than real time, and a side whose clock
	// reaches 0 loses on time.
	DayLength time.Duration
}

// Request is one recorded request.
type Request struct {
	Time      time.Time
	Method    string
	Path      string
	Query     url.Values
	Form      url.Values
	UserAgent string
	Authed    bool // carried the right token
	Status    int  // status answered (200 for streams that opened)
}

// Fault makes matching requests fail. Matching: Method ("" any) and Path
// prefix ("" any). Count requests fail (0 means 1); then the fault is spent.
type Fault struct {
	Method string
	Path   string
	Status int    // e.g. 500, 503, 429, 401
	Body   string // default {"error": "<status text>"}; lila's bodies are any JSON (object-valued errors, ratelimit)
	Count  int
	// RetryAfter, if positive, is sent as a Retry-After header (whole
	// seconds, at least 1).
	RetryAfter time.Duration
	// Location, if set, is sent as a Location header (with a 3xx Status:
	// a redirect).
	Location string
}

// Server is the fake Lichess. Create it with New; Close it when done.
type Server struct {
	opts Options
	hs   *httptest.Server
	ctx  context.Context // cancelled by Close; given to Opponent funcs
	stop context.CancelFunc
	wg   sync.WaitGroup // timer callbacks

	mu         sync.Mutex
	closed     bool
	bot        Player
	isBot      bool
	tokenOK    bool
	rng        *rand.Rand
	games      map[string]*game
	order      []string // game ids, creation order
	challenges map[string]*challenge
	chOrder    []string
	eventSub   *sub
	gameSubs   map[string]map[*sub]bool
	subs       map[*sub]bool
	faults     []Fault
	latency    time.Duration
	requests   []Request
	botGames   []time.Time          // starts of bot-vs-bot games, for BotGameQuota
	oppLimited map[string]time.Time // bot id → out of bot games until
	tourneys   map[string]*tourney  // arenas and Swiss tournaments by id
	changed    chan struct{}
}

// New starts a fake Lichess on a loopback port.
func New(opts Options) *Server {
	if opts.Bot.ID == "" && opts.Bot.Name == "" {
		opts.Bot = Player{ID: "ponderosa", Name: "Ponderosa"}
	}
	opts.Bot = opts.Bot.norm()
	opts.Bot.Title = "BOT"
	if opts.Token == "" {
		opts.Token = "lip_fake_token"
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.KeepAlive, 6*time.Second)
	def(&opts.FirstMoveTimeout, 20*time.Second)
	def(&opts.ClaimWinAfter, 10*time.Second)
	def(&opts.OpponentDelay, 20*time.Millisecond)
	def(&opts.AnswerDelay, 50*time.Millisecond)
	def(&opts.BotGameQuotaWindow, 24*time.Hour)
	def(&opts.DayLength, 24*time.Hour)
	if opts.Seed == 0 {
		opts.Seed = rand.Uint64()
	}
	if opts.Opponent == nil {
		opts.Opponent = CapturesFirst(opts.Seed)
	}
	if opts.OnlineBots == nil {
		opts.OnlineBots = []Player{
			{ID: "fakebot1", Name: "FakeBot1", Title: "BOT", Rating: 1800},
			{ID: "fakebot2", Name: "FakeBot2", Title: "BOT", Rating: 2100},
			{ID: "fakebot3", Name: "FakeBot3", Title: "BOT", Rating: 2400},
		}
	}
	for i := range opts.OnlineBots {
		opts.OnlineBots[i] = opts.OnlineBots[i].norm()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		opts: opts, ctx: ctx, stop: cancel,
		bot: opts.Bot, isBot: !opts.NotBot, tokenOK: true,
		rng:        rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x5851f42d4c957f2d)),
		games:      map[string]*game{},
		challenges: map[string]*challenge{},
		gameSubs:   map[string]map[*sub]bool{},
		subs:       map[*sub]bool{},
		oppLimited: map[string]time.Time{},
		changed:    make(chan struct{}),
	}
	s.hs = httptest.NewServer(s.routes())
	return s
}

// URL is the base URL to give the client.
func (s *Server) URL() string { return s.hs.URL }

// Token is the token the fake accepts.
func (s *Server) Token() string { return s.opts.Token }

// Bot is the bot account.
func (s *Server) Bot() Player { return s.bot }

// Close ends every stream and timer and shuts the server down.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.stop()
	for _, g := range s.games {
		g.stopTimers(s)
	}
	for _, c := range s.challenges {
		s.cancelTimer(&c.answer)
	}
	for _, t := range s.tourneys {
		s.cancelTimer(&t.pairT)
		s.cancelTimer(&t.clockT)
	}
	for sb := range s.subs {
		sb.kick()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// after schedules f on a timer tracked by Close. Call with s.mu held.
func (s *Server) after(d time.Duration, f func()) *time.Timer {
	if s.closed {
		return nil
	}
	s.wg.Add(1)
	return time.AfterFunc(d, func() {
		defer s.wg.Done()
		f()
	})
}

// cancelTimer stops *t if pending. Call with s.mu held.
func (s *Server) cancelTimer(t **time.Timer) {
	if *t != nil && (*t).Stop() {
		s.wg.Done()
	}
	*t = nil
}

// notify wakes WaitUntil callers. Call with s.mu held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// WaitUntil blocks until cond returns true (it is re-checked after every
// state change of the server) or ctx ends. cond may call the Server's
// methods.
func (s *Server) WaitUntil(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// InjectFault queues a fault; faults are tried in order.
func (s *Server) InjectFault(f Fault) {
	if f.Count <= 0 {
		f.Count = 1
	}
	s.mu.Lock()
	s.faults = append(s.faults, f)
	s.mu.Unlock()
}

// ClearFaults drops the faults not yet used up.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// SetLatency delays every request by d before it is handled.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	s.latency = d
	s.mu.Unlock()
}

// SetTokenValid makes the token valid or revoked (401 for everything).
func (s *Server) SetTokenValid(ok bool) {
	s.mu.Lock()
	s.tokenOK = ok
	s.mu.Unlock()
}

// DropStreams cuts every open stream abruptly, as a network failure would
// (the client sees an unexpected EOF mid-stream).
func (s *Server) DropStreams() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sb := range s.subs {
		sb.drop()
	}
}

// StallStreams makes every open stream go silent, keep-alives included,
// while the connection stays open: only the client's idle watchdog can
// notice.
func (s *Server) StallStreams() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sb := range s.subs {
		sb.stall()
	}
}

// EventStreamOpen reports whether an event stream is connected.
func (s *Server) EventStreamOpen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.eventSub != nil
}

// GameStreams returns how many game streams are open for a game.
func (s *Server) GameStreams(gameID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.gameSubs[gameID])
}

// Requests returns a copy of every request so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// CountRequests counts recorded requests with the method ("" any) and path
// prefix.
func (s *Server) CountRequests(method, pathPrefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if (method == "" || r.Method == method) && strings.HasPrefix(r.Path, pathPrefix) {
			n++
		}
	}
	return n
}

// newID returns a random alphanumeric id. Call with s.mu held.
func (s *Server) newID(n int) string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[s.rng.IntN(len(alnum))]
	}
	return string(b)
}

// --- HTTP plumbing ---

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/account", s.handleAccount)
	mux.HandleFunc("POST /api/bot/account/upgrade", s.handleUpgrade)
	mux.HandleFunc("POST /api/token/test", s.handleTokenTest)
	mux.HandleFunc("GET /api/account/playing", s.handlePlaying)
	mux.HandleFunc("GET /api/bot/online", s.handleOnline)
	mux.HandleFunc("GET /api/stream/event", s.handleEventStream)
	mux.HandleFunc("GET /api/bot/game/stream/{id}", s.handleGameStream)
	mux.HandleFunc("POST /api/bot/game/{id}/move/{move}", s.handleMove)
	mux.HandleFunc("POST /api/bot/game/{id}/chat", s.handleChat)
	mux.HandleFunc("POST /api/bot/game/{id}/abort", s.handleAbort)
	mux.HandleFunc("POST /api/bot/game/{id}/resign", s.handleResign)
	mux.HandleFunc("POST /api/bot/game/{id}/draw/{accept}", s.handleDraw)
	mux.HandleFunc("POST /api/bot/game/{id}/takeback/{accept}", s.handleTakeback)
	mux.HandleFunc("POST /api/bot/game/{id}/claim-victory", s.handleClaim)
	mux.HandleFunc("POST /api/bot/game/{id}/claim-draw", s.handleClaim)
	mux.HandleFunc("GET /api/challenge", s.handleListChallenges)
	mux.HandleFunc("POST /api/challenge/{id}/accept", s.handleAccept)
	mux.HandleFunc("POST /api/challenge/{id}/decline", s.handleDecline)
	mux.HandleFunc("POST /api/challenge/{id}/cancel", s.handleCancel)
	mux.HandleFunc("POST /api/challenge/{user}", s.handleCreateChallenge)
	mux.HandleFunc("GET /api/tournament/{id}", s.handleArena)
	mux.HandleFunc("POST /api/tournament/{id}/join", s.handleTourneyJoin("arena"))
	mux.HandleFunc("POST /api/tournament/{id}/withdraw", s.handleTourneyWithdraw("arena"))
	mux.HandleFunc("GET /api/swiss/{id}", s.handleSwiss)
	mux.HandleFunc("POST /api/swiss/{id}/join", s.handleTourneyJoin("swiss"))
	mux.HandleFunc("POST /api/swiss/{id}/withdraw", s.handleTourneyWithdraw("swiss"))
	return s.middleware(mux)
}

// --- account ---

// errClosed is returned by helpers once the server is closed.
var errClosed = errors.New("fakelichess: server closed")
