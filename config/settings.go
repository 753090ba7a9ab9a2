// This file is over 600 lines on purpose: it is the one table of every
// setting (name, default, description, parser), in the order of the README
// table and .env.example, which are generated from it. Splitting the table
// would scatter what an operator reads as one list.

package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/uci/client"
	"github.com/ponderosa-chess/ponderosa/uci/proc"
)

// Setting describes one environment variable.
type Setting struct {
	// Name is the environment variable.
	Name string
	// Default is the value used when the variable is unset or empty.
	Default string
	// Doc is a one-line description, including the accepted values.
	Doc string
}

// Settings returns every known setting with its default and documentation,
// in a stable order (the order of the README table and .env.example).
func Settings() []Setting {
	out := make([]Setting, len(settings))
	for i, s := range settings {
		out[i] = Setting{Name: s.Name, Default: s.Default, Doc: s.Doc}
	}
	return out
}

// setting is a Setting plus the function that parses and stores it.
type setting struct {
	Setting
	secret bool
	set    func(c *Config, v string) error
}

// settings is the table of every variable. It is never modified.
var settings = []setting{
	{Setting: Setting{"LICHESS_TOKEN", "", "Lichess API token with the bot:play scope (required except for --sandbox); never logged"}, secret: true,
		set: func(c *Config, v string) error {
			if err := checkToken(v); err != nil {
				return err
			}
			c.Token = NewSecret(v)
			return nil
		}},
	{Setting: Setting{"LICHESS_URL", "https://lichess.org", "Lichess base URL (https, no query; http only to a loopback host such as 127.0.0.1 or localhost)"},
		set: func(c *Config, v string) (err error) { c.URL, err = parseBaseURL(v); return }},

	// Engine.
	{Setting: Setting{"PONDEROSA_HASH_MB", "32", "transposition table size per game, MB (1 to 4096); PONDEROSA_MAX_GAMES of them must fit in the memory available at start"},
		set: func(c *Config, v string) (err error) { c.Engine.HashMB, err = parseInt(v, 1, 4096); return }},
	{Setting: Setting{"PONDEROSA_THREADS", "0", "search threads shared by all games (0 = one per CPU the process may use, as GOMAXPROCS says: a container's CPU quota counts; up to 256)"},
		set: func(c *Config, v string) (err error) { c.Engine.Threads, err = parseInt(v, 0, 256); return }},
	{Setting: Setting{"PONDEROSA_MOVE_OVERHEAD", "50ms", "starting estimate of the time lost per move to the network; the bot raises it from measured latency (0 to 10s)"},
		set: func(c *Config, v string) (err error) {
			c.Engine.MoveOverhead, err = parseDuration(v, 0, 10*time.Second)
			return
		}},
	{Setting: Setting{"PONDEROSA_PONDER", "true", "think on the opponent's time (true/false)"},
		set: func(c *Config, v string) (err error) { c.Engine.Ponder, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_CORRESPONDENCE_MOVE_TIME", "20s", "think time per move in correspondence and unlimited games, less when the game's clock has less left (10ms to 10m)"},
		set: func(c *Config, v string) (err error) {
			c.Engine.CorrespondenceMoveTime, err = parseDuration(v, 10*time.Millisecond, 10*time.Minute)
			return
		}},

	{Setting: Setting{"PONDEROSA_ENGINE", "builtin", "engine behind the bot: builtin (the embedded engine) or an engine's command line, program and arguments split like a shell would, run without a shell"},
		set: func(c *Config, v string) (err error) { c.Engine.Command, err = parseEngineCommand(v); return }},
	{Setting: Setting{"PONDEROSA_ENGINE_PROTOCOL", "uci", "protocol of PONDEROSA_ENGINE: uci or xboard (CECP v2)"},
		set: func(c *Config, v string) (err error) {
			p, err := parseEnumList(v, []string{"uci", "xboard"})
			if err == nil && len(p) != 1 {
				err = errors.New("must be uci or xboard")
			}
			if err == nil {
				c.Engine.Protocol = p[0]
			}
			return err
		}},
	{Setting: Setting{"PONDEROSA_ENGINE_OPTIONS", "", "options of PONDEROSA_ENGINE, comma-separated Name=Value (UCI setoption; xboard option, Hash as memory, Threads as cores), checked against what the engine announces at start"},
		set: func(c *Config, v string) (err error) { c.Engine.Options, err = client.ParseOptions(v); return }},
	{Setting: Setting{"PONDEROSA_ENGINE_DIR", "none", "working directory of PONDEROSA_ENGINE (network files, books; \"none\" = the bot's)"},
		set: func(c *Config, v string) (err error) { c.Engine.Dir, err = parsePath(v); return }},

	{Setting: Setting{"PONDEROSA_BOOK", "none", "Polyglot opening book file used in standard games, asked after the books of PONDEROSA_BOOKS (\"none\" = off)"},
		set: func(c *Config, v string) (err error) { c.Engine.Book, err = parsePath(v); return }},
	{Setting: Setting{"PONDEROSA_BOOK_MAX_PLY", "20", "use PONDEROSA_BOOK for at most this many plies from the start, and the books of PONDEROSA_BOOKS without max_ply (1 to 200)"},
		set: func(c *Config, v string) (err error) { c.Engine.BookMaxPly, err = parseInt(v, 1, 200); return }},
	{Setting: Setting{"PONDEROSA_BOOKS", "none", "Polyglot books asked in order, \";\"-separated, each FILE[:speeds=S,S][:variants=V,V][:select=weighted|best|uniform][:min_weight=N][:max_ply=N][:name=NAME] (README: Opening books; \"none\" = off)"},
		set: func(c *Config, v string) (err error) { c.Engine.Books, err = parseBooks(v); return }},
	{Setting: Setting{"PONDEROSA_BOOK_SEED", "random", "seed of the books' weighted and uniform choices, mixed with the game id and ply: a number (0 to 2^64-1) replays the same choices, random draws one at start and logs it"},
		set: func(c *Config, v string) error {
			c.Engine.BookSeed, c.Engine.BookSeedFixed = 0, false
			if v = strings.TrimSpace(v); v == "random" {
				return nil
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return errors.New("must be random or a number from 0 to 18446744073709551615")
			}
			c.Engine.BookSeed, c.Engine.BookSeedFixed = n, true
			return nil
		}},

	// Challenge policy.
	{Setting: Setting{"PONDEROSA_VARIANTS", "standard,chess960,fromPosition", "accepted variants, comma-separated, from standard, chess960, fromPosition"},
		set: func(c *Config, v string) (err error) {
			c.Policy.Variants, err = parseEnumList(v, []string{"standard", "chess960", "fromPosition"})
			return
		}},
	{Setting: Setting{"PONDEROSA_SPEEDS", "bullet,blitz,rapid,classical", "accepted real-time speeds, comma-separated, from ultraBullet, bullet, blitz, rapid, classical"},
		set: func(c *Config, v string) (err error) {
			c.Policy.Speeds, err = parseEnumList(v, []string{"ultraBullet", "bullet", "blitz", "rapid", "classical"})
			return
		}},
	{Setting: Setting{"PONDEROSA_MIN_BASE", "0s", "shortest accepted initial clock (0 to 3h)"},
		set: func(c *Config, v string) (err error) {
			c.Policy.MinBase, err = parseDuration(v, 0, 3*time.Hour)
			return
		}},
	{Setting: Setting{"PONDEROSA_MAX_BASE", "3h", "longest accepted initial clock (0 to 3h)"},
		set: func(c *Config, v string) (err error) {
			c.Policy.MaxBase, err = parseDuration(v, 0, 3*time.Hour)
			return
		}},
	{Setting: Setting{"PONDEROSA_MIN_INCREMENT", "0s", "smallest accepted increment (0 to 3m)"},
		set: func(c *Config, v string) (err error) {
			c.Policy.MinIncrement, err = parseDuration(v, 0, 3*time.Minute)
			return
		}},
	{Setting: Setting{"PONDEROSA_MAX_INCREMENT", "3m", "largest accepted increment (0 to 3m)"},
		set: func(c *Config, v string) (err error) {
			c.Policy.MaxIncrement, err = parseDuration(v, 0, 3*time.Minute)
			return
		}},
	{Setting: Setting{"PONDEROSA_ACCEPT_RATED", "true", "accept rated challenges (true/false)"},
		set: func(c *Config, v string) (err error) { c.Policy.Rated, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_ACCEPT_CASUAL", "true", "accept casual challenges (true/false)"},
		set: func(c *Config, v string) (err error) { c.Policy.Casual, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_ACCEPT_BOTS", "true", "accept challenges from bots (true/false)"},
		set: func(c *Config, v string) (err error) { c.Policy.Bots, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_ACCEPT_HUMANS", "true", "accept challenges from humans (true/false)"},
		set: func(c *Config, v string) (err error) { c.Policy.Humans, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_ACCEPT_ANONYMOUS", "true", "accept challenges from anonymous (logged-out) players, who count as humans (true/false)"},
		set: func(c *Config, v string) (err error) { c.Policy.Anonymous, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_ALLOW", "", "if set, only these Lichess users may challenge (comma-separated usernames)"},
		set: func(c *Config, v string) (err error) { c.Policy.Allow, err = parseUserList(v); return }},
	{Setting: Setting{"PONDEROSA_BLOCK", "", "Lichess users whose challenges are always declined (comma-separated usernames)"},
		set: func(c *Config, v string) (err error) { c.Policy.Block, err = parseUserList(v); return }},
	{Setting: Setting{"PONDEROSA_ALLOW_URL", "", "also allow the users listed at these http(s) URLs (comma-separated; one username a line, # comments), fetched at start and every PONDEROSA_LIST_REFRESH; until one loads, only PONDEROSA_ALLOW's users are accepted"},
		set: func(c *Config, v string) (err error) { c.Policy.AllowURLs, err = parseURLList(v); return }},
	{Setting: Setting{"PONDEROSA_BLOCK_URL", "", "also block the users listed at these http(s) URLs (comma-separated; one username a line, # comments), e.g. a community block list of misbehaving bots"},
		set: func(c *Config, v string) (err error) { c.Policy.BlockURLs, err = parseURLList(v); return }},
	{Setting: Setting{"PONDEROSA_LIST_REFRESH", "1h", "how often the allow and block lists at URLs are fetched again; a failed fetch keeps the last good list (100ms to 24h)"},
		set: func(c *Config, v string) (err error) {
			c.Policy.ListRefresh, err = parseDuration(v, 100*time.Millisecond, 24*time.Hour)
			return
		}},
	{Setting: Setting{"PONDEROSA_MAX_GAMES_PER_OPPONENT", "0", "games against one opponent in the last 24 hours, the ones being played included, after which its challenges are declined with \"later\" (0 = no cap, up to 1000); finished games are counted from the data directory, so restarts keep the count"},
		set: func(c *Config, v string) (err error) { c.Policy.MaxPerOpponentDay, err = parseInt(v, 0, 1000); return }},
	{Setting: Setting{"PONDEROSA_MAX_GAMES_IN_A_ROW", "0", "games in a row against one opponent, the ones being played included, after which its challenges are declined with \"later\" until someone else has played (0 = no cap, up to 1000)"},
		set: func(c *Config, v string) (err error) { c.Policy.MaxInARow, err = parseInt(v, 0, 1000); return }},
	{Setting: Setting{"PONDEROSA_MAX_BOT_GAMES", "0", "games against bots at once, resumed and matchmaking games included; the other PONDEROSA_MAX_GAMES slots are kept for humans and bots beyond it get \"later\" (0 = no reservation, up to 64)"},
		set: func(c *Config, v string) (err error) { c.Policy.MaxBotGames, err = parseInt(v, 0, 64); return }},
	{Setting: Setting{"PONDEROSA_RATING_BOUNDS", "", "challenger ratings accepted per speed, comma-separated speed:min-max (either side may be empty), e.g. blitz:1500-2600,bullet:1800-; others declined with \"generic\""},
		set: func(c *Config, v string) (err error) { c.Policy.RatingBounds, err = parseRatingBounds(v); return }},
	{Setting: Setting{"PONDEROSA_BOT_BULLET_INCREMENT", "false", "decline bullet and UltraBullet challenges from bots without an increment, with \"timeControl\" (true/false)"},
		set: func(c *Config, v string) (err error) { c.Policy.BotBulletIncrement, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_MAX_GAMES", "3", "games played at once (1 to 64)"},
		set: func(c *Config, v string) (err error) { c.Policy.MaxGames, err = parseInt(v, 1, 64); return }},
	{Setting: Setting{"PONDEROSA_QUEUE", "4", "acceptable challenges kept waiting while all game slots are busy; more are declined with \"later\" (0 to 100)"},
		set: func(c *Config, v string) (err error) { c.Policy.QueueSize, err = parseInt(v, 0, 100); return }},
	{Setting: Setting{"PONDEROSA_CORRESPONDENCE", "false", "accept correspondence challenges (true/false)"},
		set: func(c *Config, v string) (err error) { c.Policy.Correspondence, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_MIN_DAYS", "1", "fewest days per move accepted in correspondence; fewer are declined with \"tooFast\" (1 to 14)"},
		set: func(c *Config, v string) (err error) { c.Policy.MinDays, err = parseInt(v, 1, 14); return }},
	{Setting: Setting{"PONDEROSA_MAX_DAYS", "14", "most days per move accepted in correspondence; more are declined with \"tooSlow\" (1 to 14)"},
		set: func(c *Config, v string) (err error) { c.Policy.MaxDays, err = parseInt(v, 1, 14); return }},
	{Setting: Setting{"PONDEROSA_UNLIMITED", "false", "accept challenges without a clock (true/false)"},
		set: func(c *Config, v string) (err error) { c.Policy.Unlimited, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_MAX_CORRESPONDENCE_GAMES", "50", "correspondence and unlimited games in progress at once, beside the PONDEROSA_MAX_GAMES real-time slots (they take none); more are declined with \"later\" (1 to 200, Lichess's limit of games at once)"},
		set: func(c *Config, v string) (err error) { c.Policy.MaxCorrespondence, err = parseInt(v, 1, 200); return }},
	{Setting: Setting{"PONDEROSA_CORRESPONDENCE_CHECKIN", "10m", "how often the bot asks Lichess which correspondence games wait for its move, and plays them (1s to 24h)"},
		set: func(c *Config, v string) (err error) {
			c.Game.CorrespondenceCheckin, err = parseDuration(v, time.Second, 24*time.Hour)
			return
		}},
	{Setting: Setting{"PONDEROSA_CORRESPONDENCE_DISCONNECT", "2m30s", "how long a correspondence game stays open for the opponent's reply after our move before its stream is closed; sooner when other games wait for their turn (0 to 1h)"},
		set: func(c *Config, v string) (err error) {
			c.Game.CorrespondenceDisconnect, err = parseDuration(v, 0, time.Hour)
			return
		}},

	{Setting: Setting{"PONDEROSA_MAX_REMATCHES", "3", "rematches accepted in a row from one opponent; the next is declined with \"later\" (0 = none, up to 100)"},
		set: func(c *Config, v string) (err error) { c.Policy.MaxRematches, err = parseInt(v, 0, 100); return }},

	// In-game behaviour.
	{Setting: Setting{"PONDEROSA_ACCEPT_DRAWS", "true", "accept draw offers when the game has been level for a while (true/false)"},
		set: func(c *Config, v string) (err error) { c.Game.AcceptDraws, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_DRAW_SCORE", "25", "\"level\" for draws: |score| at most this many centipawns (0 to 500)"},
		set: func(c *Config, v string) (err error) { c.Game.DrawScore, err = parseInt(v, 0, 500); return }},
	{Setting: Setting{"PONDEROSA_DRAW_MOVES", "6", "our last this-many moves must all have been level to accept a draw (1 to 100)"},
		set: func(c *Config, v string) (err error) { c.Game.DrawMoves, err = parseInt(v, 1, 100); return }},
	{Setting: Setting{"PONDEROSA_DRAW_MIN_MOVE", "30", "no draw accepted before this move number (1 to 500)"},
		set: func(c *Config, v string) (err error) { c.Game.DrawMinMove, err = parseInt(v, 1, 500); return }},
	{Setting: Setting{"PONDEROSA_OFFER_DRAWS", "false", "offer a draw with our move when the game has been level for a while, under the rules that accept one (true/false)"},
		set: func(c *Config, v string) (err error) { c.Game.OfferDraws, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_DRAW_OFFER_EVERY", "10", "at most one draw offer every this many of our moves (10 to 500; Lichess ignores offers within 20 plies of the last)"},
		set: func(c *Config, v string) (err error) { c.Game.DrawOfferEvery, err = parseInt(v, 10, 500); return }},
	{Setting: Setting{"PONDEROSA_RESIGN", "false", "resign hopeless games (true/false)"},
		set: func(c *Config, v string) (err error) { c.Game.Resign, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_RESIGN_SCORE", "1000", "\"hopeless\": score at or below minus this many centipawns (100 to 100000)"},
		set: func(c *Config, v string) (err error) { c.Game.ResignScore, err = parseInt(v, 100, 100000); return }},
	{Setting: Setting{"PONDEROSA_RESIGN_MOVES", "5", "our last this-many moves must all have been hopeless to resign (1 to 100)"},
		set: func(c *Config, v string) (err error) { c.Game.ResignMoves, err = parseInt(v, 1, 100); return }},
	{Setting: Setting{"PONDEROSA_ACCEPT_TAKEBACKS", "false", "accept the opponent's takeback requests (true/false)"},
		set: func(c *Config, v string) (err error) { c.Game.Takebacks, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_ABORT_AFTER", "30s", "abort a game whose opponent has not made a first move after this long (5s to 10m)"},
		set: func(c *Config, v string) (err error) {
			c.Game.AbortAfter, err = parseDuration(v, 5*time.Second, 10*time.Minute)
			return
		}},
	{Setting: Setting{"PONDEROSA_CLAIM_VICTORY", "true", "claim the win when the opponent has left the game, a draw (claim-draw) when we lack mating material (true/false)"},
		set: func(c *Config, v string) (err error) { c.Game.ClaimVictory, err = parseBool(v); return }},

	// Chat.
	{Setting: Setting{"PONDEROSA_GREETING", "Hi! I'm {me}, a Ponderosa bot. Good luck!", "message to the opponent at the start ({me}, {opponent} are replaced; \"none\" = off; at most 140 chars)"},
		set: func(c *Config, v string) (err error) { c.Chat.Greeting, err = parseMessage(v); return }},
	{Setting: Setting{"PONDEROSA_GREETING_SPECTATOR", "Hi! I'm {me}. Type !help for commands.", "message to spectators at the start (\"none\" = off)"},
		set: func(c *Config, v string) (err error) { c.Chat.GreetingSpectator, err = parseMessage(v); return }},
	{Setting: Setting{"PONDEROSA_GOODBYE", "Good game!", "message to the opponent at the end (\"none\" = off)"},
		set: func(c *Config, v string) (err error) { c.Chat.Goodbye, err = parseMessage(v); return }},
	{Setting: Setting{"PONDEROSA_GOODBYE_SPECTATOR", "Thanks for watching!", "message to spectators at the end (\"none\" = off)"},
		set: func(c *Config, v string) (err error) { c.Chat.GoodbyeSpectator, err = parseMessage(v); return }},
	{Setting: Setting{"PONDEROSA_CHAT_COMMANDS", "true", "answer !help, !eval, !pv, !name, !queue and !source in the chat (true/false)"},
		set: func(c *Config, v string) (err error) { c.Chat.Commands, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_CHAT_COOLDOWN", "5s", "least time between two command replies in one game and chat room; commands sooner get none (0s to 10m)"},
		set: func(c *Config, v string) (err error) {
			c.Chat.CommandCooldown, err = parseDuration(v, 0, 10*time.Minute)
			return
		}},
	{Setting: Setting{"PONDEROSA_CHAT_EVAL_OPPONENT", "false", "let !eval and !pv answer in the player room too, telling the opponent our evaluation and line (true/false)"},
		set: func(c *Config, v string) (err error) { c.Chat.EvalToOpponent, err = parseBool(v); return }},

	// Matchmaking.
	{Setting: Setting{"PONDEROSA_MATCHMAKING", "false", "challenge online bots when idle (true/false)"},
		set: func(c *Config, v string) (err error) { c.Matchmaking.Enabled, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_MATCHMAKING_IDLE", "2m", "idle time before a matchmaking challenge (1s to 24h)"},
		set: func(c *Config, v string) (err error) {
			c.Matchmaking.Idle, err = parseDuration(v, time.Second, 24*time.Hour)
			return
		}},
	{Setting: Setting{"PONDEROSA_MATCHMAKING_TIME_CONTROLS", "1+1,3+0,3+2,5+3", "time controls to pick from, minutes+seconds or days per move (\"2d\": correspondence, needs PONDEROSA_CORRESPONDENCE=true), comma-separated, each optionally *weight (1 to 100, default 1: \"3+0*3,5+3\" picks 3+0 three times as often); minutes 0.25 to 180, seconds 0 to 60, not UltraBullet; days 1, 2, 3, 5, 7, 10 or 14"},
		set: func(c *Config, v string) (err error) { c.Matchmaking.TimeControls, err = parseTimeControls(v); return }},
	{Setting: Setting{"PONDEROSA_MATCHMAKING_VARIANTS", "standard", "variants to challenge in, comma-separated from standard, chess960, each optionally *weight (1 to 100: \"standard*3,chess960\" picks chess960 one challenge in four)"},
		set: func(c *Config, v string) (err error) { c.Matchmaking.Variants, err = parseVariantWeights(v); return }},
	{Setting: Setting{"PONDEROSA_MATCHMAKING_RATED", "false", "mode of matchmaking challenges: true (rated), false (casual) or both (either, half and half; an opponent who declined one mode gets the other)"},
		set: func(c *Config, v string) error {
			if strings.EqualFold(strings.TrimSpace(v), "both") {
				c.Matchmaking.Rated, c.Matchmaking.Casual = true, true
				return nil
			}
			r, err := parseBool(v)
			if err != nil {
				return errors.New("must be true, false or both")
			}
			c.Matchmaking.Rated, c.Matchmaking.Casual = r, !r
			return nil
		}},
	{Setting: Setting{"PONDEROSA_MATCHMAKING_RATING_DIFF", "300", "challenge only bots within this many rating points of ours (0 = any, up to 3000)"},
		set: func(c *Config, v string) (err error) { c.Matchmaking.MaxRatingDiff, err = parseInt(v, 0, 3000); return }},

	// Tournaments.
	{Setting: Setting{"PONDEROSA_TOURNAMENTS", "", "tournaments to join at start and withdraw from at shutdown, comma-separated: arena:ID or swiss:ID (a bare ID is an arena), each optionally :team=T (arena team battles) and :password=P last (P may hold ':' but not ','); at most 20; never logged with its passwords"}, secret: true,
		set: func(c *Config, v string) (err error) { c.Tournaments, err = ParseTournaments(v); return }},

	// Records and operations.
	// Move sources besides the engine and the book (bot/movesource).
	{Setting: Setting{"PONDEROSA_TABLEBASE", "false", "ask the online tablebase in positions of at most 7 pieces (6 in atomic and antichess) (true/false)"},
		set: func(c *Config, v string) (err error) { c.Sources.Tablebase, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_TABLEBASE_URL", "https://tablebase.lichess.ovh", "base URL of the tablebase (/standard, /atomic, /antichess); never gets the token"},
		set: func(c *Config, v string) (err error) { c.Sources.TablebaseURL, err = parseBaseURL(v); return }},
	{Setting: Setting{"PONDEROSA_CLOUD_EVAL", "false", "play the Lichess cloud evaluation's best move when it is known deep enough (true/false)"},
		set: func(c *Config, v string) (err error) { c.Sources.Cloud, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_CLOUD_EVAL_URL", "https://lichess.org", "base URL of the cloud evaluation (/api/cloud-eval); gets the token only when it is LICHESS_URL"},
		set: func(c *Config, v string) (err error) { c.Sources.CloudURL, err = parseBaseURL(v); return }},
	{Setting: Setting{"PONDEROSA_CLOUD_EVAL_MIN_DEPTH", "20", "the least stored depth of a cloud evaluation the bot plays (1 to 100)"},
		set: func(c *Config, v string) (err error) { c.Sources.CloudMinDepth, err = parseInt(v, 1, 100); return }},
	{Setting: Setting{"PONDEROSA_EXPLORER", "false", "play moves from the Lichess opening explorer (true/false)"},
		set: func(c *Config, v string) (err error) { c.Sources.Explorer, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_EXPLORER_URL", "https://explorer.lichess.ovh", "base URL of the opening explorer (/masters, /lichess); gets the token only over https on Lichess's explorer host"},
		set: func(c *Config, v string) (err error) { c.Sources.ExplorerURL, err = parseBaseURL(v); return }},
	{Setting: Setting{"PONDEROSA_EXPLORER_DB", "masters", "explorer database: masters, lichess (the game's variant and speed) or player (the games of PONDEROSA_EXPLORER_PLAYER with our colour)"},
		set: func(c *Config, v string) error {
			switch v = strings.TrimSpace(v); v {
			case "masters", "lichess", "player":
				c.Sources.ExplorerDB = v
				return nil
			}
			return errors.New("must be masters, lichess or player")
		}},
	{Setting: Setting{"PONDEROSA_EXPLORER_PLAYER", "", "the Lichess user whose games the player explorer database plays from (empty = the bot's own account)"},
		set: func(c *Config, v string) error {
			v = strings.ToLower(strings.TrimSpace(v))
			if v != "" && !validUsername(v) {
				return errors.New("must be a Lichess username")
			}
			c.Sources.ExplorerPlayer = v
			return nil
		}},
	{Setting: Setting{"PONDEROSA_EXPLORER_SPEEDS", "", "speeds of the lichess and player explorer databases, comma-separated from ultraBullet, bullet, blitz, rapid, classical, correspondence (empty = the game's speed)"},
		set: func(c *Config, v string) (err error) {
			if strings.TrimSpace(v) == "" {
				c.Sources.ExplorerSpeeds = nil
				return nil
			}
			c.Sources.ExplorerSpeeds, err = parseEnumList(v, []string{"ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"})
			return
		}},
	{Setting: Setting{"PONDEROSA_EXPLORER_RATINGS", "", "rating groups of the lichess explorer database, comma-separated from 0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500 (each the group from that rating up to the next; empty = all)"},
		set: func(c *Config, v string) error {
			c.Sources.ExplorerRatings = nil
			if strings.TrimSpace(v) == "" {
				return nil
			}
			groups, err := parseEnumList(v, []string{"0", "1000", "1200", "1400", "1600", "1800", "2000", "2200", "2500"})
			if err != nil {
				return err
			}
			for _, g := range groups {
				n, _ := strconv.Atoi(g)
				c.Sources.ExplorerRatings = append(c.Sources.ExplorerRatings, n)
			}
			slices.Sort(c.Sources.ExplorerRatings)
			return nil
		}},
	{Setting: Setting{"PONDEROSA_EXPLORER_MODES", "", "games of the player explorer database: rated, casual or both, comma-separated (empty = both)"},
		set: func(c *Config, v string) (err error) {
			if strings.TrimSpace(v) == "" {
				c.Sources.ExplorerModes = nil
				return nil
			}
			c.Sources.ExplorerModes, err = parseEnumList(v, []string{"rated", "casual"})
			return
		}},
	{Setting: Setting{"PONDEROSA_EXPLORER_BY", "popularity", "explorer move choice: popularity (the most played) or score (the best for the side to move)"},
		set: func(c *Config, v string) error {
			switch v = strings.TrimSpace(v); v {
			case "popularity", "score":
				c.Sources.ExplorerByScore = v == "score"
				return nil
			}
			return errors.New("must be popularity or score")
		}},
	{Setting: Setting{"PONDEROSA_EXPLORER_MIN_GAMES", "10", "an explorer move needs at least this many games (1 to 1000000)"},
		set: func(c *Config, v string) (err error) {
			n, err := parseInt(v, 1, 1000000)
			c.Sources.ExplorerMinGames = int64(n)
			return err
		}},
	{Setting: Setting{"PONDEROSA_EXPLORER_MAX_PLY", "16", "ask the explorer for at most this many plies from the start (1 to 200)"},
		set: func(c *Config, v string) (err error) { c.Sources.ExplorerMaxPly, err = parseInt(v, 1, 200); return }},
	{Setting: Setting{"PONDEROSA_CHESSDB", "false", "play the best known move of ChessDB (chessdb.cn's cloud database, queryall) in standard games (true/false)"},
		set: func(c *Config, v string) (err error) { c.Sources.ChessDB, err = parseBool(v); return }},
	{Setting: Setting{"PONDEROSA_CHESSDB_URL", "https://www.chessdb.cn", "base URL of ChessDB (/cdb.php); never gets the token"},
		set: func(c *Config, v string) (err error) { c.Sources.ChessDBURL, err = parseBaseURL(v); return }},

	{Setting: Setting{"PONDEROSA_PGN_DIR", "pgn", "folder for one PGN file per finished game (\"none\" = off)"},
		set: func(c *Config, v string) (err error) { c.PGNDir, err = parsePath(v); return }},
	{Setting: Setting{"PONDEROSA_DATA_DIR", "ponderosa-data", "folder of the bot's memory across restarts, the SQLite file ponderosa.db (\"none\" = in memory only)"},
		set: func(c *Config, v string) (err error) { c.DataDir, err = parsePath(v); return }},
	{Setting: Setting{"PONDEROSA_HISTORY_DAYS", "365", "days of games and challenges kept in the data directory, pruned daily (1 to 36500)"},
		set: func(c *Config, v string) (err error) { c.HistoryDays, err = parseInt(v, 1, 36500); return }},
	{Setting: Setting{"PONDEROSA_LOG_FORMAT", "text", "log format: text or json"},
		set: func(c *Config, v string) error {
			switch strings.ToLower(v) {
			case "text", "json":
				c.LogFormat = strings.ToLower(v)
				return nil
			}
			return errors.New("must be text or json")
		}},
	{Setting: Setting{"PONDEROSA_LOG_LEVEL", "info", "minimum log level: debug, info, warn or error"},
		set: func(c *Config, v string) error {
			switch strings.ToLower(v) {
			case "debug":
				c.LogLevel = slog.LevelDebug
			case "info":
				c.LogLevel = slog.LevelInfo
			case "warn", "warning":
				c.LogLevel = slog.LevelWarn
			case "error":
				c.LogLevel = slog.LevelError
			default:
				return errors.New("must be debug, info, warn or error")
			}
			return nil
		}},
	{Setting: Setting{"PONDEROSA_STATUS_ADDR", "none", "host:port of the status and metrics HTTP endpoint, e.g. 127.0.0.1:8080 (\"none\" = off)"},
		set: func(c *Config, v string) (err error) { c.StatusAddr, err = parseAddr(v); return }},
	{Setting: Setting{"PONDEROSA_STATUS_USER", "none", "user name of the status page's basic auth (with PONDEROSA_STATUS_PASSWORD_FILE; /healthz stays open) (\"none\" = no auth)"},
		set: func(c *Config, v string) error {
			if strings.EqualFold(strings.TrimSpace(v), "none") {
				return nil
			}
			if strings.ContainsAny(v, ":\x00\r\n") || strings.TrimSpace(v) != v {
				return errors.New("must not contain a colon, control characters or surrounding spaces")
			}
			c.StatusUser = v
			return nil
		}},
	{Setting: Setting{"PONDEROSA_STATUS_PASSWORD_FILE", "none", "file holding the status page's basic auth password (first line; read at start) (\"none\" = no auth)"},
		set: func(c *Config, v string) (err error) { c.StatusPasswordFile, err = parsePath(v); return }},
	{Setting: Setting{"PONDEROSA_SHUTDOWN", "wait", "on SIGTERM/SIGINT: wait (for running games to end, up to PONDEROSA_DRAIN_TIMEOUT) or leave (finish the current move and exit; the next start resumes the games)"},
		set: func(c *Config, v string) error {
			switch ShutdownMode(strings.ToLower(v)) {
			case ShutdownWait, ShutdownLeave:
				c.Shutdown.Mode = ShutdownMode(strings.ToLower(v))
				return nil
			}
			return errors.New("must be wait or leave")
		}},
	{Setting: Setting{"PONDEROSA_DRAIN_TIMEOUT", "2m", "longest wait for running games to end in shutdown mode wait (0 to 3h)"},
		set: func(c *Config, v string) (err error) {
			c.Shutdown.DrainTimeout, err = parseDuration(v, 0, 3*time.Hour)
			return
		}},
}

// checkToken validates the token's character set (^[A-Za-z0-9_]+$).
func checkToken(v string) error {
	for i := 0; i < len(v); i++ {
		b := v[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_') {
			return errors.New("must contain only letters, digits and underscores")
		}
	}
	if len(v) > 4096 {
		return errors.New("must be at most 4096 characters")
	}
	return nil
}

func parseBaseURL(v string) (string, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("must be an http:// or https:// URL with a host")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", errors.New("must not contain a query, fragment or user info")
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return "", errors.New("http:// is allowed only to a loopback host (127.0.0.1, ::1, localhost): the token would cross the network unencrypted; use https://")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// isLoopback reports whether host is "localhost" or a loopback IP.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func parseInt(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be an integer from %d to %d", lo, hi)
	}
	return n, nil
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, errors.New("must be true or false")
}

func parseDuration(v string, lo, hi time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < lo || d > hi {
		return 0, fmt.Errorf("must be a duration from %v to %v, such as 500ms, 30s or 2m", lo, hi)
	}
	return d, nil
}

// parseEnumList parses a comma-separated list of values from allowed,
// matched case-insensitively and stored in allowed's spelling. It must not
// be empty.
func parseEnumList(v string, allowed []string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		i := indexFold(allowed, f)
		if i < 0 {
			return nil, fmt.Errorf("unknown value %q: must be a comma-separated list from %s", clipWord(f), strings.Join(allowed, ", "))
		}
		if indexFold(out, allowed[i]) < 0 {
			out = append(out, allowed[i])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("must list at least one of %s", strings.Join(allowed, ", "))
	}
	return out, nil
}

func indexFold(list []string, s string) int {
	for i, a := range list {
		if strings.EqualFold(a, s) {
			return i
		}
	}
	return -1
}

func clipWord(s string) string {
	if len(s) > 30 {
		return s[:30] + "…"
	}
	return s
}

// parseUserList parses comma-separated Lichess usernames into lowercase ids.
func parseUserList(v string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		if !validUsername(f) {
			return nil, fmt.Errorf("invalid username %q: must be 2 to 30 letters, digits, _ or -", clipWord(f))
		}
		out = append(out, f)
	}
	return out, nil
}

// parseRatingBounds parses speed:min-max pairs, comma-separated.
func parseRatingBounds(v string) (map[string]RatingRange, error) {
	speeds := []string{"ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"}
	out := map[string]RatingRange{}
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		speed, rng, ok := strings.Cut(f, ":")
		if !ok || !slices.Contains(speeds, speed) {
			return nil, fmt.Errorf("invalid %q: want speed:min-max with speed one of %s", clipWord(f), strings.Join(speeds, ", "))
		}
		lo, hi, ok := strings.Cut(rng, "-")
		if !ok {
			return nil, fmt.Errorf("invalid %q: want speed:min-max (a side may be empty)", clipWord(f))
		}
		var r RatingRange
		for _, p := range []struct {
			s   string
			dst *int
		}{{lo, &r.Min}, {hi, &r.Max}} {
			if p.s == "" {
				continue
			}
			n, err := strconv.Atoi(p.s)
			if err != nil || n < 400 || n > 4000 {
				return nil, fmt.Errorf("invalid rating %q in %q: want 400 to 4000", clipWord(p.s), clipWord(f))
			}
			*p.dst = n
		}
		if r.Min > 0 && r.Max > 0 && r.Min > r.Max {
			return nil, fmt.Errorf("invalid %q: minimum above maximum", clipWord(f))
		}
		if _, dup := out[speed]; dup {
			return nil, fmt.Errorf("%s given twice", speed)
		}
		out[speed] = r
	}
	return out, nil
}

// parseURLList parses comma-separated http(s) URLs with a host.
func parseURLList(v string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		u, err := url.Parse(f)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return nil, fmt.Errorf("invalid URL %q: must be http:// or https:// with a host and no user info", clipWord(f))
		}
		out = append(out, f)
	}
	return out, nil
}

// ValidUsername reports whether s (lowercase) is a Lichess username: 2 to
// 30 letters, digits, _ or -.
func ValidUsername(s string) bool { return validUsername(s) }

func validUsername(s string) bool {
	if len(s) < 2 || len(s) > 30 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

// parseMessage validates a chat message; "none" disables it.
func parseMessage(v string) (string, error) {
	if strings.EqualFold(strings.TrimSpace(v), "none") {
		return "", nil
	}
	if len([]rune(v)) > 140 {
		return "", errors.New("must be at most 140 characters (the Lichess chat limit)")
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return "", errors.New("must not contain control characters")
		}
	}
	return v, nil
}

// parseEngineCommand reads PONDEROSA_ENGINE: nil for the embedded engine.
func parseEngineCommand(v string) ([]string, error) {
	if strings.EqualFold(strings.TrimSpace(v), "builtin") {
		return nil, nil
	}
	if strings.ContainsRune(v, 0) {
		return nil, errors.New("must be builtin or a command line")
	}
	argv, err := proc.SplitCommand(v)
	if err != nil {
		return nil, fmt.Errorf("must be builtin or a command line: %w", err)
	}
	return argv, nil
}

func parsePath(v string) (string, error) {
	if strings.EqualFold(strings.TrimSpace(v), "none") {
		return "", nil
	}
	if strings.ContainsRune(v, 0) {
		return "", errors.New("must be a path")
	}
	return v, nil
}

func parseAddr(v string) (string, error) {
	if strings.EqualFold(strings.TrimSpace(v), "none") {
		return "", nil
	}
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		return "", errors.New(`must be host:port such as 127.0.0.1:8080, or "none"`)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return "", errors.New("port must be a number from 0 to 65535")
	}
	if strings.ContainsAny(host, " /") {
		return "", errors.New("host must be a host name or IP address")
	}
	return v, nil
}

// parseTimeControls parses "1+1,3+0,0.5+1,2d": minutes (one of the Lichess
// values: 0.25, 0.5, 0.75, 1, 1.5, or whole minutes up to 180) plus seconds
// (0 to 60), or days per move (correspondence: 1, 2, 3, 5, 7, 10, 14), each
// optionally *weight. UltraBullet (base + 40×increment under 30 s) is
// refused: bots cannot be challenged to it.
func parseTimeControls(v string) ([]TimeControl, error) {
	var out []TimeControl
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		weight := 1
		if tcs, w, ok := strings.Cut(f, "*"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(w))
			if err != nil || n < 1 || n > 100 {
				return nil, fmt.Errorf("bad weight in %q: want minutes+seconds*weight, weight 1 to 100", clipWord(f))
			}
			f, weight = strings.TrimSpace(tcs), n
		}
		if d, ok := strings.CutSuffix(f, "d"); ok {
			days, err := strconv.Atoi(strings.TrimSpace(d))
			if err != nil || !slices.Contains(lichess.CorrespondenceDays, days) {
				return nil, fmt.Errorf("bad days per move %q: want 1d, 2d, 3d, 5d, 7d, 10d or 14d", clipWord(f))
			}
			out = append(out, TimeControl{Days: days, Weight: weight})
			continue
		}
		b, i, ok := strings.Cut(f, "+")
		mins, err1 := strconv.ParseFloat(strings.TrimSpace(b), 64)
		inc, err2 := strconv.Atoi(strings.TrimSpace(i))
		if !ok || err1 != nil || err2 != nil || inc < 0 || inc > 60 {
			return nil, fmt.Errorf("bad time control %q: want minutes+seconds such as 3+2", clipWord(f))
		}
		secs := mins * 60
		switch {
		case secs == 15 || secs == 30 || secs == 45 || secs == 90:
		case secs >= 60 && secs <= 10800 && secs == float64(int(secs/60))*60:
		default:
			return nil, fmt.Errorf("bad time control %q: minutes must be 0.25, 0.5, 0.75, 1.5 or a whole number up to 180", clipWord(f))
		}
		tc := TimeControl{Base: time.Duration(secs) * time.Second, Increment: time.Duration(inc) * time.Second, Weight: weight}
		if lichess.SpeedOf(tc.Base, tc.Increment) == lichess.SpeedUltraBullet {
			return nil, fmt.Errorf("time control %q is UltraBullet, which bots cannot be challenged to", clipWord(f))
		}
		out = append(out, tc)
	}
	if len(out) == 0 {
		return nil, errors.New("must list at least one time control such as 3+2")
	}
	return out, nil
}

// ParseTimeControl parses one time control as
// PONDEROSA_MATCHMAKING_TIME_CONTROLS writes it ("3+2", "0.5+0", "2d").
func ParseTimeControl(v string) (TimeControl, error) {
	if strings.ContainsAny(v, ",*") {
		return TimeControl{}, fmt.Errorf("bad time control %q: want one, such as 3+2", clipWord(v))
	}
	tcs, err := parseTimeControls(v)
	if err != nil {
		return TimeControl{}, err
	}
	return tcs[0], nil
}

// MatchmakingVariants are the variants matchmaking can challenge in: those
// the engine plays from their usual start (fromPosition needs a position).
var MatchmakingVariants = []string{"standard", "chess960"}

// parseVariantWeights parses "standard*3,chess960": variants of
// MatchmakingVariants, each optionally *weight (1 to 100, default 1).
func parseVariantWeights(v string) ([]VariantWeight, error) {
	var out []VariantWeight
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		weight := 1
		if name, w, ok := strings.Cut(f, "*"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(w))
			if err != nil || n < 1 || n > 100 {
				return nil, fmt.Errorf("bad weight in %q: want variant*weight, weight 1 to 100", clipWord(f))
			}
			f, weight = strings.TrimSpace(name), n
		}
		i := indexFold(MatchmakingVariants, f)
		if i < 0 {
			return nil, fmt.Errorf("unknown variant %q: must be one of %s", clipWord(f), strings.Join(MatchmakingVariants, ", "))
		}
		if slices.ContainsFunc(out, func(x VariantWeight) bool { return x.Variant == MatchmakingVariants[i] }) {
			return nil, fmt.Errorf("variant %q listed twice", MatchmakingVariants[i])
		}
		out = append(out, VariantWeight{Variant: MatchmakingVariants[i], Weight: weight})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("must list at least one of %s", strings.Join(MatchmakingVariants, ", "))
	}
	return out, nil
}
