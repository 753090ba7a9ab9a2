package bot

// Tournaments (PONDEROSA_TOURNAMENTS, `bot --join`): the bot joins the
// listed arenas and Swiss tournaments at start, retries a join that failed
// for a reason that may pass (a pause not over, too many joins, a 429, a
// network or server error) with backoff, re-joins a started arena every
// pairRefresh with pairMeAsap (lila's "pair me" lasts a minute), and on
// shutdown withdraws from every tournament it joined before anything else,
// so that it is not paired while away.
//
// Lichess pairs a joined bot by itself: the games come as gameStart events
// without a challenge, with a tournamentId, and are played like any other
// (never aborted: Lichess does not let tournament games be aborted). They
// do not take a challenge slot, since they cannot be refused; instead,
// while the bot is in a started tournament and not playing in it, one slot
// per such tournament is kept free for its next pairing: challenges are
// accepted only while running games + accepted challenges + those reserved
// slots stay under PONDEROSA_MAX_GAMES, and matchmaking waits. A game in a
// tournament fills its tournament's reserved slot.
//
// Joins are rate limited by Lichess (about 30 per 10 minutes per account):
// the manager keeps its own joins under joinBudget per 10 minutes, refreshes
// taking only what first joins and retries leave.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/live"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

const (
	// joinBudget is how many joins the bot sends in any 10 minutes;
	// refreshes stop at refreshBudget so that retries keep some.
	joinBudget    = 24
	refreshBudget = 16
	joinWindow    = 10 * time.Minute
	// withdrawTimeout bounds the withdraws at shutdown.
	withdrawTimeout = 10 * time.Second
)

// tourneyTimings are the manager's periods (tests shorten them).
type tourneyTimings struct {
	pairRefresh time.Duration // re-join a started arena (pairMeAsap) this often
	poll        time.Duration // look at a joined tournament's state this often
	retryMin    time.Duration // first backoff after a transient failure
	retryMax    time.Duration
}

func defaultTourneyTimings() tourneyTimings {
	return tourneyTimings{pairRefresh: 50 * time.Second, poll: time.Minute, retryMin: 30 * time.Second, retryMax: 10 * time.Minute}
}

// tourney is one tournament's state in the manager.
type tourney struct {
	t        config.Tournament
	joined   bool // our last join succeeded (and no withdraw since)
	started  bool
	finished bool
	failed   string // a permanent refusal: never retried
	left     bool   // withdrawn at shutdown
	lastErr  string
	nextTry  time.Time // next join attempt (not joined) or state poll (joined)
	backoff  time.Duration
	lastJoin time.Time
}

// tourneys runs the joins; one goroutine (run) owns the list, others read
// views under mu.
type tourneys struct {
	svc    *Service
	log    *slog.Logger
	timing tourneyTimings

	mu    sync.Mutex
	list  []*tourney
	joins []time.Time // our joins in the last joinWindow
}

func newTourneys(s *Service, list []config.Tournament, timing tourneyTimings) *tourneys {
	m := &tourneys{svc: s, log: s.log, timing: timing}
	for _, t := range list {
		m.list = append(m.list, &tourney{t: t})
	}
	return m
}

// views describes the tournaments for the status endpoint.
func (m *tourneys) views(playing map[string]bool) []live.TournamentView {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []live.TournamentView
	for _, x := range m.list {
		v := live.TournamentView{Tournament: x.t.Key(), Error: x.lastErr}
		switch {
		case x.failed != "":
			v.State, v.Error = "refused", x.failed
		case x.finished:
			v.State = "finished"
		case x.left:
			v.State = "withdrawn"
		case x.joined && playing[x.t.ID]:
			v.State = "playing"
		case x.joined:
			v.State = "joined"
		case x.lastErr != "":
			v.State = "retrying"
		default:
			v.State = "joining"
		}
		out = append(out, v)
	}
	return out
}

// run joins and keeps the tournaments joined until ctx ends.
func (m *tourneys) run(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		next := m.step(ctx, time.Now())
		timer.Reset(max(time.Until(next), 10*time.Millisecond))
	}
}

// step does what is due and returns when to look again.
func (m *tourneys) step(ctx context.Context, now time.Time) time.Time {
	next := now.Add(m.timing.poll)
	for _, x := range m.list {
		if ctx.Err() != nil {
			return next
		}
		m.mu.Lock()
		done := x.failed != "" || x.finished
		due := !now.Before(x.nextTry)
		m.mu.Unlock()
		if done {
			continue
		}
		if due {
			m.visit(ctx, x, time.Now())
		}
		m.mu.Lock()
		if x.failed == "" && !x.finished && x.nextTry.Before(next) {
			next = x.nextTry
		}
		m.mu.Unlock()
	}
	m.publish()
	return next
}

