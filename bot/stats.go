package bot

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"
)

// maxLatencySamples bounds the latency samples kept for percentiles.
const maxLatencySamples = 1 << 16

// stats collects what the status endpoint and the metrics report. It is
// safe for concurrent use.
type stats struct {
	mu      sync.Mutex
	started time.Time

	latency    []time.Duration // bot-added latency per move, a ring once full
	latNext    int
	latCount   uint64
	latSum     time.Duration
	latMax     time.Duration
	moves      uint64
	moveErrors uint64
	ponderHit  uint64
	ponderMiss uint64

	challenges map[string]uint64 // "accept", "queue", "decline:<reason>"
	results    map[string]uint64 // win, loss, draw, aborted
	flagLosses uint64
	recent     []GameResult
	live       map[string]*LiveGame
	overhead   time.Duration
	connected  bool
}

// LiveGame is a game in progress, as the status endpoint shows it.
type LiveGame struct {
	ID       string    `json:"id"`
	Opponent string    `json:"opponent"`
	Color    string    `json:"color"`
	Speed    string    `json:"speed"`
	Variant  string    `json:"variant"`
	Ply      int       `json:"ply"`
	Started  time.Time `json:"started"`
}

// GameResult is a finished game.
type GameResult struct {
	ID       string    `json:"id"`
	Opponent string    `json:"opponent"`
	Color    string    `json:"color"`
	Result   string    `json:"result"` // win, loss, draw, aborted
	Status   string    `json:"status"` // Lichess status
	Moves    int       `json:"moves"`  // plies
	Ended    time.Time `json:"ended"`
}

// LatencySummary describes the latency the bot adds to each move beyond the
// engine's search: from receiving the gameState to starting the search, plus
// from the end of the search to Lichess's answer to the move.
type LatencySummary struct {
	Count  uint64        `json:"count"`
	Median time.Duration `json:"median_ns"`
	P90    time.Duration `json:"p90_ns"`
	P99    time.Duration `json:"p99_ns"`
	Max    time.Duration `json:"max_ns"`
	Mean   time.Duration `json:"mean_ns"`
}

func newStats() *stats {
	return &stats{started: time.Now(), challenges: map[string]uint64{}, results: map[string]uint64{},
		live: map[string]*LiveGame{}}
}

func (s *stats) addLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.moves++
	s.latCount++
	s.latSum += d
	s.latMax = max(s.latMax, d)
	if len(s.latency) < maxLatencySamples {
		s.latency = append(s.latency, d)
		return
	}
	s.latency[s.latNext] = d
	s.latNext = (s.latNext + 1) % maxLatencySamples
}

