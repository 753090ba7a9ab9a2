// Package bot is the Lichess bot service: it streams the account's events,
// applies the challenge policy, and plays each game in its own goroutine
// with its own engine.
//
// The pure parts — the challenge policy (Decide), clock to search budget,
// the learned move overhead, the draw/resign judge, chat commands and PGN
// records — are plain functions and types tested on their own. Service ties
// them to the Lichess client and the engine; its tests run the real client
// against the fake Lichess server (lichess/fakelichess) over loopback HTTP.
package bot

import (
	"context"
	"errors"
	"fmt"
	"github.com/ponderosa-chess/ponderosa/bot/movesource"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/uci/client"
)

// pendingTimeout is how long an accepted challenge holds a game slot while
// waiting for its gameStart event.
const pendingTimeout = 30 * time.Second

// Options are the parts of a Service that do not come from the config.
type Options struct {
	// Logger receives the structured logs; nil discards them.
	Logger *slog.Logger
	// Version is shown by the !name chat command ("ponderosa v1.2.3").
	Version string
	// OnReady, if set, is called once the account is checked and the event
	// stream is about to open (tests and the sandbox use it).
	OnReady func(me *lichess.User)
	// StatusListener, if set, serves the status endpoint instead of a
	// listener opened on the configured PONDEROSA_STATUS_ADDR (the sandbox
	// uses it); Run closes it.
	StatusListener net.Listener
	// Store is the memory across restarts (bot/store); nil = a fresh
	// in-memory one (nothing survives the process). The caller closes it.
	Store store.Store
}

// Service is the bot. Create it with New and run it with Run.
type Service struct {
	cfg      config.Config
	api      lichessAPI
	log      *slog.Logger
	version  string
	onReady  func(*lichess.User)
	stats    *stats
	pub      *publisher
	statusLn net.Listener
	overhead *overheadLearner
	mem      store.Store
	engines  *enginePool
	// corrEngines are the engines of the open correspondence games
	// (correspondence.go): corrSlots full-size ones when correspondence
	// or unlimited challenges are accepted, else minimal ones.
	corrEngines *enginePool
	spares      *sparePool // external engine processes ready for the next games; nil with the embedded engine
	threads     int
	books       *movesource.Books // nil without a book
	sources     *movesource.Set   // tablebase, cloud eval, explorer; nil when none is on

	me *lichess.User // set by Run before any game starts

	// beforeMove, when set (tests only), runs before each move is posted;
	// it lets a test make one game panic.
	beforeMove func(gameID string, ply int)
	// searchInfo, when set (tests only), receives the engine's reports of
	// every search; it lets a test make a search panic.
	searchInfo func(engine.Info)
	// sourceOptions, when set (tests only), adjusts the move sources'
	// options before Run makes them (the circuit breaker's threshold).
	sourceOptions func(*movesource.Options)

	mu      sync.Mutex
	games   map[string]bool      // running real-time game ids
	corr    corrState            // the correspondence games (correspondence.go)
	pending map[string]time.Time // accepted challenges awaiting gameStart
	queue   []lichess.Challenge  // acceptable challenges waiting for a slot
	wake    chan struct{}        // a game ended: look at the queue
	// rematches are the games accepted from players (by game id) while
	// one of that player's is not recorded yet, for the rematch cap
	// (rematch.go).
	rematches  map[string]acceptedGame
	rematchSeq int
	// opponents caches opponentTable (memory.go).
	opponents struct {
		mu    sync.Mutex
		key   string
		table []store.Tally
	}
	// lists are the allow and block lists from URLs (userlists.go); nil
	// when none is configured.
	lists *userLists
	// taken are the opponents of the games running, accepted or queued,
	// by id, for PONDEROSA_MAX_BOT_GAMES and the per-opponent caps
	// (fairslots.go). A game's entry goes when its record is stored.
	taken map[string]takenGame

	// activeTourneys are the tournaments that may pair the bot now, and
	// tourneyGames the running tournament games (game id → tournament
	// id), for the slots kept for pairings (tournaments.go).
	activeTourneys []string
	tourneyGames   map[string]string
	tours          *tourneys // nil without tournaments
	// tourneyTiming, when set (tests only), replaces the tournament
	// manager's periods.
	tourneyTiming *tourneyTimings

	mm matchmaker // used by the event loop only
}

