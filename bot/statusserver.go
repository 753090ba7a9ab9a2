package bot

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/live"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// liveSnapshot composes what the status page and /status show now.
func (s *Service) liveSnapshot() live.Snapshot {
	now := time.Now()
	snap := live.Snapshot{At: now}
	s.pub.fill(&snap)
	b := &snap.Bot
	b.Version = s.version
	if s.me != nil {
		b.Account = s.me.Username
	}
	if s.stats.memory != nil {
		if h := s.stats.memory(); h.Degraded {
			b.MemoryDegraded = h.Reason
		}
	}
	s.mu.Lock()
	b.Running, b.Pending, b.Queue = len(s.games), len(s.pending), len(s.queue)
	playing := map[string]bool{}
	for _, tid := range s.tourneyGames {
		playing[tid] = true
	}
	s.mu.Unlock()
	if s.tours != nil {
		b.Tournaments = s.tours.views(playing)
	}
	b.MaxGames = s.cfg.Policy.MaxGames
	var st lichess.StreamState // read, as stats.Snapshot does, without its latency percentiles
	if s.stats.stream != nil {
		st = s.stats.stream()
	}
	s.stats.mu.Lock()
	switch {
	case !s.stats.running:
		b.Stream = "stopped"
	case st.Connected:
		b.Stream = "connected"
	case st.Since.IsZero():
		b.Stream = "connecting"
	default:
		b.Stream = "reconnecting"
	}
	b.StreamSince, b.StreamError = st.Since, st.LastError
	if until := s.stats.botQuotaUntil; now.Before(until) {
		b.Quota = append(b.Quota, live.QuotaView{Name: "bot-vs-bot games (daily)", Paused: until, Note: "used up: bot challenges declined with \"later\""})
	}
	b.Started = s.stats.started
	b.Wins, b.Losses, b.Draws = s.stats.results["win"], s.stats.results["loss"], s.stats.results["draw"]
	b.Overhead = s.stats.overhead
	recent := s.stats.recent
	for i := len(recent) - 1; i >= 0 && len(b.Results) < maxRecentResults; i-- {
		r := recent[i]
		b.Results = append(b.Results, live.ResultView{ID: r.ID, URL: s.gameURL(r.ID), Opponent: r.Opponent,
			Color: r.Color, Result: r.Result, Status: r.Status, Plies: r.Moves, Ended: r.Ended})
	}
	s.stats.mu.Unlock()
	for _, t := range s.opponentTable() {
		v := live.OpponentView{Name: cmp.Or(t.Name, t.Key), Games: t.Games, Wins: t.Wins, Draws: t.Draws, Losses: t.Losses,
			Score: t.Score, Performance: t.Performance}
		if !strings.ContainsAny(t.Key, " /?#") { // a Lichess user, not the AI
			v.URL = s.cfg.URL + "/@/" + t.Key
		}
		b.Opponents = append(b.Opponents, v)
	}
	if c, ok := s.api.(interface{ Pauses() map[string]time.Time }); ok {
		var fams []string
		pauses := c.Pauses()
		for f := range pauses {
			fams = append(fams, f)
		}
		sort.Strings(fams)
		for _, f := range fams {
			b.Quota = append(b.Quota, live.QuotaView{Name: f, Paused: pauses[f], Note: "paused by a 429"})
		}
	}
	return snap
}

// gameURL is the game's page on Lichess.
func (s *Service) gameURL(id string) string { return s.cfg.URL + "/" + id }

// statusDoc is the /status JSON: the counters of the stats, plus the
// bot's and the games' live views.
type statusDoc struct {
	Snapshot
	Bot   live.BotView    `json:"bot"`
	Games []live.GameView `json:"games"`
}