func (s *stats) count(f func(s *stats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// Latency returns the latency summary so far.
func (s *stats) Latency() LatencySummary {
	s.mu.Lock()
	sample := slices.Clone(s.latency)
	sum := LatencySummary{Count: s.latCount, Max: s.latMax}
	if s.latCount > 0 {
		sum.Mean = s.latSum / time.Duration(s.latCount)
	}
	s.mu.Unlock()
	if len(sample) == 0 {
		return sum
	}
	slices.Sort(sample)
	q := func(f float64) time.Duration { return sample[min(len(sample)-1, int(f*float64(len(sample))))] }
	sum.Median, sum.P90, sum.P99 = q(0.5), q(0.9), q(0.99)
	return sum
}

func (s *stats) gameStarted(g LiveGame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live[g.ID] = &g
}

func (s *stats) gamePly(id string, ply int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.live[id]; g != nil {
		g.Ply = ply
	}
}

func (s *stats) gameEnded(id string, r *GameResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, id)
	if r == nil {
		return
	}
	s.results[r.Result]++
	if r.Result == "loss" && r.Status == "outoftime" {
		s.flagLosses++
	}
	s.recent = append(s.recent, *r)
	if len(s.recent) > 50 {
		s.recent = s.recent[len(s.recent)-50:]
	}
}

// Snapshot is the status endpoint's JSON document.
type Snapshot struct {
	Healthy    bool              `json:"healthy"`
	Uptime     string            `json:"uptime"`
	Live       []LiveGame        `json:"live_games"`
	Recent     []GameResult      `json:"recent_results"`
	Results    map[string]uint64 `json:"results"`
	FlagLosses uint64            `json:"flag_losses"`
	Challenges map[string]uint64 `json:"challenges"`
	Moves      uint64            `json:"moves"`
	MoveErrors uint64            `json:"move_errors"`
	PonderHit  uint64            `json:"ponder_hits"`
	PonderMiss uint64            `json:"ponder_misses"`
	Overhead   time.Duration     `json:"move_overhead_ns"`
	Latency    LatencySummary    `json:"latency"`
}

// Snapshot returns a copy of the current figures.
func (s *stats) Snapshot() Snapshot {
	lat := s.Latency()
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := Snapshot{
		Healthy: s.connected, Uptime: time.Since(s.started).Round(time.Second).String(),
		Recent: slices.Clone(s.recent), Results: mapsClone(s.results), FlagLosses: s.flagLosses,
		Challenges: mapsClone(s.challenges), Moves: s.moves, MoveErrors: s.moveErrors,
		PonderHit: s.ponderHit, PonderMiss: s.ponderMiss, Overhead: s.overhead, Latency: lat,
	}
	for _, g := range s.live {
		snap.Live = append(snap.Live, *g)
	}
	sort.Slice(snap.Live, func(i, j int) bool { return snap.Live[i].ID < snap.Live[j].ID })
	return snap
}

func mapsClone(m map[string]uint64) map[string]uint64 {
	out := make(map[string]uint64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// writeMetrics writes the Prometheus text exposition format.
func (s *stats) writeMetrics(w io.Writer) {
	snap := s.Snapshot()
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	healthy := 0
	if snap.Healthy {
		healthy = 1
	}
	p("# HELP ponderosa_up 1 while the event stream is connected.")
	p("# TYPE ponderosa_up gauge")
	p("ponderosa_up %d", healthy)
	p("# HELP ponderosa_games_active Games in progress.")
	p("# TYPE ponderosa_games_active gauge")
	p("ponderosa_games_active %d", len(snap.Live))
	p("# HELP ponderosa_games_total Finished games by result.")
	p("# TYPE ponderosa_games_total counter")
	for _, r := range []string{"win", "loss", "draw", "aborted"} {
		p("ponderosa_games_total{result=%q} %d", r, snap.Results[r])
	}
	p("# HELP ponderosa_flag_losses_total Games lost on time.")
	p("# TYPE ponderosa_flag_losses_total counter")
	p("ponderosa_flag_losses_total %d", snap.FlagLosses)
	p("# HELP ponderosa_challenges_total Challenges received by decision.")
	p("# TYPE ponderosa_challenges_total counter")
	keys := make([]string, 0, len(snap.Challenges))
	for k := range snap.Challenges {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p("ponderosa_challenges_total{decision=%q} %d", k, snap.Challenges[k])
	}
	p("# HELP ponderosa_moves_total Moves posted.")
	p("# TYPE ponderosa_moves_total counter")
	p("ponderosa_moves_total %d", snap.Moves)
	p("# HELP ponderosa_move_errors_total Moves Lichess rejected or that failed to post.")
	p("# TYPE ponderosa_move_errors_total counter")
	p("ponderosa_move_errors_total %d", snap.MoveErrors)
	p("# HELP ponderosa_ponder_total Ponder searches by outcome.")
	p("# TYPE ponderosa_ponder_total counter")
	p("ponderosa_ponder_total{outcome=\"hit\"} %d", snap.PonderHit)
	p("ponderosa_ponder_total{outcome=\"miss\"} %d", snap.PonderMiss)
	p("# HELP ponderosa_move_overhead_seconds Learned time lost per move outside the search.")
	p("# TYPE ponderosa_move_overhead_seconds gauge")
	p("ponderosa_move_overhead_seconds %g", snap.Overhead.Seconds())
	p("# HELP ponderosa_move_latency_seconds Latency the bot adds to a move beyond the search (event received to move posted).")
	p("# TYPE ponderosa_move_latency_seconds summary")
	l := snap.Latency
	p("ponderosa_move_latency_seconds{quantile=\"0.5\"} %g", l.Median.Seconds())
	p("ponderosa_move_latency_seconds{quantile=\"0.9\"} %g", l.P90.Seconds())
	p("ponderosa_move_latency_seconds{quantile=\"0.99\"} %g", l.P99.Seconds())
	p("ponderosa_move_latency_seconds_sum %g", (l.Mean * time.Duration(l.Count)).Seconds())
	p("ponderosa_move_latency_seconds_count %d", l.Count)
}

// handler serves /healthz, /status (JSON) and /metrics.
func (s *stats) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		ok := s.connected
		s.mu.Unlock()
		if !ok {
			http.Error(w, "event stream not connected", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(s.Snapshot())
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		s.writeMetrics(w)
	})
	return mux
}