// New returns a Service for cfg that talks to Lichess through client.
func New(cfg config.Config, client *lichess.Client, opts Options) *Service {
	return newService(cfg, client, opts)
}

func newService(cfg config.Config, api lichessAPI, opts Options) *Service {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	version := opts.Version
	if version == "" {
		version = "ponderosa"
	}
	threads := cfg.Engine.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0) // the CPUs this process may use (a container's quota), not the machine's
	}
	mem := opts.Store
	if mem == nil {
		mem = store.NewMemory()
	}
	s := &Service{
		cfg: cfg, api: api, log: log, version: version, onReady: opts.OnReady, mem: mem,
		stats: newStats(api.EventStreamState), pub: newPublisher(), statusLn: opts.StatusListener, overhead: newOverheadLearner(cfg.Engine.MoveOverhead),
		engines:     &enginePool{opts: botEngineOptions(cfg.Engine.HashMB), max: cfg.Policy.MaxGames},
		corrEngines: &enginePool{opts: botEngineOptions(cfg.Engine.HashMB), max: corrEngineBudget(cfg, threads)},
		threads:     threads,
		games:       map[string]bool{}, corr: newCorrState(threads), pending: map[string]time.Time{}, wake: make(chan struct{}, 1),
		tourneyGames: map[string]string{},
		mm:           newMatchmaker(cfg.Matchmaking, mem),
	}
	s.stats.memory = mem.Health
	s.stats.correspondence = s.corrStatus
	if len(cfg.Tournaments) > 0 {
		s.tours = newTourneys(s, cfg.Tournaments, defaultTourneyTimings())
	}
	s.overhead.onChange = func(estimate time.Duration, samples []time.Duration) {
		mem.SetOverhead(store.Overhead{Estimate: estimate, Samples: samples, At: time.Now()})
	}
	return s
}

// Snapshot returns the current figures: live games, results, latency.
func (s *Service) Snapshot() Snapshot {
	snap := s.stats.Snapshot()
	snap.Opponents = s.opponentTable()
	return snap
}

// ErrNotBot is returned by Run when the account is not a BOT account.
var ErrNotBot = errors.New("the account is not a BOT account")

// CheckAccount fetches the account and checks that it is a BOT.
func CheckAccount(ctx context.Context, client *lichess.Client) (*lichess.User, error) {
	return checkAccount(ctx, client)
}

func checkAccount(ctx context.Context, api lichessAPI) (*lichess.User, error) {
	me, err := api.Account(ctx)
	if err != nil {
		return nil, fmt.Errorf("checking the account: %w", err)
	}
	if !me.IsBot() {
		return me, fmt.Errorf("%s: %w; upgrade it with 'ponderosa bot --upgrade' (irreversible, and only for an account that has never played a game)", me.Username, ErrNotBot)
	}
	return me, nil
}

