package bot

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// maxLatencySamples bounds the latency samples kept for percentiles.
const maxLatencySamples = 1 << 16

// stats collects what the status endpoint and the metrics report. It is
// safe for concurrent use.
type stats struct {
	mu      sync.Mutex
	started time.Time
	memory  func() store.Health // the store's health; nil = none
	// correspondence counts the correspondence games (correspondence.go);
	// nil = none. It takes the service's lock: call it without s.mu.
	correspondence func() CorrespondenceStatus

	internal    latencyRing // event received → move request sent, minus the search
	roundTrip   latencyRing // move request sent → Lichess's answer
	moves       uint64
	moveErrors  uint64
	moveRetries uint64 // moves posted again after a 429
	ponderHit   uint64
	ponderMiss  uint64
	// engineFaults counts the external engine's faults by kind (exit,
	// hang, flood, malformed, illegal, handshake, start, restart, ...);
	// fallbackMoves counts moves the embedded engine played in its place.
	engineFaults  map[string]uint64
	fallbackMoves uint64
	// moveSources counts posted moves by where they came from (engine,
	// book, forced, tablebase, cloud, explorer).
	moveSources map[string]uint64

	challenges map[string]uint64 // "accept", "queue", "decline:<reason>"
	results    map[string]uint64 // win, loss, draw, aborted
	flagLosses uint64
	recent     []GameResult
	live       map[string]*LiveGame
	overhead   time.Duration
	running    bool                       // the event loop runs
	stream     func() lichess.StreamState // the event stream's real state

	// Latency summaries are cached: a flood of /status or /metrics requests
	// sorts the samples at most once per summaryEvery.
	summaryAt           time.Time
	summaryN            [2]uint64 // sample counts the cache was made from
	cachedLat, cachedRT LatencySummary
	summaries           uint64 // sorts done (tests)

	botQuotaUntil time.Time // bot-vs-bot games used up until (see limits.go)
}

// summaryEvery is the most often the latency samples are sorted again.
const summaryEvery = 2 * time.Second

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

// maxRecent is how many finished games the status endpoint lists.
const maxRecent = 50

// restoreRecent lists a game of an earlier run among the recent results
// (oldest first); it counts nowhere else.
func (s *stats) restoreRecent(r GameResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recent = append(s.recent, r)
	if len(s.recent) > maxRecent {
		s.recent = s.recent[len(s.recent)-maxRecent:]
	}
}

