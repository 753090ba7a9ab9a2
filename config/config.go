// Package config turns environment variables into a validated Config for the
// bot service.
//
// Load reads every setting through a getenv function (os.Getenv in
// production, a map in tests), applies the documented default to unset or
// empty variables, and validates everything at once: the returned error joins
// one line per bad setting, each starting with the variable's name. Loading
// a .env file is the caller's job (cmd does it with godotenv, which never
// overrides variables already set in the environment). Settings lists every
// variable with its default and documentation, for the README and
// .env.example.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/uci/client"
)

// Config is the validated configuration of the bot service.
type Config struct {
	// Token is the Lichess API token (LICHESS_TOKEN). It may be empty for
	// the sandbox; RequireToken checks it for a real run.
	Token Secret
	// URL is the Lichess base URL without a trailing slash (LICHESS_URL).
	URL string

	Engine      Engine
	Policy      Policy
	Game        Game
	Chat        Chat
	Matchmaking Matchmaking
	Sources     Sources
	// Tournaments are joined at start and withdrawn from at shutdown
	// (PONDEROSA_TOURNAMENTS, plus `bot --join`).
	Tournaments []Tournament

	// PGNDir is the folder for one PGN file per finished game; empty = off.
	PGNDir string
	// DataDir holds the bot's memory across restarts (ponderosa.db); empty
	// = in memory only. HistoryDays is how long games are kept there.
	DataDir     string
	HistoryDays int
	// LogFormat is "text" or "json"; LogLevel the minimum level logged.
	LogFormat string
	LogLevel  slog.Level
	// StatusAddr is the host:port of the status/metrics HTTP endpoint;
	// empty = off.
	StatusAddr string
	// StatusUser and StatusPasswordFile turn on basic auth for the status
	// endpoint (both or neither); the file's first line is the password.
	StatusUser, StatusPasswordFile string
	// Shutdown says what happens to running games on SIGTERM/SIGINT.
	Shutdown Shutdown
}

// Engine holds the engine settings.
type Engine struct {
	// HashMB is the transposition table size of each game's engine.
	HashMB int
	// Threads is the total number of search threads shared by all games;
	// 0 means one per CPU.
	Threads int
	// MoveOverhead is the starting estimate of the time lost per move
	// between the server's clock and our search (network, posting); the bot
	// raises it from measured latency.
	MoveOverhead time.Duration
	// Ponder lets the engine think on the opponent's time.
	Ponder bool
	// CorrespondenceMoveTime is the think time per move in correspondence
	// and unlimited games.
	CorrespondenceMoveTime time.Duration
	// Book is the path of a Polyglot opening book (PONDEROSA_BOOK); empty
	// = none. It is used in standard games for the first BookMaxPly plies,
	// after the books of Books (see BookList).
	Book       string
	BookMaxPly int
	// Books are the books of PONDEROSA_BOOKS, in order; a MaxPly of 0
	// there means BookMaxPly.
	Books []Book
	// BookSeed seeds the books' random choices when BookSeedFixed is set
	// (PONDEROSA_BOOK_SEED); otherwise the bot draws a seed at start.
	BookSeed      uint64
	BookSeedFixed bool
	// Command is the external engine's program and arguments; nil means
	// the embedded engine.
	Command []string
	// Protocol is the external engine's protocol: "uci" or "xboard".
	Protocol string
	// Options are the external engine's options, set in order at start.
	Options []client.Option
	// Dir is the external engine's working directory; empty = ours.
	Dir string
}