// Run plays until ctx is cancelled (SIGTERM/SIGINT), then shuts down as the
// config says: stop accepting challenges, finish the move in progress, and
// either wait for the games to end (up to the drain timeout) or leave them
// for the next start to resume. It returns an error when the account check
// fails or the event stream fails for good.
func (s *Service) Run(ctx context.Context) error {
	if err := checkMemoryBudget(s.cfg.Policy.MaxGames, s.corrEngines.max, s.cfg.Engine.HashMB); err != nil {
		return err
	}
	me, err := checkAccount(ctx, s.api)
	if err != nil {
		return err
	}
	s.me = me
	books, err := s.openBooks()
	if err != nil {
		return err
	}
	defer books.Close()
	s.books = books
	if src := s.cfg.Sources; src.Tablebase || src.Cloud || src.Explorer || src.ChessDB {
		opts := movesource.Options{LichessURL: s.cfg.URL, Token: s.cfg.Token.Reveal(),
			UserAgent: strings.ReplaceAll(s.version, " ", "/"), Logger: s.log, Sources: src}
		if opts.ExplorerPlayer == "" {
			opts.ExplorerPlayer = strings.ToLower(me.Username) // the player database: our own games
		}
		if s.sourceOptions != nil {
			s.sourceOptions(&opts)
		}
		s.sources = movesource.New(opts)
		defer s.sources.Close()
	}
	s.restoreMemory(time.Now())
	defer s.startUserLists(context.WithoutCancel(ctx))()
	if s.cfg.Engine.Command != nil {
		// Nothing is accepted that cannot be played: the engine must start,
		// answer and take its options now. That process is then the spare
		// the first game takes.
		spareCtx, cancelSpares := context.WithCancel(context.WithoutCancel(ctx))
		e, err := s.checkEngine(spareCtx)
		if err != nil {
			cancelSpares()
			return fmt.Errorf("PONDEROSA_ENGINE: %w", err)
		}
		s.log.Info("external engine", "engine", e.ID(), "command", strings.Join(s.cfg.Engine.Command, " "),
			"protocol", s.cfg.Engine.Protocol)
		if err := s.mm.engineCanPlay960(e.HasOption("UCI_Chess960") && s.cfg.Engine.Protocol != "xboard", s.log); err != nil {
			cancelSpares()
			e.Close()
			return err
		}
		s.spares = newSparePool(spareCtx, s.engineSpec(), s.log, e, s.cfg.Policy.MaxGames)
		defer func() {
			cancelSpares()
			s.spares.close()
		}()
	}
	s.log.Info("bot ready", "account", me.Username, "max_games", s.cfg.Policy.MaxGames, "threads", s.threads,
		"hash_mb", s.cfg.Engine.HashMB, "ponder", s.cfg.Engine.Ponder, "shutdown", s.cfg.Shutdown.Mode)

	var status *http.Server
	pubCtx, stopPub := context.WithCancel(context.WithoutCancel(ctx))
	pubDone := make(chan struct{})
	defer func() { stopPub(); <-pubDone }()
	go func() {
		defer close(pubDone)
		s.pub.run(pubCtx, s.liveSnapshot, func(err error) { s.log.Error("status page", "err", err) })
	}()
	if s.cfg.StatusAddr != "" || s.statusLn != nil {
		status, err = s.startStatus(s.statusLn)
		if err != nil {
			return err
		}
	}

	gamesCtx, cancelGames := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelGames()
	leave := make(chan struct{})
	var games sync.WaitGroup
	start := func(id string) { s.startGame(gamesCtx, id, leave, &games) }
	s.mu.Lock()
	s.corr.launch = func(id string) { s.startVisit(gamesCtx, id, leave, &games) }
	s.mu.Unlock()

	// Resume games in progress (the event stream replays them too; the
	// first one to arrive wins). Correspondence games are opened when it
	// is our turn.
	if ongoing, err := s.api.OngoingGames(ctx, checkinPage); err != nil {
		s.log.Warn("cannot list games in progress", "err", err)
	} else {
		for _, g := range ongoing {
			if (g.Compat == nil || g.Compat.Bot) && !isCorrespondence(&g) {
				s.log.Info("resuming game", "game_id", g.GameID)
				s.noteTourneyGame(g.GameID, g.TournamentID)
				start(g.GameID)
			}
		}
		s.corrList(ongoing, true)
	}
	checkinCtx, stopCheckins := context.WithCancel(ctx)
	checkins := make(chan struct{})
	go func() {
		defer close(checkins)
		s.checkinLoop(checkinCtx)
	}()
	if s.onReady != nil {
		s.onReady(me)
	}
	s.stats.count(func(st *stats) { st.running = true })
	s.pub.notify()
	tourCtx, stopTours := context.WithCancel(ctx)
	toursDone := make(chan struct{})
	if s.tours != nil {
		if s.tourneyTiming != nil {
			s.tours.timing = *s.tourneyTiming
		}
		go func() { defer close(toursDone); s.tours.run(tourCtx) }()
	} else {
		close(toursDone)
	}
	loopErr := s.eventLoop(ctx, start)
	s.stats.count(func(st *stats) { st.running = false })
	s.pub.notify()
	stopCheckins()
	<-checkins
	s.mu.Lock()
	s.corr.stopped = true // the open ones finish their move in progress and close
	s.mu.Unlock()

	// Shutdown: first withdraw from the tournaments, so that no new
	// pairing comes while the games drain or after the bot is gone.
	stopTours()
	<-toursDone
	if s.tours != nil {
		s.tours.withdrawAll(context.WithoutCancel(ctx))
	}
	s.declineQueue()
	drained := make(chan struct{})
	go func() { games.Wait(); close(drained) }()
	switch {
	case s.cfg.Shutdown.Mode == config.ShutdownWait && s.activeGames() > 0:
		s.log.Info("waiting for games to end", "games", s.activeGames(), "timeout", s.cfg.Shutdown.DrainTimeout)
		t := time.NewTimer(s.cfg.Shutdown.DrainTimeout)
		select {
		case <-drained:
		case <-t.C:
			s.log.Warn("drain timeout: leaving the remaining games to the next start", "games", s.activeGames())
		}
		t.Stop()
	}
	close(leave) // finish the move in progress, then stop
	select {
	case <-drained:
	case <-time.After(30 * time.Second):
		s.log.Warn("games did not stop in time; cancelling them")
		cancelGames()
		<-drained
	}
	stopPub() // ends the page's event streams, which Shutdown would wait for
	<-pubDone
	if status != nil {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		status.Shutdown(sctx)
		cancel()
	}
	s.log.Info("bot stopped")
	if loopErr != nil && ctx.Err() == nil {
		return loopErr
	}
	return nil
}

