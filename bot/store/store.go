// Package store is the bot's memory across restarts: finished games,
// challenges and their decisions, quota and rate-limit windows still
// running, the learned move overhead, and matchmaking's memory of who
// declined. It owns the SQLite file (ponderosa.db in the data directory,
// through the pure-Go modernc.org/sqlite driver, so the binary stays
// static).
//
// The service talks to it through Store, which two types satisfy: Memory,
// plain maps and slices, the default in unit tests and the fallback when the
// disk fails; and DB, which keeps a Memory for every read (a read never
// touches the disk, so it never blocks a move) and hands every write to one
// writer goroutine that batches them into SQLite transactions. A fault of
// the disk (read-only, full, corrupt, gone) never stops play: DB logs it
// once, stops writing, goes on from its memory and reports itself degraded.
//
// The history command reads the file through OpenReadOnly while the bot
// runs (WAL mode lets readers and the writer work at once).
package store

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Store is what the service remembers. Writes never block on the disk and
// never fail (a fault degrades the store, see Health); reads come from
// memory.
type Store interface {
	// AddGame records a finished game (a second record of the same id
	// replaces the first).
	AddGame(g Game)
	// AddChallenge records a challenge and what was decided.
	AddChallenge(c Challenge)
	// SetQuota records a quota or rate-limit window; one whose Until has
	// passed removes the window of that key.
	SetQuota(w QuotaWindow)
	// Quotas returns the windows still running at now.
	Quotas(now time.Time) []QuotaWindow
	// SetOverhead records the learned move overhead.
	SetOverhead(o Overhead)
	// Overhead returns the last learned move overhead, if any.
	Overhead() (Overhead, bool)
	// SetRefusal records matchmaking's memory of an opponent in a scope
	// (replacing the last one of that opponent and scope); one with a zero
	// Until forgets that opponent and scope.
	SetRefusal(r Refusal)
	// Refusals returns matchmaking's memory at now: the refusals still
	// running and those that ended less than RefusalMemory ago (their
	// strikes still count), by opponent and scope.
	Refusals(now time.Time) []Refusal
	// GamesAgainst counts the games (aborted ones excluded) against the
	// opponent (a Lichess user id, any case) that ended at or after since.
	GamesAgainst(opponent string, since time.Time) int
	// StreakAgainst counts the games in a row, up to the last one, played
	// against the opponent (aborted games neither count nor break a run).
	StreakAgainst(opponent string) int
	// RematchStreak counts the latest games against the opponent, in a
	// row, that were rematches (flag FlagRematch; aborted ones count): the
	// rematches accepted in a row since the last fresh game with them.
	RematchStreak(opponent string) int
	// RecentGames returns up to n finished games, the latest first.
	RecentGames(n int) []Game
	// Health says whether the memory is kept on disk.
	Health() Health
}

// Health is the state of a store: OK, or degraded with the reason.
type Health struct {
	// Degraded is set once what the bot learns is no longer saved (or the
	// past was lost): the bot plays on from memory.
	Degraded bool
	// Reason says why, for logs, /healthz and the status page.
	Reason string
}

// Results of a game, from our side.
const (
	Win     = "win"
	Loss    = "loss"
	Draw    = "draw"
	Aborted = "aborted"
)

// Game is a finished game as the bot saw it.
type Game struct {
	ID             string    `json:"id"`
	Started        time.Time `json:"started"`
	Ended          time.Time `json:"ended"`
	Speed          string    `json:"speed"`   // Lichess speed: bullet, blitz, ..., correspondence
	Variant        string    `json:"variant"` // Lichess variant key
	Rated          bool      `json:"rated"`
	Color          string    `json:"color"`           // our colour: white or black
	Opponent       string    `json:"opponent"`        // the opponent's Lichess id (lower case)
	OpponentName   string    `json:"opponent_name"`   // as shown (user name, or "Stockfish level 3")
	OpponentTitle  string    `json:"opponent_title"`  // BOT, GM, ... or empty
	OpponentRating int       `json:"opponent_rating"` // 0 when unknown
	OpponentBot    bool      `json:"opponent_bot"`
	OurRating      int       `json:"our_rating"`  // 0 when unknown
	Result         string    `json:"result"`      // Win, Loss, Draw or Aborted
	Termination    string    `json:"termination"` // Lichess status: mate, resign, outoftime, ...
	Plies          int       `json:"plies"`
	// Sources counts our moves by where they came from (book, engine, ...).
	Sources map[string]int `json:"sources,omitempty"`
	// Flags are short markers: "resumed", FlagRematch, ...
	Flags []string `json:"flags,omitempty"`
	// ThinkTotal and ThinkMax are the time our searches took in the game.
	ThinkTotal time.Duration `json:"think_total_ns"`
	ThinkMax   time.Duration `json:"think_max_ns"`
	// PGN is the path of the game's PGN file, if one was written.
	PGN string `json:"pgn,omitempty"`
}

// FlagRematch marks a game the bot accepted as a rematch.
const FlagRematch = "rematch"

// Challenge is a challenge the bot received or sent, with the decision.
type Challenge struct {
	ID       string
	At       time.Time
	Outgoing bool   // sent by our matchmaking
	Opponent string // the other side's Lichess id (lower case)
	Variant  string
	Speed    string
	Rated    bool
	Decision string // accept, queue, decline, sent, ...
	Reason   string // the decline reason, if any
}

// QuotaWindow is a quota or rate limit that Lichess reported and that is
// still running: while it runs the bot does not try what it limits.
type QuotaWindow struct {
	Key   string // Lichess's ratelimit key, e.g. "bot.vsBot.day", or an endpoint family
	Until time.Time
	Note  string
}

