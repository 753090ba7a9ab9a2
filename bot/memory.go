package bot

import (
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// The service's memory across restarts (bot/store): what it writes there
// and what it reads back at start. Reads come from memory and writes never
// wait for the disk, so none of this can delay a move; a disk fault
// degrades the store (shown by /healthz and /status) and play goes on.

// restoreMemory reads back what the last run learned: the move overhead,
// the quota windows still running, the opponents matchmaking leaves alone,
// and the recent results for the status endpoint.
func (s *Service) restoreMemory(now time.Time) {
	if o, ok := s.mem.Overhead(); ok {
		s.overhead.restore(o.Samples)
		s.stats.count(func(st *stats) { st.overhead = s.overhead.Overhead() })
		s.log.Info("move overhead restored", "overhead", s.overhead.Overhead(), "samples", len(o.Samples))
	}
	for _, w := range s.mem.Quotas(now) {
		if w.Key == botQuotaKey {
			s.stats.setBotQuota(w.Until)
			s.log.Warn("restored: "+botQuotaText(w.Until), "until", w.Until)
		}
	}
	s.mm.restore(s.mem.Refusals(now))
	games := s.mem.RecentGames(maxRecent)
	for i := len(games) - 1; i >= 0; i-- {
		g := games[i]
		s.stats.restoreRecent(GameResult{ID: g.ID, Opponent: g.OpponentName, Color: g.Color, Result: g.Result,
			Status: g.Termination, Moves: g.Plies, Ended: g.Ended})
	}
}

// rememberQuota keeps a quota window Lichess reported, so that a restart
// honours it.
func (s *Service) rememberQuota(rl *lichess.RateLimitError) {
	s.mem.SetQuota(store.QuotaWindow{Key: rl.Key, Until: rl.Until, Note: rl.Message})
}

// rememberChallenge records a challenge and what was decided.
func (s *Service) rememberChallenge(c *lichess.Challenge, outgoing bool, decision, reason string) {
	opp := c.Challenger.ID
	if outgoing && c.DestUser != nil {
		opp = c.DestUser.ID
	}
	if opp == "" {
		opp = "anonymous"
	}
	s.mem.AddChallenge(store.Challenge{ID: c.ID, At: time.Now(), Outgoing: outgoing, Opponent: opp,
		Variant: string(c.Variant.Key), Speed: string(c.Speed), Rated: c.Rated, Decision: decision, Reason: reason})
}

// gameMemory is what a game notes for the store as it is played.
type gameMemory struct {
	sources         map[string]int // our moves by source
	think, thinkMax time.Duration  // our searches
	notes           map[int]string // the PGN comment of our move by its index in the game
}

// noteMove counts one of our posted moves, the ply-th of the game (from
// 0), and keeps its PGN note.
func (r *gameRunner) noteMove(ply int, source, note string, search time.Duration) {
	m := &r.memory
	if m.sources == nil {
		m.sources, m.notes = map[string]int{}, map[int]string{}
	}
	m.sources[source]++
	m.notes[ply] = note
	r.svc.stats.count(func(s *stats) { s.moveSources[source]++ })
	m.think += search
	m.thinkMax = max(m.thinkMax, search)
}

// remember records the finished game in the store.
func (r *gameRunner) remember(st *lichess.GameState, result, pgn string, ended time.Time) {
	f := r.full
	if f == nil {
		r.svc.forgetRematch(r.id)
		return
	}
	us, them := f.White, f.Black
	if r.us == board.Black {
		us, them = f.Black, f.White
	}
	started := r.began
	if f.CreatedAt > 0 {
		started = time.UnixMilli(f.CreatedAt)
	}
	opp := them.ID
	if opp == "" {
		opp = strings.ToLower(playerName(them)) // the AI, or an anonymous player
	}
	var flags []string
	if started.Before(r.svc.stats.started) {
		flags = append(flags, "resumed") // begun before this run of the bot
	}
	r.svc.rememberGame(store.Game{
		ID: r.id, Started: started, Ended: ended, Speed: string(f.Speed), Variant: string(f.Variant.Key),
		Rated: f.Rated, Color: r.us.String(), Opponent: opp, OpponentName: playerName(them), OpponentTitle: them.Title,
		OpponentRating: clampRating(them.Rating), OpponentBot: them.Title == "BOT", OurRating: clampRating(us.Rating),
		Result: result, Termination: string(st.Status), Plies: r.board.ply(),
		Sources: r.memory.sources, Flags: flags, ThinkTotal: r.memory.think, ThinkMax: r.memory.thinkMax, PGN: pgn,
	})
}

// clampRating keeps a rating the store accepts (Lichess's are 400-3500).
func clampRating(r int) int { return min(max(r, 0), 4000) }

// opponentTable is the status endpoint's results per opponent, from the
// games in memory.
// The table is kept until the latest game changes (the page asks for it
// up to ten times a second); do not modify it.
func (s *Service) opponentTable() []store.Tally {
	key := ""
	if g := s.mem.RecentGames(1); len(g) == 1 {
		key = g[0].ID + "@" + g[0].Ended.String()
	}
	s.opponents.mu.Lock()
	defer s.opponents.mu.Unlock()
	if s.opponents.table == nil || s.opponents.key != key {
		t := store.TallyBy(s.mem.RecentGames(5000), func(g *store.Game) string { return g.Opponent }, true)
		s.opponents.key, s.opponents.table = key, t[:min(len(t), 20):min(len(t), 20)]
	}
	return s.opponents.table
}