// statusHandler serves the status page (/, /events, /assets/), /status
// (JSON) and, from the stats, /healthz and /metrics; behind basic auth
// when configured (except /healthz, for health checks).
func (s *Service) statusHandler() (http.Handler, error) {
	page := live.Handler(live.HandlerOptions{Snapshot: s.liveSnapshot, Hub: s.pub.hub, Logger: s.log})
	counters := s.stats.handler()
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", counters)
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		s.stats.writeMetrics(w)
		s.writeTourneyMetrics(w)
		hub := s.pub.hub
		fmt.Fprintf(w, "# HELP ponderosa_status_readers Status pages following the live updates.\n# TYPE ponderosa_status_readers gauge\nponderosa_status_readers %d\n", hub.Subscribers())
		fmt.Fprintf(w, "# HELP ponderosa_status_readers_dropped_total Status page readers dropped for falling behind.\n# TYPE ponderosa_status_readers_dropped_total counter\nponderosa_status_readers_dropped_total %d\n", hub.Dropped())
	})
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		snap := s.liveSnapshot()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(statusDoc{Snapshot: s.Snapshot(), Bot: snap.Bot, Games: snap.Games})
	})
	mux.Handle("/", page)
	if s.cfg.StatusUser == "" {
		return mux, nil
	}
	pw, err := readPassword(s.cfg.StatusPasswordFile)
	if err != nil {
		return nil, fmt.Errorf("PONDEROSA_STATUS_PASSWORD_FILE: %w", err)
	}
	return live.BasicAuth(mux, s.cfg.StatusUser, pw, func(r *http.Request) bool { return r.URL.Path == "/healthz" }), nil
}

// readPassword reads the first line of a password file.
func readPassword(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return "", err
		}
		return "", errors.New("the file is empty")
	}
	pw := strings.TrimRight(sc.Text(), "\r")
	if pw == "" {
		return "", errors.New("the first line is empty")
	}
	return pw, nil
}

// startStatus opens the status endpoint (on ln when given, else on the
// configured address) and serves it until the returned server is shut down.
func (s *Service) startStatus(ln net.Listener) (*http.Server, error) {
	h, err := s.statusHandler()
	if err != nil {
		return nil, err
	}
	if ln == nil {
		ln, err = net.Listen("tcp", s.cfg.StatusAddr)
		if err != nil {
			return nil, fmt.Errorf("status endpoint: %w", err)
		}
	}
	addr := ln.Addr().String()
	if !live.IsLoopback(addr) && s.cfg.StatusUser == "" {
		s.log.Warn("the status page is open to the network without authentication; set PONDEROSA_STATUS_USER and PONDEROSA_STATUS_PASSWORD_FILE, or listen on a loopback address", "addr", addr)
	}
	srv := newStatusServer(h)
	go srv.Serve(smallSendBuffers{ln})
	s.log.Info("status endpoint", "addr", addr, "url", "http://"+addr+"/")
	return srv, nil
}

// challengeView is a challenge and the decision taken, for the page.
func (s *Service) challengeView(c *lichess.Challenge, d Decision) live.ChallengeView {
	tc := c.TimeControl.Show
	switch {
	case tc != "":
	case c.TimeControl.DaysPerTurn > 0:
		tc = fmt.Sprintf("%d days", c.TimeControl.DaysPerTurn)
	case c.TimeControl.Type == "clock":
		tc = liveTC(time.Duration(c.TimeControl.Limit)*time.Second, time.Duration(c.TimeControl.Increment)*time.Second)
	default:
		tc = c.TimeControl.Type
	}
	url := c.URL
	if url == "" {
		url = s.gameURL(c.ID)
	}
	return live.ChallengeView{ID: c.ID, URL: url, Challenger: c.Challenger.Name, Title: c.Challenger.Title,
		Rating: c.Challenger.Rating, Variant: string(c.Variant.Key), TimeControl: tc, Rated: c.Rated,
		Decision: d.Verdict.String(), Reason: d.Reason, At: time.Now()}
}

// statusSendBuffer is the socket send buffer of a status page connection:
// room for a few updates, so that a reader that stops reading blocks its
// stream's writes soon, and is dropped, rather than after megabytes of
// kernel buffers.
const statusSendBuffer = 128 << 10

// smallSendBuffers gives accepted TCP connections a statusSendBuffer.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(statusSendBuffer)
	}
	return c, err
}

// liveTC writes a time control as minutes+seconds ("1+1", "0.5+0").
func liveTC(base, inc time.Duration) string {
	return strconv.FormatFloat(base.Minutes(), 'f', -1, 64) + "+" + strconv.FormatFloat(inc.Seconds(), 'f', -1, 64)
}
