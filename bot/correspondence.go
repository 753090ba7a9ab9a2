package bot

// Correspondence and unlimited games at scale (issue 17).
//
// They take none of the PONDEROSA_MAX_GAMES real-time slots: their own
// limit, PONDEROSA_MAX_CORRESPONDENCE_GAMES, bounds the challenges
// accepted. Between our moves such a game holds no goroutine, no stream
// and no engine: the service keeps a few words per game (corrGame). A game
// is opened (a visit: its stream, a runner and an engine) when it is our
// turn — on a gameStart event that says so (one comes for every ongoing
// game when the event stream connects, so a restart resumes them all), and
// at every check-in (PONDEROSA_CORRESPONDENCE_CHECKIN: GET
// /api/account/playing, which lists the games to move first; Lichess sends
// no event when the opponent moves in correspondence) — and closed once we
// have moved and the opponent has not replied within
// PONDEROSA_CORRESPONDENCE_DISCONNECT, or at once when other games wait
// for a visit. At most corrSlots games are open at once, each with its own
// engine from a pool of that size: the goroutines, streams, engines and
// CPU of hundreds of games are those of a few. A game that ends while
// closed (gameFinish) is opened once to record its end.

import (
	"context"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// corrGame is what the service keeps of a correspondence game between
// visits.
type corrGame struct {
	queued bool // waiting for a visit
	open   bool // a visit runs
	again  bool // the game ended while open: visit again if the visit missed it
}

// corrState is the service's correspondence games. Guarded by Service.mu.
type corrState struct {
	games   map[string]*corrGame // the correspondence games in progress we know of
	queue   []string             // games waiting for a visit, oldest first
	open    int                  // visits running
	slots   int                  // visits at most at once
	pending map[string]bool      // accepted correspondence challenges (ids in Service.pending)
	// pressure is closed while games wait for a visit: an idle visit then
	// closes at once instead of waiting for a reply.
	pressure chan struct{}
	// fullPage says the last check-in listed as many games to move as it
	// can show: there may be more, so check in again once the queue is
	// served.
	fullPage bool
	// launch starts a visit (set by Run); stopped: no more visits start
	// (shutdown).
	launch  func(id string)
	stopped bool
	// checkin asks the check-in loop for a check-in now.
	checkin chan struct{}
}

// corrSlots is how many correspondence games are open at once: half the
// search threads, at least 2 and at most 8. Each visit's search takes one
// thread; the real-time games share the others (fairThreads).
func corrSlots(threads int) int { return min(8, max(2, threads/2)) }

// checkinPage is how many games a check-in lists (the most Lichess gives).
const checkinPage = 50

func newCorrState(threads int) corrState {
	return corrState{games: map[string]*corrGame{}, pending: map[string]bool{}, slots: corrSlots(threads),
		pressure: make(chan struct{}), checkin: make(chan struct{}, 1)}
}

// isCorrespondence reports whether a game of the event stream or of
// account/playing is a correspondence or unlimited game (Lichess gives
// both the correspondence speed).
func isCorrespondence(g *lichess.GameEventInfo) bool { return g.Speed == lichess.SpeedCorrespondence }

// isCorrespondenceOffer reports whether a challenge is for a
// correspondence or unlimited game.
func isCorrespondenceOffer(c *lichess.Challenge) bool {
	return c.TimeControl.Type == "correspondence" || c.TimeControl.Type == "unlimited"
}

// corrSeen records a correspondence game in progress and, when visit is
// set (it is our turn, or the game ended while closed), queues a visit
// unless one is queued or running. Call with s.mu held; then corrDispatch
// (or corrNext), which also keeps the pressure channel in step.
func (s *Service) corrSeen(id string, visit bool) {
	c := &s.corr
	delete(c.pending, id)
	g := c.games[id]
	if g == nil {
		g = &corrGame{}
		c.games[id] = g
	}
	if !visit || g.queued || g.open {
		return
	}
	g.queued = true
	c.queue = append(c.queue, id)
}

// corrFinished handles a gameFinish event of a correspondence game: a
// closed game is opened once to record its end. Call with s.mu held; then
// corrDispatch.
func (s *Service) corrFinished(id string) {
	g := s.corr.games[id]
	switch {
	case g == nil:
	case g.open:
		g.again = true // the visit sees the end, unless it was closing
	default:
		s.corrSeen(id, true)
	}
}

// corrNext takes the games to open now off the queue. Call with s.mu
// held; start them with corr.launch after unlocking.
func (s *Service) corrNext() []string {
	c := &s.corr
	var ids []string
	for c.open < c.slots && len(c.queue) > 0 && !c.stopped && c.launch != nil {
		id := c.queue[0]
		c.queue[0] = ""
		c.queue = c.queue[1:]
		g := c.games[id]
		if g == nil || !g.queued {
			continue
		}
		g.queued, g.open = false, true
		c.open++
		ids = append(ids, id)
	}
	select {
	case <-c.pressure:
		if len(c.queue) == 0 {
			c.pressure = make(chan struct{})
		}
	default:
		if len(c.queue) > 0 {
			close(c.pressure) // games wait: idle visits make room
		}
	}
	if len(c.queue) == 0 {
		c.queue = nil // let the backing array go
		if c.fullPage && !c.stopped {
			c.fullPage = false
			select {
			case c.checkin <- struct{}{}:
			default:
			}
		}
	}
	return ids
}

// corrDispatch opens the queued games that fit in the free slots.
func (s *Service) corrDispatch() {
	s.mu.Lock()
	ids := s.corrNext()
	launch := s.corr.launch
	s.mu.Unlock()
	for _, id := range ids {
		launch(id)
	}
}

// corrPressure returns a channel closed while games wait for a visit.
func (s *Service) corrPressure() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.corr.pressure
}