// Policy is the challenge policy.
type Policy struct {
	// Variants accepted: a subset of standard, chess960, fromPosition.
	Variants []string
	// Speeds accepted among the real-time speeds (ultraBullet, bullet,
	// blitz, rapid, classical).
	Speeds []string
	// Bounds on the initial clock and the increment of real-time games.
	MinBase, MaxBase, MinIncrement, MaxIncrement time.Duration
	// Rated and Casual say which modes are accepted.
	Rated, Casual bool
	// Bots and Humans say which challengers are accepted.
	Bots, Humans bool
	// Anonymous says whether challenges from players who are not logged in
	// (humans without an account) are accepted.
	Anonymous bool
	// Allow, when not empty, is the only challengers accepted; Block is
	// never accepted. Lowercase Lichess ids.
	Allow, Block []string
	// MaxGames is the maximum number of games played at once.
	MaxGames int
	// QueueSize is how many acceptable challenges are kept waiting while
	// all game slots are busy; more are declined with "later".
	QueueSize int
	// Correspondence and Unlimited enable those time controls.
	Correspondence, Unlimited bool
	// MinDays and MaxDays bound the days per move of correspondence
	// challenges (tooFast below, tooSlow above).
	MinDays, MaxDays int
	// MaxCorrespondence is how many correspondence and unlimited games
	// may be in progress at once; they take none of the MaxGames slots.
	MaxCorrespondence int
	// MaxRematches is how many rematches in a row the bot accepts from one
	// opponent; the next is declined with "later" (0 = none).
	MaxRematches int
	// AllowURLs and BlockURLs are lists of usernames (one a line) fetched
	// at start and every ListRefresh; a failed refresh keeps the last good
	// list. They add to Allow and Block.
	AllowURLs, BlockURLs []string
	ListRefresh          time.Duration
	// MaxPerOpponentDay and MaxInARow cap the games against one opponent
	// in the last 24 hours and in a row, finished or being played (0 = no
	// cap); challenges past a cap are declined with "later".
	MaxPerOpponentDay, MaxInARow int
	// MaxBotGames, if positive, is how many of the MaxGames slots bots may
	// take at once (games resumed at start and matchmaking's count); the
	// others are kept for humans.
	MaxBotGames int
	// RatingBounds maps a speed to the challenger ratings accepted in it
	// (inclusive; 0 = unbounded on that side).
	RatingBounds map[string]RatingRange
	// BotBulletIncrement declines bullet and UltraBullet challenges from
	// bots without an increment.
	BotBulletIncrement bool
}

// RatingRange is an inclusive range of ratings; a zero bound is open.
type RatingRange struct{ Min, Max int }

// Game holds the in-game behaviour: draws, resignation, takebacks, aborts.
type Game struct {
	// AcceptDraws enables accepting draw offers when the score has stayed
	// within DrawScore centipawns of zero for DrawMoves of our moves, from
	// move DrawMinMove on.
	AcceptDraws bool
	DrawScore   int
	DrawMoves   int
	DrawMinMove int
	// Resign enables resigning when the score has stayed at or below
	// -ResignScore centipawns for ResignMoves of our moves.
	Resign      bool
	ResignScore int
	ResignMoves int
	// Takebacks accepts the opponent's takeback requests.
	Takebacks bool
	// AbortAfter is how long the bot waits for an opponent's first move
	// before aborting the game (when Lichess still allows it).
	AbortAfter time.Duration
	// ClaimVictory claims the win when the opponent has left the game (a
	// draw instead when we lack the material to mate).
	ClaimVictory bool
	// OfferDraws offers a draw with our move under the rule that accepts
	// one (DrawScore, DrawMoves, DrawMinMove), at most once every
	// DrawOfferEvery of our moves.
	OfferDraws     bool
	DrawOfferEvery int
	// CorrespondenceCheckin is how often the bot lists its games
	// (account/playing) and plays the correspondence games where it is to
	// move.
	CorrespondenceCheckin time.Duration
	// CorrespondenceDisconnect is how long a correspondence game's stream
	// stays open after our move, for a quick reply, before it is closed.
	CorrespondenceDisconnect time.Duration
}