func newStats(stream func() lichess.StreamState) *stats {
	return &stats{started: time.Now(), challenges: map[string]uint64{}, results: map[string]uint64{}, engineFaults: map[string]uint64{},
		moveSources: map[string]uint64{}, live: map[string]*LiveGame{}, stream: stream}
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
// the move requests' round trips. They are recomputed (a sort of up to
// 2 × 65536 samples) only when there are new samples and the last
// computation is older than summaryEvery.
func (s *stats) Latency() (internal, roundTrip LatencySummary) {
	s.mu.Lock()
	i, r := s.internal, s.roundTrip
	n := [2]uint64{i.count, r.count}
	if n == s.summaryN || time.Since(s.summaryAt) < summaryEvery && !s.summaryAt.IsZero() {
		defer s.mu.Unlock()
		return s.cachedLat, s.cachedRT
	}
	is, rs := slices.Clone(i.samples), slices.Clone(r.samples)
	s.summaryAt, s.summaryN = time.Now(), n
	s.summaries++
	s.mu.Unlock()
	lat, rt := summarize(is, i.count, i.sum, i.max), summarize(rs, r.count, r.sum, r.max)
	s.mu.Lock()
	if s.summaryN == n {
		s.cachedLat, s.cachedRT = lat, rt
	}
	s.mu.Unlock()
	return lat, rt
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
	if len(s.recent) > maxRecent {
		s.recent = s.recent[len(s.recent)-maxRecent:]
	}
}

// Snapshot is the status endpoint's JSON document.
type Snapshot struct {
	// Healthy is true while the service runs and its event stream is open.
	Healthy bool `json:"healthy"`
	// EventStream is the event stream's state: connected or reconnecting
	// since when, the last data and event, the last error.
	EventStream lichess.StreamState `json:"event_stream"`
	Uptime      string              `json:"uptime"`
	Live        []LiveGame          `json:"live_games"`
	Recent      []GameResult        `json:"recent_results"`
	Results     map[string]uint64   `json:"results"`
	FlagLosses  uint64              `json:"flag_losses"`
	Challenges  map[string]uint64   `json:"challenges"`
	Moves       uint64              `json:"moves"`
	MoveErrors  uint64              `json:"move_errors"`
	MoveRetries uint64              `json:"move_retries"` // moves posted again after a 429
	PonderHit   uint64              `json:"ponder_hits"`
	PonderMiss  uint64              `json:"ponder_misses"`
	Overhead    time.Duration       `json:"move_overhead_ns"`
	// EngineFaults counts the external engine's faults by kind;
	// FallbackMoves the moves the embedded engine played in its place.
	EngineFaults  map[string]uint64 `json:"engine_faults"`
	FallbackMoves uint64            `json:"fallback_moves"`
	// MoveSources counts posted moves by source (engine, book, forced,
	// tablebase, cloud, explorer).
	MoveSources map[string]uint64 `json:"move_sources"`
	// Latency is the time the bot adds to a move beyond the search, up to
	// sending the move; RoundTrip is the move request's round trip.
	Latency   LatencySummary `json:"latency"`
	RoundTrip LatencySummary `json:"move_round_trip"`
	// Limits are Lichess's limits in force, e.g. "bot-vs-bot games
	// exhausted until 17:05" (local time).
	Limits []string `json:"limits,omitempty"`
	// MemoryDegraded says why the bot's memory across restarts is not
	// being saved (bot/store); empty when it is.
	MemoryDegraded string `json:"memory_degraded,omitempty"`
	// Opponents are the results against each opponent over the games the
	// bot remembers in memory (the last 30 days, at most 5000 games), the
	// most games first, at most 20 (Service.Snapshot fills it).
	Opponents []store.Tally `json:"opponents,omitempty"`
	// Correspondence counts the correspondence and unlimited games.
	Correspondence CorrespondenceStatus `json:"correspondence"`
}

// CorrespondenceStatus counts the correspondence and unlimited games in
// progress (Games, of at most Max), those open now (Open, at most Slots)
// and those waiting to be opened for our turn (Queued).
type CorrespondenceStatus struct {
	Games  int `json:"games"`
	Max    int `json:"max"`
	Open   int `json:"open"`
	Slots  int `json:"slots"`
	Queued int `json:"queued"`
}

// Snapshot returns a copy of the current figures.
func (s *stats) Snapshot() Snapshot {
	lat, rtt := s.Latency()
	var corr CorrespondenceStatus
	if s.correspondence != nil {
		corr = s.correspondence()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var st lichess.StreamState
	if s.stream != nil {
		st = s.stream()
	}
	snap := Snapshot{
		Healthy: s.running && st.Connected, EventStream: st, Uptime: time.Since(s.started).Round(time.Second).String(),
		Recent: slices.Clone(s.recent), Results: maps.Clone(s.results), FlagLosses: s.flagLosses,
		Challenges: maps.Clone(s.challenges), Moves: s.moves, MoveErrors: s.moveErrors, MoveRetries: s.moveRetries,
		PonderHit: s.ponderHit, PonderMiss: s.ponderMiss, Overhead: s.overhead, Latency: lat, RoundTrip: rtt,
		Limits: s.limitsLocked(time.Now()), EngineFaults: maps.Clone(s.engineFaults), FallbackMoves: s.fallbackMoves,
		MoveSources: maps.Clone(s.moveSources), Correspondence: corr,
	}
	if s.memory != nil {
		snap.MemoryDegraded = s.memory().Reason
	}
	for _, g := range s.live {
		snap.Live = append(snap.Live, *g)
	}
	sort.Slice(snap.Live, func(i, j int) bool { return snap.Live[i].ID < snap.Live[j].ID })
	return snap
}

// writeMetrics writes the Prometheus text exposition format.
func (s *stats) writeMetrics(w io.Writer) {
	snap := s.Snapshot()
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	// metric writes a metric's HELP and TYPE lines.
	metric := func(name, typ, help string) {
		p("# HELP %s %s", name, help)
		p("# TYPE %s %s", name, typ)
	}
	healthy := 0
	if snap.Healthy {
		healthy = 1
	}
	metric("ponderosa_up", "gauge", "1 while the service runs and its event stream is connected (not while it reconnects).")
	p("ponderosa_up %d", healthy)
	metric("ponderosa_event_stream_last_event_timestamp_seconds", "gauge", "When the last event arrived on the event stream (0: none yet).")
	p("ponderosa_event_stream_last_event_timestamp_seconds %d", unixOrZero(snap.EventStream.LastEvent))
	metric("ponderosa_event_stream_since_timestamp_seconds", "gauge", "When the event stream last connected or went down.")
	p("ponderosa_event_stream_since_timestamp_seconds %d", unixOrZero(snap.EventStream.Since))
	metric("ponderosa_games_active", "gauge", "Games in progress.")
	p("ponderosa_games_active %d", len(snap.Live))
	metric("ponderosa_correspondence_games", "gauge", "Correspondence and unlimited games in progress (open or closed).")
	p("ponderosa_correspondence_games %d", snap.Correspondence.Games)
	metric("ponderosa_correspondence_open", "gauge", "Correspondence games open now (stream, runner, engine).")
	p("ponderosa_correspondence_open %d", snap.Correspondence.Open)
	metric("ponderosa_games_total", "counter", "Finished games by result.")
	for _, r := range []string{"win", "loss", "draw", "aborted"} {
		p("ponderosa_games_total{result=%q} %d", r, snap.Results[r])
	}
	metric("ponderosa_flag_losses_total", "counter", "Games lost on time.")
	p("ponderosa_flag_losses_total %d", snap.FlagLosses)
	// labelled writes a counter's values by label, in label order.
	labelled := func(name, label string, m map[string]uint64) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			p("%s{%s=%q} %d", name, label, k, m[k])
		}
	}
	metric("ponderosa_challenges_total", "counter", "Challenges received by decision.")
	labelled("ponderosa_challenges_total", "decision", snap.Challenges)
	metric("ponderosa_bot_games_exhausted", "gauge", "1 while Lichess's daily bot-vs-bot game quota is used up.")
	exhausted := 0
	if len(snap.Limits) > 0 {
		exhausted = 1
	}
	p("ponderosa_bot_games_exhausted %d", exhausted)
	metric("ponderosa_moves_total", "counter", "Moves posted.")
	p("ponderosa_moves_total %d", snap.Moves)
	metric("ponderosa_moves_by_source_total", "counter", "Moves posted by where they came from (engine, book, forced, tablebase, cloud, explorer).")
	labelled("ponderosa_moves_by_source_total", "source", snap.MoveSources)
	metric("ponderosa_move_errors_total", "counter", "Moves Lichess rejected or that failed to post.")
	p("ponderosa_move_errors_total %d", snap.MoveErrors)
	metric("ponderosa_move_retries_total", "counter", "Moves posted again after a 429 (retried within the game's clock).")
	p("ponderosa_move_retries_total %d", snap.MoveRetries)
	metric("ponderosa_ponder_total", "counter", "Ponder searches by outcome.")
	p("ponderosa_ponder_total{outcome=\"hit\"} %d", snap.PonderHit)
	p("ponderosa_ponder_total{outcome=\"miss\"} %d", snap.PonderMiss)
	metric("ponderosa_engine_faults_total", "counter", "Faults of the external engine by kind (each kills and restarts its process).")
	labelled("ponderosa_engine_faults_total", "fault", snap.EngineFaults)
	metric("ponderosa_engine_fallback_moves_total", "counter", "Moves the embedded engine played for a faulty external engine.")
	p("ponderosa_engine_fallback_moves_total %d", snap.FallbackMoves)
	metric("ponderosa_move_overhead_seconds", "gauge", "Learned time lost per move outside the search.")
	p("ponderosa_move_overhead_seconds %g", snap.Overhead.Seconds())
	summary := func(name, help string, l LatencySummary) {
		metric(name, "summary", help)
		p("%s{quantile=\"0.5\"} %g", name, l.Median.Seconds())
		p("%s{quantile=\"0.9\"} %g", name, l.P90.Seconds())
		p("%s{quantile=\"0.99\"} %g", name, l.P99.Seconds())
		p("%s_sum %g", name, (l.Mean * time.Duration(l.Count)).Seconds())
		p("%s_count %d", name, l.Count)
	}
	summary("ponderosa_move_latency_seconds", "Time the bot adds to a move beyond the search (event received to move sent).", snap.Latency)
	summary("ponderosa_move_round_trip_seconds", "Round trip of the move requests.", snap.RoundTrip)
}

// handler serves /healthz, /status (JSON) and /metrics.
func (s *stats) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		running := s.running
		s.mu.Unlock()
		var st lichess.StreamState
		if s.stream != nil {
			st = s.stream()
		}
		switch {
		case !running:
			http.Error(w, "not running", http.StatusServiceUnavailable)
		case !st.Connected && st.Since.IsZero():
			http.Error(w, "event stream connecting", http.StatusServiceUnavailable)
		case !st.Connected:
			msg := fmt.Sprintf("event stream down, reconnecting since %s (%s ago)", st.Since.UTC().Format(time.RFC3339), time.Since(st.Since).Round(time.Second))
			if st.LastError != "" {
				msg += ": " + st.LastError
			}
			http.Error(w, msg, http.StatusServiceUnavailable)
		default:
			// A store that failed does not stop play: the bot is healthy,
			// and says what it no longer remembers.
			if s.memory != nil {
				if h := s.memory(); h.Degraded {
					io.WriteString(w, "degraded: "+h.Reason+"\n")
					return
				}
			}
			io.WriteString(w, "ok\n")
		}
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

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}