// checkEngine starts the external engine with its options; the error
// says what went wrong (path, exit status, standard error).
func (s *Service) checkEngine(ctx context.Context) (*client.Engine, error) {
	e, err := client.Start(ctx, s.engineSpec())
	if err != nil {
		return nil, err
	}
	if err := e.NewGame(ctx, client.NewGame{}); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// eventLoop reads the event stream until ctx ends or it fails for good.
func (s *Service) eventLoop(ctx context.Context, start func(id string)) error {
	events, errc := s.api.WatchEvents(ctx)
	every := 5 * time.Second
	if s.cfg.Matchmaking.Enabled {
		every = min(every, max(s.cfg.Matchmaking.Idle/2, 100*time.Millisecond))
	}
	s.mm.idleSince = time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				err := <-errc
				if err != nil {
					s.log.Error("event stream failed", "err", err)
				}
				return err
			}
			s.onEvent(ctx, ev, start)
		case <-s.wake:
			s.serveQueue(ctx)
		case <-tick.C:
			s.expirePending()
			s.serveQueue(ctx)
			s.matchmake(ctx)
		case <-ctx.Done():
			// Let the stream goroutine end before returning.
			for range events {
			}
			<-errc
			return nil
		}
	}
}

func (s *Service) onEvent(ctx context.Context, ev lichess.Event, start func(id string)) {
	switch e := ev.(type) {
	case *lichess.ChallengeEvent:
		s.onChallenge(ctx, &e.Challenge, e.Compat)
	case *lichess.ChallengeDeclinedEvent:
		s.mm.declined(e.Challenge.ID, e.Challenge.DeclineReasonKey, s.log)
		s.mu.Lock()
		delete(s.pending, e.Challenge.ID)
		s.mu.Unlock()
	case *lichess.ChallengeCanceledEvent:
		s.mm.gone(e.Challenge.ID)
		s.mu.Lock()
		for i, c := range s.queue {
			if c.ID == e.Challenge.ID {
				s.queue = append(s.queue[:i], s.queue[i+1:]...)
				break
			}
		}
		delete(s.pending, e.Challenge.ID)
		s.dropAccepted(e.Challenge.ID) // no game to count
		s.mu.Unlock()
	case *lichess.GameStartEvent:
		g := e.Game
		s.mm.started(g.GameID)
		s.mu.Lock()
		delete(s.pending, g.GameID)
		s.mu.Unlock()
		s.noteTourneyGame(g.GameID, g.TournamentID)
		if g.Compat != nil && !g.Compat.Bot {
			s.log.Warn("game cannot be played with the Bot API", "game_id", g.GameID)
			return
		}
		if isCorrespondence(&g) {
			s.mu.Lock()
			s.corrSeen(g.GameID, g.IsMyTurn)
			s.mu.Unlock()
			s.corrDispatch()
			return
		}
		start(g.GameID)
	case *lichess.GameFinishEvent:
		s.log.Debug("game finish event", "game_id", e.Game.GameID)
		if isCorrespondence(&e.Game) {
			s.mu.Lock()
			s.corrFinished(e.Game.GameID)
			s.mu.Unlock()
			s.corrDispatch()
		}
	}
}

