// Package live is the status page of the bot: the snapshot types that the
// bot publishes, the page that draws them (boards as SVG from Go templates,
// every asset embedded), and the fan-out of updates to the page's
// Server-Sent Events stream.
//
// The package knows nothing of Lichess or of the engine: the bot fills a
// Snapshot and calls Hub.Publish with one encoded Frame per update; the
// handler serves the page (correct with JavaScript off), the stream, and the
// assets. A reader that falls behind is dropped, never waited for.
package live

import (
	"time"
)

// Snapshot is everything the page shows at one instant.
type Snapshot struct {
	At    time.Time  `json:"at"`
	Bot   BotView    `json:"bot"`
	Games []GameView `json:"games"`
}

// BotView is the bot-level part of a snapshot.
type BotView struct {
	Account string    `json:"account,omitempty"`
	Version string    `json:"version"`
	Started time.Time `json:"started"`
	// Stream is the state of the Lichess event stream: "connected",
	// "connecting", "reconnecting" or "stopped", since StreamSince;
	// StreamError is why it last dropped.
	Stream      string    `json:"stream"`
	StreamSince time.Time `json:"stream_since"`
	StreamError string    `json:"stream_error,omitempty"`
	// MemoryDegraded, when set, says why what the bot learns is no longer
	// kept across restarts (the store's disk failed).
	MemoryDegraded string `json:"memory_degraded,omitempty"`
	Running        int    `json:"games_running"`
	Pending        int    `json:"challenges_accepted"` // accepted, waiting for gameStart
	Queue          int    `json:"challenges_queued"`
	MaxGames       int    `json:"max_games"`
	// Challenges are the latest challenges, newest first.
	Challenges []ChallengeView `json:"recent_challenges"`
	// Results are the latest finished games, newest first.
	Results []ResultView `json:"recent_results"`
	// Opponents are the results per opponent over the games the bot
	// remembers, the most games first.
	Opponents []OpponentView `json:"opponents,omitempty"`
	Wins      uint64         `json:"wins"`
	Losses    uint64         `json:"losses"`
	Draws     uint64         `json:"draws"`
	// Moves are the latest moves posted, oldest first, for the latency
	// chart.
	Moves []MoveSample `json:"recent_moves"`
	// Overhead is the move overhead learned so far.
	Overhead time.Duration `json:"move_overhead_ns"`
	// Quota lists the limits in force: quotas used up and request
	// families paused by a 429 (empty when none).
	Quota []QuotaView `json:"limits"`
	// Tournaments are the tournaments the bot is set to join.
	Tournaments []TournamentView `json:"tournaments,omitempty"`
}

// TournamentView is one tournament the bot joins.
type TournamentView struct {
	Tournament string `json:"tournament"` // kind:id (never the password)
	// State is joining, joined, playing, retrying, refused, finished or
	// withdrawn (at shutdown).
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

// QuotaView is one limit in force: a quota or a request family, paused
// until Paused.
type QuotaView struct {
	Name   string    `json:"name"`
	Paused time.Time `json:"until"`
	Note   string    `json:"note,omitempty"`
}

// ChallengeView is a challenge the bot received and what it decided.
type ChallengeView struct {
	ID          string    `json:"id"`
	URL         string    `json:"url,omitempty"`
	Challenger  string    `json:"challenger"`
	Title       string    `json:"title,omitempty"`
	Rating      int       `json:"rating,omitempty"`
	Variant     string    `json:"variant"`
	TimeControl string    `json:"time_control"`
	Rated       bool      `json:"rated"`
	Decision    string    `json:"decision"` // accept, queue, decline
	Reason      string    `json:"reason,omitempty"`
	At          time.Time `json:"at"`
}

// ResultView is a finished game.
type ResultView struct {
	ID       string    `json:"id"`
	URL      string    `json:"url,omitempty"`
	Opponent string    `json:"opponent"`
	Color    string    `json:"color"`
	Result   string    `json:"result"` // win, loss, draw, aborted
	Status   string    `json:"status"`
	Plies    int       `json:"plies"`
	Ended    time.Time `json:"ended"`
}

// OpponentView is the results against one opponent.
type OpponentView struct {
	Name   string `json:"name"`
	URL    string `json:"url,omitempty"`
	Games  int    `json:"games"`
	Wins   int    `json:"wins"`
	Draws  int    `json:"draws"`
	Losses int    `json:"losses"`
	// Score is the points per game, 0 to 1.
	Score float64 `json:"score"`
	// Performance is 0 when no opponent rating is known.
	Performance int `json:"performance"`
}

// MoveSample is one posted move: the time the bot added beyond the search,
// the move request's round trip, and the learned overhead after it.
type MoveSample struct {
	GameID    string        `json:"game_id"`
	Ply       int           `json:"ply"`
	Latency   time.Duration `json:"latency_ns"`
	RoundTrip time.Duration `json:"round_trip_ns"`
	Overhead  time.Duration `json:"overhead_ns"`
}

// PlayerView is one side of a game.
type PlayerView struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Rating      int    `json:"rating,omitempty"`
	Provisional bool   `json:"provisional,omitempty"`
}