// visit reads a tournament's state and joins (or re-joins) when needed.
func (m *tourneys) visit(ctx context.Context, x *tourney, now time.Time) {
	log := m.log.With("tournament", x.t.Key())
	// The verdicts are not trusted to refuse before trying: a join is
	// what Lichess decides on; they only explain a refusal.
	started, finished, _, err := m.state(ctx, x.t)
	m.mu.Lock()
	if err == nil {
		x.started, x.finished = started, finished
	}
	joined, lastJoin := x.joined, x.lastJoin
	m.mu.Unlock()
	if err == nil && finished {
		log.Info("tournament is over")
		return
	}
	refresh := joined && x.t.Kind == config.Arena && started && now.Sub(lastJoin) >= m.timing.pairRefresh
	if joined && !refresh {
		m.mu.Lock()
		x.nextTry = now.Add(m.pollEvery(x))
		m.mu.Unlock()
		return
	}
	budget := joinBudget
	if joined {
		budget = refreshBudget
	}
	if wait := m.takeJoin(now, budget); wait > 0 {
		log.Debug("join budget spent; waiting", "for", wait, "refresh", joined)
		m.mu.Lock()
		if joined {
			x.nextTry = now.Add(m.pollEvery(x)) // skip this refresh
		} else {
			x.nextTry = now.Add(wait)
		}
		m.mu.Unlock()
		return
	}
	err = m.join(ctx, x.t, started)
	if err == nil {
		m.mu.Lock()
		if !x.joined {
			log.Info("joined tournament", "started", started)
		}
		x.joined, x.lastJoin, x.lastErr, x.backoff = true, now, "", 0
		x.nextTry = now.Add(m.pollEvery(x))
		m.mu.Unlock()
		return
	}
	if ctx.Err() != nil {
		return
	}
	if permanent, wait := lichess.JoinRefusal(err); !permanent {
		m.mu.Lock()
		x.backoff = min(max(2*x.backoff, m.timing.retryMin), m.timing.retryMax)
		x.lastErr = err.Error()
		x.nextTry = now.Add(max(wait, x.backoff))
		retry := x.nextTry.Sub(now)
		m.mu.Unlock()
		log.Warn("joining the tournament failed; retrying later", "err", err, "retry_in", retry.Round(time.Millisecond))
		return
	}
	m.refuse(x, log, m.explain(ctx, x.t, err))
}

// pollEvery is how often a joined tournament's state is read: the poll
// period, or the refresh period in a started arena if shorter. Call with
// m.mu held.
func (m *tourneys) pollEvery(x *tourney) time.Duration {
	if x.t.Kind == config.Arena && x.started {
		return min(m.timing.poll, m.timing.pairRefresh)
	}
	return m.timing.poll
}

func (m *tourneys) refuse(x *tourney, log *slog.Logger, why string) {
	m.mu.Lock()
	x.failed, x.joined = why, false
	m.mu.Unlock()
	log.Error("cannot join the tournament; not retrying", "reason", why)
}

// explain turns a permanent refusal into a clear reason: for "Tournament
// restrictions" it names the conditions not met (e.g. "Bot players are not
// allowed").
func (m *tourneys) explain(ctx context.Context, t config.Tournament, err error) string {
	var ae *lichess.APIError
	if !errors.As(err, &ae) {
		return err.Error()
	}
	msg := ae.Message
	if strings.Contains(msg, lichess.TournamentErrRestrictions) {
		if _, _, refused, gerr := m.state(ctx, t); gerr == nil && len(refused) > 0 {
			msg += ": " + strings.Join(refused, "; ")
		}
	}
	switch {
	case strings.Contains(msg, lichess.TournamentErrWrongCode):
		msg += " (check the :password= of " + t.Key() + ")"
	case strings.Contains(msg, lichess.TournamentErrMissingTeam):
		msg += " (a team battle needs :team=T, a team of the battle the bot belongs to)"
	}
	return fmt.Sprintf("%d %s", ae.Status, msg)
}

