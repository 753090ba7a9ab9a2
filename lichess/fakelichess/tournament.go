package fakelichess

// Tournaments: arenas and Swiss tournaments the bot joins and withdraws
// from, on an accelerated clock, as lila runs them for bots:
//
//   - joining needs conditions.bots (else 400 "Tournament restrictions",
//     with "Bot players are not allowed" among the verdicts of GET
//     /api/tournament/{id}), the password if there is one ("Wrong entry
//     code"), and in a team battle a team of the battle the bot belongs
//     to ("Missing team"); a finished or unknown tournament answers "This
//     tournament no longer exists";
//   - in a started arena, a joined bot that is not playing is paired with
//     the next of the tournament's opponents after PairDelay, game after
//     game, whether or not it is online (lila does not check): games have
//     a tournamentId, source "arena", come as gameStart without a
//     challenge, and cannot be aborted. A game the bot never starts
//     (aborted before its first move) withdraws it, as lila's noStart does;
//   - a Swiss tournament pairs the joined bot at the start of each round;
//   - withdraw before the start leaves; after it pauses: no new pairing,
//     the game in progress goes on; rejoining within PauseDelay answers
//     "Your pause is not over yet".

import (
	"net/http"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"slices"
	"strings"
	"time"
)

// TournamentSpec creates a tournament on the fake (Server.CreateArena,
// Server.CreateSwiss).
type TournamentSpec struct {
	// ID defaults to a random 8-character id.
	ID   string
	Name string
	// Minutes is the length Lichess shows (default 10); Duration is how
	// long the tournament really lasts on the fake (default Minutes
	// minutes). A short Duration accelerates the tournament's clock:
	// secondsToStart and secondsToFinish are shown in its own time.
	Minutes  int
	Duration time.Duration
	// StartsIn delays the start (0: started at creation).
	StartsIn time.Duration
	// ClockLimit and ClockIncrement are the games' clock (default 1+0).
	ClockLimit, ClockIncrement time.Duration
	Rated                      bool
	// Bots is conditions.bots: bots may join.
	Bots bool
	// Password, if set, must be given to join.
	Password string
	// Teams makes an arena a team battle of these team ids.
	Teams []string
	// Opponents are paired with the bot in turn (default
	// Options.OnlineBots); Opponent plays their moves (default
	// Options.Opponent).
	Opponents []Player
	Opponent  Opponent
	// PairDelay is the wait before pairing a free bot (default 50 ms).
	PairDelay time.Duration
	// PauseDelay is how long after a withdraw a rejoin is refused.
	PauseDelay time.Duration
	// Rounds is a Swiss tournament's number of rounds (default 5); they
	// start every Duration/Rounds.
	Rounds int
}

// TournamentInfo is a snapshot of a tournament, for assertions.
type TournamentInfo struct {
	ID, Kind  string
	Started   bool
	Finished  bool
	Joined    bool // the bot is a player and not paused
	Joins     int  // successful joins
	Withdraws int  // withdraw calls
	// Team is the team the bot joined with.
	Team string
	// Games are the bot's games in it, in order; Playing the one going on.
	Games   []string
	Playing string
	// PairedAfterWithdraw counts games created while the bot had
	// withdrawn (always 0: a check for tests).
	PairedAfterWithdraw int
	// Round is a Swiss tournament's current round.
	Round int
}

type tourney struct {
	kind       string // "arena" or "swiss"
	spec       TournamentSpec
	start, end time.Time
	player     bool // the bot has joined (and not left before the start)
	paused     bool // withdrawn after the start
	pausedAt   time.Time
	team       string
	joins      int
	withdraws  int
	games      []string
	playing    string
	next       int // next opponent
	round      int // Swiss: rounds started
	pairT      *time.Timer
	clockT     *time.Timer // start, round and end
	badPairs   int
}

// CreateArena creates an arena and returns its id.
func (s *Server) CreateArena(spec TournamentSpec) string { return s.createTourney("arena", spec) }

// CreateSwiss creates a Swiss tournament and returns its id.
func (s *Server) CreateSwiss(spec TournamentSpec) string { return s.createTourney("swiss", spec) }

func (s *Server) createTourney(kind string, spec TournamentSpec) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if spec.ID == "" {
		spec.ID = s.newID(8)
	}
	if spec.Name == "" {
		spec.Name = "Fake " + kind
	}
	if spec.Minutes <= 0 {
		spec.Minutes = 10
	}
	if spec.Duration <= 0 {
		spec.Duration = time.Duration(spec.Minutes) * time.Minute
	}
	if spec.ClockLimit <= 0 && spec.ClockIncrement <= 0 {
		spec.ClockLimit = time.Minute
	}
	if spec.PairDelay <= 0 {
		spec.PairDelay = 50 * time.Millisecond
	}
	if spec.Rounds <= 0 {
		spec.Rounds = 5
	}
	if spec.Opponents == nil {
		spec.Opponents = s.opts.OnlineBots
	}
	spec.Opponents = slices.Clone(spec.Opponents) // normalised below: never the caller's or the options' slice
	for i := range spec.Opponents {
		spec.Opponents[i] = spec.Opponents[i].norm()
	}
	now := time.Now()
	t := &tourney{kind: kind, spec: spec, start: now.Add(spec.StartsIn)}
	t.end = t.start.Add(spec.Duration)
	if s.tourneys == nil {
		s.tourneys = map[string]*tourney{}
	}
	s.tourneys[spec.ID] = t
	s.tourneyTick(t)
	s.notify()
	return spec.ID
}