// maxOverheadSamples bounds the overhead samples kept.
const maxOverheadSamples = 64

// maxDuration bounds the durations read back (a bigger one is an error).
const maxDuration = time.Hour

// Overhead is the learned move overhead: the estimate and the latest
// samples it came from (at most 64).
type Overhead struct {
	Estimate time.Duration
	Samples  []time.Duration
	At       time.Time
}

// Refusal is matchmaking's memory of an opponent in a scope: why it last
// declined, how many times in a row, and until when that scope is left
// alone.
type Refusal struct {
	Opponent string
	// Scope is what is backed off: "" the whole opponent, or a key the
	// matchmaker writes ("tc:3+0", "variant:chess960", "mode:rated", ...;
	// at most 64 characters).
	Scope   string
	Reason  string
	Strikes int // declines in a row (1 to 64): the exponential pauses
	Until   time.Time
}

// RefusalMemory is how long a refusal is remembered after it ended: a
// decline within it counts as one more in a row.
const RefusalMemory = 7 * 24 * time.Hour

// maxStrikes bounds the strikes read back.
const maxStrikes = 64

func (r *Refusal) check() error {
	switch {
	case r.Opponent == "" || len(r.Opponent) > 64:
		return fmt.Errorf("refusal: opponent %q must be 1 to 64 characters", r.Opponent)
	case len(r.Scope) > 64:
		return fmt.Errorf("refusal of %q: scope %q over 64 characters", r.Opponent, r.Scope)
	case r.Strikes < 0 || r.Strikes > maxStrikes:
		return fmt.Errorf("refusal of %q: strikes %d out of range 0..%d", r.Opponent, r.Strikes, maxStrikes)
	}
	return nil
}

// Decoding limits and checks, shared by the SQLite rows and the tests.
var (
	results  = []string{Win, Loss, Draw, Aborted}
	colors   = []string{"white", "black"}
	maxPlies = 10000
)

// check returns a clear error for a game that the bot could not have
// played; a row read back that fails it (a newer schema's value, a value
// out of range) is reported for that row only.
func (g *Game) check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("game %q: %s", g.ID, fmt.Sprintf(format, a...))
	}
	switch {
	case g.ID == "" || len(g.ID) > 64:
		return bad("id must be 1 to 64 characters")
	case !slices.Contains(results, g.Result):
		return bad("result %q is not one of %s", g.Result, strings.Join(results, ", "))
	case !slices.Contains(colors, g.Color):
		return bad("colour %q is not white or black", g.Color)
	case g.Opponent == "":
		return bad("no opponent")
	case g.OpponentRating < 0 || g.OpponentRating > 4000:
		return bad("opponent rating %d out of range 0..4000", g.OpponentRating)
	case g.OurRating < 0 || g.OurRating > 4000:
		return bad("our rating %d out of range 0..4000", g.OurRating)
	case g.Plies < 0 || g.Plies > maxPlies:
		return bad("plies %d out of range 0..%d", g.Plies, maxPlies)
	case g.Ended.Before(g.Started):
		return bad("ended %s before it started %s", g.Ended.Format(time.RFC3339), g.Started.Format(time.RFC3339))
	case g.ThinkTotal < 0 || g.ThinkMax < 0 || g.ThinkMax > g.ThinkTotal:
		return bad("think times %v (max %v) out of range", g.ThinkTotal, g.ThinkMax)
	}
	for k, n := range g.Sources {
		if k == "" || strings.ContainsAny(k, "=, ") || n < 0 || n > maxPlies {
			return bad("move source %q=%d out of range", k, n)
		}
	}
	return nil
}

func (o *Overhead) check() error {
	if len(o.Samples) > maxOverheadSamples {
		return fmt.Errorf("overhead: %d samples, at most %d", len(o.Samples), maxOverheadSamples)
	}
	if o.Estimate < 0 || o.Estimate > maxDuration {
		return fmt.Errorf("overhead: estimate %v out of range 0..%v", o.Estimate, maxDuration)
	}
	for _, d := range o.Samples {
		if d < 0 || d > maxDuration {
			return fmt.Errorf("overhead: sample %v out of range 0..%v", d, maxDuration)
		}
	}
	return nil
}

// encodeSources writes move sources as "book=4,engine=38" (sorted).
func encodeSources(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(m[k]))
	}
	return b.String()
}

// decodeSources reads what encodeSources wrote.
func decodeSources(s string) (map[string]int, error) {
	if s == "" {
		return nil, nil
	}
	m := map[string]int{}
	for part := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(v)
		if !ok || k == "" || err != nil {
			return nil, fmt.Errorf("move sources %q: %q is not name=count", s, part)
		}
		m[k] = n
	}
	return m, nil
}

func encodeFlags(f []string) string { return strings.Join(f, ",") }

func decodeFlags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// encodeSamples writes durations as comma-separated microseconds.
func encodeSamples(d []time.Duration) string {
	var b strings.Builder
	for i, x := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(x.Microseconds(), 10))
	}
	return b.String()
}

func decodeSamples(s string) ([]time.Duration, error) {
	if s == "" {
		return nil, nil
	}
	var out []time.Duration
	for part := range strings.SplitSeq(s, ",") {
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("overhead samples: %q is not a number of microseconds", part)
		}
		if n < 0 || n > maxDuration.Microseconds() {
			return nil, fmt.Errorf("overhead samples: %d µs out of range 0..%d", n, maxDuration.Microseconds())
		}
		out = append(out, time.Duration(n)*time.Microsecond)
	}
	return out, nil
}

// ms and fromMS convert times to the integer milliseconds stored in rows.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}