// EvalView is the engine's latest report for a game.
type EvalView struct {
	// CP is the score in centipawns from White's point of view; Mate,
	// when not 0, is a mate in that many moves (positive: White mates).
	CP    int      `json:"cp"`
	Mate  int      `json:"mate,omitempty"`
	Depth int      `json:"depth"`
	Nodes uint64   `json:"nodes"`
	NPS   uint64   `json:"nps"`
	PV    []string `json:"pv"` // SAN
	// Ponder is set while the report comes from a search on the
	// opponent's time.
	Ponder bool `json:"ponder,omitempty"`
}

// GameView is a game in progress.
type GameView struct {
	ID          string     `json:"id"`
	URL         string     `json:"url,omitempty"`
	White       PlayerView `json:"white"`
	Black       PlayerView `json:"black"`
	Color       string     `json:"color"` // ours: white or black
	Variant     string     `json:"variant"`
	Speed       string     `json:"speed,omitempty"`
	TimeControl string     `json:"time_control,omitempty"`
	Rated       bool       `json:"rated"`
	// FEN is the current position; LastMove the last move in UCI ("" at
	// the start), highlighted on the board.
	FEN      string   `json:"fen"`
	LastMove string   `json:"last_move,omitempty"`
	Moves    []string `json:"moves"` // SAN
	// Clocks as of ClockAt; the side to move's clock runs when
	// ClockRunning. Timed is false for correspondence and unlimited games.
	Timed        bool          `json:"timed"`
	WhiteClock   time.Duration `json:"white_clock_ns"`
	BlackClock   time.Duration `json:"black_clock_ns"`
	ClockAt      time.Time     `json:"clock_at"`
	ClockRunning bool          `json:"clock_running"`
	WhiteToMove  bool          `json:"white_to_move"`
	Eval         *EvalView     `json:"eval,omitempty"`
	// Source says where our last move came from (engine, book, forced...).
	Source     string    `json:"source,omitempty"`
	PonderHits int       `json:"ponder_hits"`
	PonderMiss int       `json:"ponder_misses"`
	Started    time.Time `json:"started"`
}

// Clone returns a copy of s that shares no slices with it.
func (s Snapshot) Clone() Snapshot {
	out := s
	out.Bot = s.Bot.clone()
	out.Games = make([]GameView, len(s.Games))
	for i, g := range s.Games {
		out.Games[i] = g.Clone()
	}
	return out
}

func (b BotView) clone() BotView {
	out := b
	out.Challenges = append([]ChallengeView(nil), b.Challenges...)
	out.Results = append([]ResultView(nil), b.Results...)
	out.Moves = append([]MoveSample(nil), b.Moves...)
	out.Quota = append([]QuotaView(nil), b.Quota...)
	out.Tournaments = append([]TournamentView(nil), b.Tournaments...)
	return out
}

// Clone returns a copy of g that shares no slices with it.
func (g GameView) Clone() GameView {
	out := g
	out.Moves = append([]string(nil), g.Moves...)
	if g.Eval != nil {
		e := *g.Eval
		e.PV = append([]string(nil), g.Eval.PV...)
		out.Eval = &e
	}
	return out
}