// Tournament returns a snapshot of a tournament.
func (s *Server) Tournament(id string) (TournamentInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tourneys[id]
	if t == nil {
		return TournamentInfo{}, false
	}
	now := time.Now()
	return TournamentInfo{ID: id, Kind: t.kind, Started: t.started(now), Finished: t.finished(now),
		Joined: t.player && !t.paused, Joins: t.joins, Withdraws: t.withdraws, Team: t.team,
		Games: slices.Clone(t.games), Playing: t.playing, PairedAfterWithdraw: t.badPairs, Round: t.round}, true
}

func (t *tourney) started(now time.Time) bool  { return !now.Before(t.start) }
func (t *tourney) finished(now time.Time) bool { return !now.Before(t.end) }

// scale converts real time into the tournament's own (accelerated) time.
func (t *tourney) scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * float64(time.Duration(t.spec.Minutes)*time.Minute) / float64(t.spec.Duration))
}

// tourneyTick schedules the next start, round or end, and pairs. Call
// with s.mu held.
func (s *Server) tourneyTick(t *tourney) {
	s.cancelTimer(&t.clockT)
	now := time.Now()
	var next time.Time
	switch {
	case !t.started(now):
		next = t.start
	case t.finished(now):
		s.cancelTimer(&t.pairT)
		return
	case t.kind == "swiss":
		per := t.spec.Duration / time.Duration(t.spec.Rounds)
		due := min(int(now.Sub(t.start)/per)+1, t.spec.Rounds)
		if due > t.round {
			t.round = due
			s.tourneyPair(t)
		}
		next = t.start.Add(time.Duration(t.round) * per)
		if t.round >= t.spec.Rounds {
			next = t.end
		}
	default:
		s.tourneyPair(t)
		next = t.end
	}
	t.clockT = s.after(time.Until(next), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		t.clockT = nil
		s.tourneyTick(t)
		s.notify()
	})
}

// tourneyPair pairs the bot after PairDelay if it is free. Call with s.mu
// held.
func (s *Server) tourneyPair(t *tourney) {
	now := time.Now()
	if !t.player || t.paused || t.playing != "" || t.pairT != nil || !t.started(now) || t.finished(now) {
		return
	}
	round := t.round
	t.pairT = s.after(t.spec.PairDelay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		t.pairT = nil
		now := time.Now()
		if s.closed || !t.player || t.playing != "" || !t.started(now) || t.finished(now) || (t.kind == "swiss" && t.round != round) {
			return
		}
		if t.paused {
			t.badPairs++ // never: a withdraw cancels the timer
			return
		}
		s.pairBot(t)
	})
}

// pairBot starts the bot's next tournament game. Call with s.mu held.
func (s *Server) pairBot(t *tourney) {
	if len(t.spec.Opponents) == 0 {
		return
	}
	opp := t.spec.Opponents[t.next%len(t.spec.Opponents)]
	color := "white"
	if len(t.games)%2 == 1 {
		color = "black"
	}
	t.next++
	spec := s.normSpec(ChallengeSpec{Challenger: opp, ClockLimit: t.spec.ClockLimit, ClockIncrement: t.spec.ClockIncrement,
		Rated: t.spec.Rated, Opponent: t.spec.Opponent, Color: color})
	spec.tournamentID, spec.source = t.spec.ID, t.kind
	id := s.newID(8)
	t.playing = id
	t.games = append(t.games, id)
	botColor := board.White
	if color == "black" {
		botColor = board.Black
	}
	s.newGame(id, botColor, opp, spec)
}

// tourneyGameOver frees the bot for its next pairing. Call with s.mu held.
func (s *Server) tourneyGameOver(g *game) {
	t := s.tourneys[g.tournament]
	if t == nil || t.playing != g.id {
		return
	}
	t.playing = ""
	if g.status == statusAborted && !g.botMoved() {
		// lila's noStart: a player who does not start its game is withdrawn.
		t.paused, t.pausedAt = true, time.Now()
		s.notify()
		return
	}
	if t.kind == "arena" {
		s.tourneyPair(t)
	}
}

func (s *Server) tourneyOf(r *http.Request, kind string) *tourney {
	t := s.tourneys[r.PathValue("id")]
	if t == nil || t.kind != kind {
		return nil
	}
	return t
}