// state reads a tournament: started, finished and the entry conditions not
// met.
func (m *tourneys) state(ctx context.Context, t config.Tournament) (started, finished bool, refused []string, err error) {
	cctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	if t.Kind == config.Swiss {
		sw, err := m.svc.api.Swiss(cctx, t.ID)
		if err != nil {
			return false, false, nil, err
		}
		return sw.Status == "started", sw.Finished(), sw.Verdicts.Refused(), nil
	}
	a, err := m.svc.api.Arena(cctx, t.ID)
	if err != nil {
		return false, false, nil, err
	}
	return a.IsStarted, a.IsFinished, a.Verdicts.Refused(), nil
}

func (m *tourneys) join(ctx context.Context, t config.Tournament, started bool) error {
	cctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	if t.Kind == config.Swiss {
		return m.svc.api.JoinSwiss(cctx, t.ID, t.Password)
	}
	return m.svc.api.JoinArena(cctx, t.ID, lichess.JoinArenaOptions{Password: t.Password, Team: t.Team, PairMeAsap: started})
}

// takeJoin counts a join if fewer than budget were sent in the last
// joinWindow; otherwise it returns how long until one may be.
func (m *tourneys) takeJoin(now time.Time, budget int) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	keep := m.joins[:0]
	for _, t := range m.joins {
		if now.Sub(t) < joinWindow {
			keep = append(keep, t)
		}
	}
	m.joins = keep
	if len(m.joins) >= budget {
		return m.joins[len(m.joins)-budget].Add(joinWindow).Sub(now)
	}
	m.joins = append(m.joins, now)
	return 0
}

// publish tells the service which tournaments may pair the bot now
// (joined, started, not over), for the reserved slots.
func (m *tourneys) publish() {
	m.mu.Lock()
	var active []string
	for _, x := range m.list {
		if x.joined && x.started && !x.finished && x.failed == "" {
			active = append(active, x.t.ID)
		}
	}
	m.mu.Unlock()
	s := m.svc
	s.mu.Lock()
	s.activeTourneys = active
	s.mu.Unlock()
}

// withdrawAll withdraws from every tournament joined, within
// withdrawTimeout, and forgets them (no slot is reserved any more).
func (m *tourneys) withdrawAll(ctx context.Context) {
	m.mu.Lock()
	var joined []*tourney
	for _, x := range m.list {
		if x.joined && !x.finished {
			joined = append(joined, x)
		}
	}
	m.mu.Unlock()
	s := m.svc
	s.mu.Lock()
	s.activeTourneys = nil
	s.mu.Unlock()
	if len(joined) == 0 {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, withdrawTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, x := range joined {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if x.t.Kind == config.Swiss {
				err = s.api.WithdrawSwiss(wctx, x.t.ID)
			} else {
				err = s.api.WithdrawArena(wctx, x.t.ID)
			}
			if err != nil {
				m.log.Warn("withdrawing from the tournament failed: Lichess may pair the bot while it is away", "tournament", x.t.Key(), "err", err)
				return
			}
			m.log.Info("withdrew from the tournament", "tournament", x.t.Key())
			m.mu.Lock()
			x.joined, x.left = false, true
			m.mu.Unlock()
		}()
	}
	wg.Wait()
}

// writeTourneyMetrics adds the tournaments per state to /metrics.
func (s *Service) writeTourneyMetrics(w io.Writer) {
	if s.tours == nil {
		return
	}
	s.mu.Lock()
	playing := map[string]bool{}
	for _, tid := range s.tourneyGames {
		playing[tid] = true
	}
	s.mu.Unlock()
	count := map[string]int{}
	for _, v := range s.tours.views(playing) {
		count[v.State]++
	}
	fmt.Fprint(w, "# HELP ponderosa_tournaments Tournaments set to join, by state (joined, playing, joining, retrying, refused, finished, withdrawn).\n# TYPE ponderosa_tournaments gauge\n")
	for _, st := range []string{"joined", "playing", "joining", "retrying", "refused", "finished", "withdrawn"} {
		fmt.Fprintf(w, "ponderosa_tournaments{state=%q} %d\n", st, count[st])
	}
}

// tourneyReserve is the number of slots kept for tournament pairings: one
// per started tournament the bot is in and not playing in. Call with s.mu
// held.
func (s *Service) tourneyReserve() int {
	n := 0
	for _, id := range s.activeTourneys {
		playing := false
		for _, tid := range s.tourneyGames {
			if tid == id {
				playing = true
				break
			}
		}
		if !playing {
			n++
		}
	}
	return n
}

// busySlots is what takes a slot for the challenge policy: running
// real-time games, accepted real-time challenges (correspondence games
// have their own limit), and the slots kept for tournament pairings. Call
// with s.mu held.
func (s *Service) busySlots() int {
	return s.realTimeTaken() + s.tourneyReserve()
}