// noteTourneyGame records a tournament game (tid "" records nothing): it
// fills its tournament's reserved slot until it ends.
func (s *Service) noteTourneyGame(gameID, tid string) {
	if tid == "" {
		return
	}
	s.mu.Lock()
	s.tourneyGames[gameID] = tid
	s.mu.Unlock()
}

func (s *Service) activeGames() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.games)
}

// startGame starts a game goroutine unless the game is already running.
func (s *Service) startGame(ctx context.Context, id string, leave <-chan struct{}, wg *sync.WaitGroup) {
	s.mu.Lock()
	if s.games[id] {
		s.mu.Unlock()
		return
	}
	s.games[id] = true
	s.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.games, id)
			delete(s.tourneyGames, id)
			s.mu.Unlock()
			select {
			case s.wake <- struct{}{}:
			default:
			}
		}()
		s.playGame(ctx, id, leave, false)
	}()
}

// playGame runs one game with its engine: one from the pool, or a process
// of the external engine. A panic ends this game only: it is logged, the
// game is resigned, and the engine discarded. A visit (a correspondence
// game, opened for our turn) ends when the game is closed again; over
// says whether the game ended (or cannot be followed) rather than
// being closed or left.
func (s *Service) playGame(ctx context.Context, id string, leave <-chan struct{}, visit bool) (ended bool) {
	var eng Engine
	full := true
	pool := s.engines
	if visit {
		pool = s.corrEngines
	}
	if s.cfg.Engine.Command != nil {
		x := newExternalEngine(s, pool, s.log.With("game_id", id))
		eng, full = x, x.fallbackFull
	} else {
		b := &builtinEngine{svc: s, pool: pool, visit: visit}
		b.eng, b.full = pool.get()
		eng, full = b, b.full
	}
	r := newGameRunner(s, id, eng)
	r.visit = visit
	if !full && !visit {
		r.log.Warn("more games than PONDEROSA_MAX_GAMES at once (resumed, or started elsewhere): this one gets a minimal hash table so that memory stays within the budget",
			"max_games", s.cfg.Policy.MaxGames, "hash_mb", engine.MinHashMB)
	}
	defer s.pub.endGame(id) // after the runner and its searches ended
	defer func() {
		if p := recover(); p != nil {
			stack := debug.Stack()
			if sp, ok := p.(*engine.Panic); ok {
				stack = sp.Stack // where the search panicked, not where it was raised again
			}
			r.log.Error("game crashed; resigning it", "panic", fmt.Sprint(p), "stack", string(stack))
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), actionTimeout)
			if err := s.api.Resign(rctx, id); err != nil {
				r.log.Warn("resign after crash failed", "err", err)
			}
			cancel()
			s.stats.gameEnded(id, nil)
			eng.Close(true) // the engine may be in a bad state: do not reuse it
			ended = true
			return
		}
		if r.phase != over {
			s.stats.gameEnded(id, nil)
		}
		eng.Close(false)
	}()
	if err := r.run(ctx, leave); err != nil {
		r.log.Error("game stopped", "err", err)
		return true
	}
	return r.phase == over
}

// newStatusServer serves the status endpoint with its timeouts set: a
// client that trickles its request, never reads the answer or keeps an idle
// connection open does not hold a connection (and its goroutine) for long.
// The event stream of the live page sets its own deadline per write; no
// ReadTimeout, which would end it (the requests are bodiless GETs, so the
// header timeout bounds the whole read).
func newStatusServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
}