func (s *Server) handleTourneyJoin(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		t := s.tourneyOf(r, kind)
		now := time.Now()
		if t == nil || t.finished(now) {
			writeError(w, http.StatusBadRequest, "This tournament no longer exists")
			return
		}
		f := r.PostForm
		if !t.player && t.spec.Password != "" && f.Get("password") != t.spec.Password {
			writeError(w, http.StatusBadRequest, "Wrong entry code")
			return
		}
		if !t.spec.Bots {
			writeError(w, http.StatusBadRequest, "Tournament restrictions")
			return
		}
		if t.paused && t.spec.PauseDelay > 0 && now.Before(t.pausedAt.Add(t.spec.PauseDelay)) {
			writeError(w, http.StatusBadRequest, "Your pause is not over yet")
			return
		}
		if kind == "arena" && len(t.spec.Teams) > 0 {
			team := f.Get("team")
			switch {
			case team == "" && t.player:
			case !slices.Contains(t.spec.Teams, team) || !slices.Contains(s.opts.Teams, team):
				writeError(w, http.StatusBadRequest, "Missing team")
				return
			default:
				t.team = team
			}
		}
		t.player, t.paused = true, false
		t.joins++
		s.tourneyPair(t)
		s.notify()
		writeOK(w)
	}
}

func (s *Server) handleTourneyWithdraw(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		t := s.tourneyOf(r, kind)
		if t == nil {
			writeError(w, http.StatusNotFound, "Not found")
			return
		}
		t.withdraws++
		s.cancelTimer(&t.pairT)
		if !t.started(time.Now()) {
			t.player = false // leaves a tournament not started yet
		} else if t.player && !t.paused {
			t.paused, t.pausedAt = true, time.Now()
		}
		s.notify()
		writeOK(w)
	}
}

func (t *tourney) verdicts() map[string]any {
	cond, verdict := "Bot players are allowed", "ok"
	if !t.spec.Bots {
		cond, verdict = "Bot players are not allowed", "Bot players are not allowed"
	}
	return map[string]any{"list": []any{map[string]string{"condition": cond, "verdict": verdict}}, "accepted": t.spec.Bots}
}

func (s *Server) handleArena(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tourneyOf(r, "arena")
	if t == nil {
		writeError(w, http.StatusNotFound, "Not found")
		return
	}
	now := time.Now()
	m := map[string]any{
		"id": t.spec.ID, "fullName": t.spec.Name + " Arena", "rated": t.spec.Rated,
		"clock":   map[string]int{"limit": int(t.spec.ClockLimit / time.Second), "increment": int(t.spec.ClockIncrement / time.Second)},
		"minutes": t.spec.Minutes, "createdBy": "lichess", "system": "arena", "variant": "standard",
		"startsAt": t.start.UTC().Format(time.RFC3339), "nbPlayers": len(t.spec.Opponents),
		"isFinished": t.finished(now), "berserkable": false, "verdicts": t.verdicts(),
		"duels": []any{}, "stats": map[string]int{"games": 0, "moves": 0, "whiteWins": 0, "blackWins": 0, "draws": 0, "berserks": 0, "averageRating": 1500},
	}
	if !t.started(now) {
		m["secondsToStart"] = int(t.scale(t.start.Sub(now)) / time.Second)
	} else if !t.finished(now) {
		m["isStarted"] = true
		m["secondsToFinish"] = int(t.scale(t.end.Sub(now)) / time.Second)
	}
	if t.finished(now) {
		m["pairingsClosed"] = true
	}
	if t.player {
		m["nbPlayers"] = len(t.spec.Opponents) + 1
		me := map[string]any{"rank": 1, "withdraw": t.paused}
		if t.playing != "" {
			me["gameId"] = t.playing
		}
		m["me"] = me
	}
	if len(t.spec.Teams) > 0 {
		teams := map[string]any{}
		for _, tm := range t.spec.Teams {
			teams[tm] = []string{strings.ToUpper(tm[:1]) + tm[1:], ""}
		}
		m["teamBattle"] = map[string]any{"teams": teams, "nbLeaders": 5}
	}
	writeJSON(w, http.StatusOK, m)
}

func (s *Server) handleSwiss(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tourneyOf(r, "swiss")
	if t == nil {
		writeError(w, http.StatusNotFound, "Not found")
		return
	}
	now := time.Now()
	status := "created"
	switch {
	case t.finished(now):
		status = "finished"
	case t.started(now):
		status = "started"
	}
	ongoing := 0
	if t.playing != "" {
		ongoing = 1
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": t.spec.ID, "createdBy": "lichess", "startsAt": t.start.UTC().Format(time.RFC3339), "name": t.spec.Name,
		"clock":   map[string]int{"limit": int(t.spec.ClockLimit / time.Second), "increment": int(t.spec.ClockIncrement / time.Second)},
		"variant": "standard", "round": t.round, "nbRounds": t.spec.Rounds, "nbPlayers": len(t.spec.Opponents) + btoi(t.player),
		"nbOngoing": ongoing, "status": status, "rated": t.spec.Rated, "verdicts": t.verdicts(),
		"stats": map[string]int{"games": 0, "whiteWins": 0, "blackWins": 0, "draws": 0, "byes": 0, "absences": 0, "averageRating": 1500},
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