// Chat holds the chat messages. An empty message is not sent. Messages may
// contain {me} and {opponent}.
type Chat struct {
	Greeting, GreetingSpectator string
	Goodbye, GoodbyeSpectator   string
	// Commands enables !help, !eval and !name in the chat.
	Commands bool
	// CommandCooldown is the least time between two command replies in one
	// game and room; commands that arrive sooner get no reply.
	CommandCooldown time.Duration
	// EvalToOpponent lets !eval answer in the player room, telling the
	// opponent our evaluation; otherwise only spectators get it.
	EvalToOpponent bool
}

// Matchmaking holds the settings of challenging online bots when idle.
type Matchmaking struct {
	Enabled bool
	// Idle is how long the bot must have been without games, challenges
	// or a queue before it sends a challenge.
	Idle time.Duration
	// TimeControls are picked at random for each challenge, as often as
	// their weights say; those with Days are correspondence.
	TimeControls []TimeControl
	// Variants are picked at random for each challenge, as often as their
	// weights say (standard, chess960).
	Variants []VariantWeight
	// Rated and Casual are the modes challenges are sent in (at least one;
	// both: either, half and half).
	Rated, Casual bool
	// MaxRatingDiff bounds the distance between the opponent's rating and
	// ours in that speed; 0 = any.
	MaxRatingDiff int
}

// TimeControl is a real-time clock (initial time plus increment per move)
// or, with Days, a correspondence game's days per move.
type TimeControl struct {
	Base, Increment time.Duration
	Days            int
	// Weight is how often matchmaking picks it, relative to the others
	// (1 to 100; "3+2*4" in the setting).
	Weight int
}

// String writes the time control the Lichess way: minutes+seconds, "3+2",
// or days per move, "2d".
func (tc TimeControl) String() string {
	if tc.Days > 0 {
		return strconv.Itoa(tc.Days) + "d"
	}
	return strconv.FormatFloat(tc.Base.Minutes(), 'f', -1, 64) + "+" + strconv.Itoa(int(tc.Increment/time.Second))
}

// Estimate is the time control's expected length per player, the way
// Lichess ranks speeds (lichess.EstimatedDuration), or the days per move.
func (tc TimeControl) Estimate() time.Duration {
	if tc.Days > 0 {
		return time.Duration(tc.Days) * 24 * time.Hour
	}
	return lichess.EstimatedDuration(tc.Base, tc.Increment)
}

// VariantWeight is a matchmaking variant and how often it is picked,
// relative to the others (1 to 100).
type VariantWeight struct {
	Variant string
	Weight  int
}

// ShutdownMode says what the bot does with running games when it stops.
type ShutdownMode string

// Shutdown modes.
const (
	// ShutdownWait stops accepting challenges and waits for the running
	// games to end, up to Shutdown.DrainTimeout, then leaves the rest.
	ShutdownWait ShutdownMode = "wait"
	// ShutdownLeave finishes the move in progress and exits; the next start
	// resumes the games.
	ShutdownLeave ShutdownMode = "leave"
)

// Shutdown is the graceful shutdown policy.
type Shutdown struct {
	Mode         ShutdownMode
	DrainTimeout time.Duration
}

// RequireToken reports an error naming LICHESS_TOKEN when it is missing.
func (c *Config) RequireToken() error {
	if c.Token.IsZero() {
		return errors.New("LICHESS_TOKEN: required (create a token with the bot:play scope at https://lichess.org/account/oauth/token)")
	}
	return nil
}