// visitEnded frees the slot of a visit; over says the game ended (or the
// visit failed: the next check-in or gameStart brings the game back if
// it goes on).
func (s *Service) visitEnded(id string, over bool) {
	s.mu.Lock()
	c := &s.corr
	c.open--
	if g := c.games[id]; g != nil {
		g.open = false
		if over {
			delete(c.games, id)
		} else if g.again {
			g.again = false
			s.corrSeen(id, true)
		}
	}
	ids := s.corrNext()
	launch := c.launch
	s.mu.Unlock()
	for _, id := range ids {
		launch(id)
	}
}

// startVisit opens a correspondence game: a runner in visit mode on its
// own goroutine, which ends when the game is closed again.
func (s *Service) startVisit(ctx context.Context, id string, leave <-chan struct{}, wg *sync.WaitGroup) {
	wg.Go(func() {
		over := true
		defer func() { s.visitEnded(id, over) }()
		over = s.playGame(ctx, id, leave, true)
	})
}

// corrCount is the correspondence games in progress and the accepted
// correspondence challenges whose game has not started. Call with s.mu
// held.
func (s *Service) corrCount() int {
	for id := range s.corr.pending {
		if _, ok := s.pending[id]; !ok {
			delete(s.corr.pending, id) // declined, cancelled or expired
		}
	}
	return len(s.corr.games) + len(s.corr.pending)
}

// realTimeTaken counts the real-time slots in use: the real-time games
// running and the accepted real-time challenges. Call with s.mu held.
func (s *Service) realTimeTaken() int {
	n := len(s.games)
	for id := range s.pending {
		if !s.corr.pending[id] {
			n++
		}
	}
	return n
}

// corrStatus counts the correspondence games for /status and /metrics.
func (s *Service) corrStatus() CorrespondenceStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.corr
	return CorrespondenceStatus{Games: len(c.games), Max: s.cfg.Policy.MaxCorrespondence, Open: c.open,
		Slots: c.slots, Queued: len(c.queue)}
}

// corrOpen is the number of correspondence games open now.
func (s *Service) corrOpen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.corr.open
}

// checkinLoop checks in every PONDEROSA_CORRESPONDENCE_CHECKIN, and at
// once when the last check-in's page was full of games to move and they
// have been served, until ctx ends.
func (s *Service) checkinLoop(ctx context.Context) {
	t := time.NewTicker(s.cfg.Game.CorrespondenceCheckin)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.corr.checkin:
		}
		s.checkIn(ctx)
	}
}

// checkIn lists our games (GET /api/account/playing, those to move first)
// and queues a visit for each correspondence game where it is our turn.
func (s *Service) checkIn(ctx context.Context) {
	games, err := s.api.OngoingGames(ctx, checkinPage)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("correspondence check-in failed", "err", err)
		}
		return
	}
	s.corrList(games, true)
}

// corrList records the correspondence games of a list of games in
// progress (account/playing) and queues those where it is our turn;
// checkin says the list is a check-in's (a full page of games to move
// asks for another check-in once they are served).
func (s *Service) corrList(games []lichess.GameEventInfo, checkin bool) {
	toMove, queued := 0, 0
	// The list has the games to move first: when its last one is still
	// one to move, there may be more than a page of them.
	full := checkin && len(games) >= checkinPage && games[len(games)-1].IsMyTurn
	s.mu.Lock()
	for i := range games {
		g := &games[i]
		if !isCorrespondence(g) || (g.Compat != nil && !g.Compat.Bot) {
			continue
		}
		if g.IsMyTurn {
			toMove++
			if cg := s.corr.games[g.GameID]; cg == nil || !cg.queued && !cg.open {
				queued++
			}
		}
		s.corrSeen(g.GameID, g.IsMyTurn)
	}
	if full {
		s.corr.fullPage = true
	}
	known := len(s.corr.games)
	s.mu.Unlock()
	if toMove > 0 || !checkin {
		s.log.Info("correspondence check-in", "games", known, "to_move", toMove, "queued", queued)
	}
	s.corrDispatch()
}
