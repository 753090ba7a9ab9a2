package bot

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/testbin"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// castler is an opponent that castles as soon as it may: it castles when
// that is legal, otherwise develops a minor piece or the queen off its back
// rank, otherwise pushes a pawn, and moves its king or rooks only when
// nothing else is legal. It notes the ply of its castling and whether the
// bot (the other side) has castled.
type castler struct {
	mu         sync.Mutex
	rng        *rand.Rand
	castledAt  atomic.Int32 // the ply count after our castling; 0 before
	botCastled atomic.Bool
}

func (c *castler) play(_ context.Context, g *board.Game, _, _ time.Duration) board.Move {
	pos := g.Position()
	us := pos.SideToMove()
	start := g.Start()
	if len(g.Moves()) < 2 { // a new game (they are played one after another)
		c.castledAt.Store(0)
		c.botCastled.Store(false)
	}
	for i, m := range g.Moves() {
		by := start.SideToMove()
		if i%2 == 1 {
			by = by.Other()
		}
		if by != us && m.IsCastling() {
			c.botCastled.Store(true)
		}
	}
	var l board.MoveList
	pos.GenerateLegal(&l)
	if l.N == 0 {
		return board.NoMove
	}
	back := 0
	if us == board.Black {
		back = 7
	}
	var tiers [4][]board.Move // castle, develop, pawn, the rest
	for _, m := range l.Slice() {
		t := pos.PieceAt(m.From()).Type()
		switch {
		case m.IsCastling():
			tiers[0] = append(tiers[0], m)
		case t != board.King && t != board.Rook && t != board.Pawn && m.From().Rank() == back:
			tiers[1] = append(tiers[1], m)
		case t == board.Pawn:
			tiers[2] = append(tiers[2], m)
		default:
			tiers[3] = append(tiers[3], m)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, tier := range tiers {
		if len(tier) > 0 {
			m := tier[c.rng.IntN(len(tier))]
			if i == 0 && c.castledAt.Load() == 0 {
				c.castledAt.Store(int32(len(g.Moves()) + 1))
			}
			return m
		}
	}
	return board.NoMove
}

// TestMatchmakingChess960: with PONDEROSA_MATCHMAKING_VARIANTS=chess960 the
// challenge goes out with variant=chess960, the fake draws a 960 start,
// and the game is played through castling: the opponent castles
// king-takes-rook as soon as it may (the bot reads that move off the
// stream and plays on with legal moves, which the fake checks, castling
// included).
func TestMatchmakingChess960(t *testing.T) {
	t.Parallel()
	opp := &castler{rng: rand.New(rand.NewPCG(9, 60))}
	h := setup(t, fakelichess.Options{
		OnlineBots: []fakelichess.Player{{ID: "fakebot1", Name: "FakeBot1", Title: "BOT", Rating: 1500}},
		Opponent:   fakelichess.Slow(20*time.Millisecond, opp.play),
	}, map[string]string{"PONDEROSA_MATCHMAKING": "true", "PONDEROSA_MATCHMAKING_IDLE": "1s",
		"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "0.5+0", "PONDEROSA_MATCHMAKING_VARIANTS": "chess960",
		"PONDEROSA_MATCHMAKING_RATING_DIFF": "0", "PONDEROSA_PONDER": "false"})
	h.start()
	// A game may end (the bot mates) before the opponent could castle:
	// the bot then challenges again, and the next game is watched.
	var ch fakelichess.ChallengeInfo
	games := 0
	// How many games that takes is chance (the fake draws each game's 960
	// start, and the bot often mates first): only the wait bounds it.
	h.waitFor("a game where the opponent castled and the bot played on", 180*time.Second, func() bool {
		for _, c := range h.srv.Challenges() {
			if c.Incoming || c.Status != "accepted" || c.ID == ch.ID {
				continue
			}
			if g, ok := h.srv.Game(c.ID); ok && !g.Over() && len(g.Moves) < 2 {
				ch, games = c, games+1 // the new game
			}
		}
		g, ok := h.srv.Game(ch.ID)
		at := int(opp.castledAt.Load())
		return ok && at > 0 && len(g.Moves) >= at+4
	})
	var form string
	for _, r := range h.srv.Requests() {
		if r.Method == "POST" && r.Path == "/api/challenge/FakeBot1" {
			form = r.Form.Encode()
		}
	}
	if ch.Spec.Variant != "chess960" || !strings.Contains(form, "variant=chess960") || !strings.Contains(form, "clock.limit=30") {
		t.Fatalf("challenge %+v sent as %q, want chess960 0.5+0", ch.Spec, form)
	}
	id := ch.ID
	g, _ := h.srv.Game(id)
	if g.Variant != "chess960" {
		t.Errorf("game variant %q", g.Variant)
	}
	t.Logf("game %d: the opponent castled at ply %d (%s); the bot castled too: %v; %d plies", games, opp.castledAt.Load(),
		g.Moves[opp.castledAt.Load()-1], opp.botCastled.Load(), len(g.Moves))
	if !g.Over() {
		h.srv.OpponentResign(id)
	}
	if g = h.waitOver(id, 10*time.Second); g.Status != "resign" && g.Status != "mate" {
		t.Errorf("game ended %s", g.Status)
	}
}

// TestMatchmakingCorrespondence: a "2d" time control sends a challenge
// with days=2 and no clock, and the game is played as correspondence. It
// takes no real-time slot, so matchmaking goes on meanwhile, but with
// PONDEROSA_MAX_CORRESPONDENCE_GAMES=1 in progress only real-time
// challenges are sent.
func TestMatchmakingCorrespondence(t *testing.T) {
	t.Parallel()
	random := fakelichess.RandomMover(3)
	// A few quick moves, then the opponent thinks for an hour: the
	// correspondence game stays in progress.
	opp := func(ctx context.Context, g *board.Game, left, inc time.Duration) board.Move {
		d := 20 * time.Millisecond
		if len(g.Moves()) >= 6 {
			d = time.Hour
		}
		return fakelichess.Slow(d, random)(ctx, g, left, inc)
	}
	h := setup(t, fakelichess.Options{
		OnlineBots: []fakelichess.Player{{ID: "fakebot1", Name: "FakeBot1", Title: "BOT", Rating: 1500}},
		Opponent:   opp,
	}, map[string]string{"PONDEROSA_MATCHMAKING": "true", "PONDEROSA_MATCHMAKING_IDLE": "1s",
		"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "2d*5,1+0", "PONDEROSA_CORRESPONDENCE": "true",
		"PONDEROSA_MAX_CORRESPONDENCE_GAMES": "1",
		"PONDEROSA_CORRESPONDENCE_MOVE_TIME": "100ms", "PONDEROSA_MATCHMAKING_RATING_DIFF": "0",
		// Black learns of its first turn at a check-in (no event comes).
		"PONDEROSA_CORRESPONDENCE_CHECKIN": "1s"})
	h.start()
	// endRealTime resigns the real-time games, so that the bot is idle.
	endRealTime := func() {
		for _, g := range h.srv.Games() {
			if !g.Over() && g.Days == 0 {
				h.srv.OpponentResign(g.ID)
			}
		}
	}
	var ch fakelichess.ChallengeInfo
	seen := 0
	h.waitFor("a correspondence game", 30*time.Second, func() bool {
		endRealTime()
		for i, c := range h.answeredChallenges() {
			if c.Status == "accepted" && c.Spec.Days > 0 {
				ch, seen = c, i+1
				return true
			}
		}
		return false
	})
	var form string
	for _, r := range h.srv.Requests() {
		if r.Method == "POST" && r.Path == "/api/challenge/FakeBot1" && r.Form.Has("days") {
			form = r.Form.Encode()
		}
	}
	if ch.Spec.Days != 2 || ch.Spec.ClockLimit != 0 || !strings.Contains(form, "days=2") || strings.Contains(form, "clock") {
		t.Fatalf("challenge %+v sent as %q, want days=2 and no clock", ch.Spec, form)
	}
	h.waitFor("moves", 30*time.Second, func() bool { g, _ := h.srv.Game(ch.ID); return len(g.Moves) >= 4 || g.Over() })
	if g, _ := h.srv.Game(ch.ID); g.Days != 2 || len(g.Moves) < 4 {
		t.Errorf("correspondence game: %d days, %d plies, %s", g.Days, len(g.Moves), g.Status)
	}
	h.waitFor("challenges while the correspondence game is played", 30*time.Second, func() bool {
		endRealTime()
		return len(h.answeredChallenges()) >= seen+2
	})
	if g, _ := h.srv.Game(ch.ID); g.Over() {
		t.Fatalf("the correspondence game ended (%s): the cap was not tested", g.Status)
	}
	for _, c := range h.answeredChallenges()[seen:] {
		if c.Spec.Days > 0 {
			t.Errorf("a correspondence challenge (%d days) with PONDEROSA_MAX_CORRESPONDENCE_GAMES=1 in progress", c.Spec.Days)
		}
	}
	h.srv.OpponentResign(ch.ID)
	h.waitOver(ch.ID, 10*time.Second)
	endRealTime()
}

// TestMatchmaking960NeedsTheEngine: an engine that cannot play Chess960
// (fairymax over xboard) stops the bot at start when matchmaking would
// challenge only in chess960, and leaves chess960 out when it also has
// standard (logged).
func TestMatchmaking960NeedsTheEngine(t *testing.T) {
	fairymax := testbin.Need(t, "/usr/games/fairymax")
	env := func(variants string) map[string]string {
		return map[string]string{"PONDEROSA_ENGINE": fairymax, "PONDEROSA_ENGINE_PROTOCOL": "xboard",
			"PONDEROSA_MATCHMAKING": "true", "PONDEROSA_MATCHMAKING_VARIANTS": variants}
	}
	h := setup(t, fakelichess.Options{}, env("chess960"))
	svc := newService(h.cfg, h.client, Options{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := svc.Run(ctx)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "PONDEROSA_MATCHMAKING_VARIANTS") {
		t.Errorf("chess960 only with fairymax: %v, want an error naming PONDEROSA_MATCHMAKING_VARIANTS", err)
	}
	noEngineProcesses(t)

	h = setup(t, fakelichess.Options{}, env("standard,chess960"))
	h.start()
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	for _, o := range h.svc.mm.offers {
		if o.variant != "standard" {
			t.Errorf("offer %s with an engine that cannot play it", o)
		}
	}
	if !strings.Contains(h.logs.String(), "no chess960 challenges") {
		t.Error("dropping chess960 not logged")
	}
}