// Load reads and validates every setting. getenv returns "" for an unset
// variable; unset and empty both mean "use the default". The error, if any,
// joins one error per invalid setting, each starting with its name.
func Load(getenv func(string) string) (Config, error) {
	var c Config
	var errs []error
	for i := range settings {
		s := &settings[i]
		v := getenv(s.Name)
		if v == "" {
			v = s.Default
		}
		if err := s.set(&c, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w, got %q", s.Name, err, clip(s, v)))
		}
	}
	errs = append(errs, c.crossCheck()...)
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// clip shortens a bad value for the error message and hides secrets.
func clip(s *setting, v string) string {
	if s.secret {
		return redacted
	}
	const max = 60
	if len(v) > max {
		return v[:max] + "…"
	}
	return v
}

// crossCheck validates relations between settings.
func (c *Config) crossCheck() []error {
	var errs []error
	p := &c.Policy
	if p.MinBase > p.MaxBase {
		errs = append(errs, fmt.Errorf("PONDEROSA_MIN_BASE: must not exceed PONDEROSA_MAX_BASE (%v > %v)", p.MinBase, p.MaxBase))
	}
	if p.MinIncrement > p.MaxIncrement {
		errs = append(errs, fmt.Errorf("PONDEROSA_MIN_INCREMENT: must not exceed PONDEROSA_MAX_INCREMENT (%v > %v)", p.MinIncrement, p.MaxIncrement))
	}
	for _, tc := range c.Matchmaking.TimeControls {
		if tc.Days > 0 && !p.Correspondence {
			errs = append(errs, fmt.Errorf("PONDEROSA_MATCHMAKING_TIME_CONTROLS: %s is correspondence, which needs PONDEROSA_CORRESPONDENCE=true", tc))
			break
		}
	}
	if p.MinDays > p.MaxDays {
		errs = append(errs, fmt.Errorf("PONDEROSA_MIN_DAYS: must not exceed PONDEROSA_MAX_DAYS (%d > %d)", p.MinDays, p.MaxDays))
	}
	if !p.Rated && !p.Casual {
		errs = append(errs, errors.New("PONDEROSA_ACCEPT_RATED: PONDEROSA_ACCEPT_RATED and PONDEROSA_ACCEPT_CASUAL cannot both be false"))
	}
	if !p.Bots && !p.Humans {
		errs = append(errs, errors.New("PONDEROSA_ACCEPT_BOTS: PONDEROSA_ACCEPT_BOTS and PONDEROSA_ACCEPT_HUMANS cannot both be false"))
	}
	if (c.StatusUser == "") != (c.StatusPasswordFile == "") {
		errs = append(errs, errors.New("PONDEROSA_STATUS_USER: PONDEROSA_STATUS_USER and PONDEROSA_STATUS_PASSWORD_FILE go together: set both or neither"))
	}
	if e := &c.Engine; e.Command == nil && (len(e.Options) > 0 || e.Dir != "" || e.Protocol == "xboard") {
		errs = append(errs, errors.New("PONDEROSA_ENGINE: is builtin, but PONDEROSA_ENGINE_OPTIONS, _DIR or _PROTOCOL are set for an external engine"))
	}
	errs = append(errs, c.checkBookNames()...)
	for _, id := range p.Allow {
		if slices.Contains(p.Block, id) {
			errs = append(errs, fmt.Errorf("PONDEROSA_ALLOW: %q is also in PONDEROSA_BLOCK", id))
		}
	}
	return errs
}

// Sources turns on the move sources besides the engine and the book (see
// bot/movesource): the online tablebase, the cloud evaluation and the
// opening explorer, each with its base URL.
type Sources struct {
	Tablebase    bool
	TablebaseURL string

	Cloud         bool
	CloudURL      string
	CloudMinDepth int

	Explorer         bool
	ExplorerURL      string
	ExplorerDB       string // masters, lichess or player
	ExplorerByScore  bool   // the best score among moves with ExplorerMinGames games, not the most played
	ExplorerMinGames int64
	ExplorerMaxPly   int
	// ExplorerPlayer is the user of the player database ("" = the bot's
	// account); ExplorerSpeeds the speeds of the lichess and player
	// databases (nil = the game's); ExplorerRatings the lichess database's
	// rating groups (nil = all); ExplorerModes the player database's
	// rated/casual (nil = both).
	ExplorerPlayer  string
	ExplorerSpeeds  []string
	ExplorerRatings []int
	ExplorerModes   []string

	ChessDB    bool
	ChessDBURL string
}
