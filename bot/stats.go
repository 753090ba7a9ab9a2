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

	internal   latencyRing // event received → move request sent, minus the search
	roundTrip  latencyRing // move request sent → Lichess's answer
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

// LatencySummary describes a latency over the moves of a run.
type LatencySummary struct {
	Count  uint64        `json:"count"`
	Median time.Duration `json:"median_ns"`
	P90    time.Duration `json:"p90_ns"`
	P99    time.Duration `json:"p99_ns"`
	Max    time.Duration `json:"max_ns"`
	Mean   time.Duration `json:"mean_ns"`
}

// latencyRing keeps the latest samples of a latency plus running totals.
type latencyRing struct {
	samples []time.Duration // a ring once full
	next    int
	count   uint64
	sum     time.Duration
	max     time.Duration
}

func (l *latencyRing) add(d time.Duration) {
	l.count++
	l.sum += d
	l.max = max(l.max, d)
	if len(l.samples) < maxLatencySamples {
		l.samples = append(l.samples, d)
		return
	}
	l.samples[l.next] = d
	l.next = (l.next + 1) % maxLatencySamples
}

// summary sorts a copy of the samples; call it without holding locks that
// the hot path needs for long.
func summarize(sample []time.Duration, count uint64, sum, maxD time.Duration) LatencySummary {
	out := LatencySummary{Count: count, Max: maxD}
	if count > 0 {
		out.Mean = sum / time.Duration(count)
	}
	if len(sample) == 0 {
		return out
	}
	slices.Sort(sample)
	q := func(f float64) time.Duration { return sample[min(len(sample)-1, int(f*float64(len(sample))))] }
	out.Median, out.P90, out.P99 = q(0.5), q(0.9), q(0.99)
	return out
}

func newStats() *stats {
	return &stats{started: time.Now(), challenges: map[string]uint64{}, results: map[string]uint64{},
		live: map[string]*LiveGame{}}
}

// addLatency records one move: internal is the time the bot spent outside
// the search (event received → search start, plus search end → move
// request sent); roundTrip is the move request's round trip.
func (s *stats) addLatency(internal, roundTrip time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.moves++
	s.internal.add(internal)
	s.roundTrip.add(roundTrip)
}

func (s *stats) count(f func(s *stats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// Latency returns the summaries of the bot's own latency per move and of
// the move requests' round trips.
func (s *stats) Latency() (internal, roundTrip LatencySummary) {
	s.mu.Lock()
	i, r := s.internal, s.roundTrip
	is, rs := slices.Clone(i.samples), slices.Clone(r.samples)
	s.mu.Unlock()
	return summarize(is, i.count, i.sum, i.max), summarize(rs, r.count, r.sum, r.max)
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
	// Latency is the time the bot adds to a move beyond the search, up to
	// sending the move; RoundTrip is the move request's round trip.
	Latency   LatencySummary `json:"latency"`
	RoundTrip LatencySummary `json:"move_round_trip"`
}

// Snapshot returns a copy of the current figures.
func (s *stats) Snapshot() Snapshot {
	lat, rtt := s.Latency()
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := Snapshot{
		Healthy: s.connected, Uptime: time.Since(s.started).Round(time.Second).String(),
		Recent: slices.Clone(s.recent), Results: mapsClone(s.results), FlagLosses: s.flagLosses,
		Challenges: mapsClone(s.challenges), Moves: s.moves, MoveErrors: s.moveErrors,
		PonderHit: s.ponderHit, PonderMiss: s.ponderMiss, Overhead: s.overhead, Latency: lat, RoundTrip: rtt,
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
	p("# HELP ponderosa_move_latency_seconds Time the bot adds to a move beyond the search (event received to move sent).")
	p("# TYPE ponderosa_move_latency_seconds summary")
	l := snap.Latency
	p("ponderosa_move_latency_seconds{quantile=\"0.5\"} %g", l.Median.Seconds())
	p("ponderosa_move_latency_seconds{quantile=\"0.9\"} %g", l.P90.Seconds())
	p("ponderosa_move_latency_seconds{quantile=\"0.99\"} %g", l.P99.Seconds())
	p("ponderosa_move_latency_seconds_sum %g", (l.Mean * time.Duration(l.Count)).Seconds())
	p("ponderosa_move_latency_seconds_count %d", l.Count)
	p("# HELP ponderosa_move_round_trip_seconds Round trip of the move requests.")
	p("# TYPE ponderosa_move_round_trip_seconds summary")
	r := snap.RoundTrip
	p("ponderosa_move_round_trip_seconds{quantile=\"0.5\"} %g", r.Median.Seconds())
	p("ponderosa_move_round_trip_seconds{quantile=\"0.9\"} %g", r.P90.Seconds())
	p("ponderosa_move_round_trip_seconds{quantile=\"0.99\"} %g", r.P99.Seconds())
	p("ponderosa_move_round_trip_seconds_sum %g", (r.Mean * time.Duration(r.Count)).Seconds())
	p("ponderosa_move_round_trip_seconds_count %d", r.Count)
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
