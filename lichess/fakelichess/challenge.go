package fakelichess

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// ChallengeSpec scripts a challenge to the bot (Server.Challenge) and is
// also the shape of the games the bot's own challenges create.
type ChallengeSpec struct {
	// Challenger defaults to a human "Alice" rated 1500; set Title "BOT"
	// for a bot.
	Challenger Player
	// Variant: "standard" (default), "chess960" or "fromPosition" are
	// played; other keys (crazyhouse, atomic, …) can be offered, to test
	// declining, but accepting them answers 400.
	Variant string
	// FEN is the start position for fromPosition, and for chess960 (a
	// random 960 position when empty).
	FEN string
	// GameFEN, if set, is the initialFen the game's stream reports (the
	// game itself starts from FEN): it gives a bot a start position it
	// cannot set up although its challenge looked fine.
	GameFEN string
	// ClockLimit and ClockIncrement make a real-time game. The challenge
	// shows them in whole seconds as Lichess does; the game clocks use
	// them exactly (ms on the wire), so sub-second test clocks work.
	ClockLimit, ClockIncrement time.Duration
	// Days makes a correspondence game; no clock and no days: unlimited.
	Days  int
	Rated bool
	// Color is the challenger's requested side: "white", "black" or
	// "random" (default). The bot gets the other side.
	Color string
	// Opponent plays the challenger's moves (default Options.Opponent).
	Opponent Opponent
	// RematchOf marks a rematch offer of a previous game.
	RematchOf string
	// Anonymous makes the challenger a logged-out player: lila sends
	// "challenger": null, and the game shows the player as {} (no id,
	// no name). Challenger is then ignored.
	Anonymous bool

	// tournamentID and source mark a tournament's game (tournament.go).
	tournamentID, source string
}

// ChallengeInfo is a snapshot of a challenge.
type ChallengeInfo struct {
	ID            string
	Incoming      bool // to the bot (false: the bot created it)
	Opponent      Player
	Spec          ChallengeSpec
	Status        string // created, accepted, declined, canceled
	DeclineReason string // the key the bot sent (or the opponent's)
}

type challenge struct {
	id         string
	incoming   bool
	opp        Player
	spec       ChallengeSpec
	finalColor string // the challenger's side
	status     string
	reason     string
	created    time.Time
	answer     *time.Timer
}

func (c *challenge) info() ChallengeInfo {
	return ChallengeInfo{ID: c.id, Incoming: c.incoming, Opponent: c.opp, Spec: c.spec, Status: c.status, DeclineReason: c.reason}
}

var declineTexts = map[string]string{
	"generic":     "I'm not accepting challenges at the moment.",
	"later":       "This is not the right time for me, please ask again later.",
	"toofast":     "This time control is too fast for me, please challenge again with a slower game.",
	"tooslow":     "This time control is too slow for me, please challenge again with a faster game.",
	"timecontrol": "I'm not accepting challenges with this time control.",
	"rated":       "Please send me a rated challenge instead.",
	"casual":      "Please send me a casual challenge instead.",
	"standard":    "I'm not accepting variant challenges right now.",
	"variant":     "I'm not willing to play this variant right now.",
	"nobot":       "I'm not accepting challenges from bots.",
	"onlybot":     "I'm only accepting challenges from bots.",
}

// json is the ChallengeJson object. direction is "" on event-stream lines.
func (c *challenge) json(s *Server, direction string) map[string]any {
	bot := s.bot
	challenger, dest := c.opp, bot
	if !c.incoming {
		challenger, dest = bot, c.opp
	}
	user := func(p Player) map[string]any {
		m := map[string]any{"id": p.ID, "name": p.Name, "rating": p.Rating, "online": true, "lag": 4}
		if p.Title != "" {
			m["title"] = p.Title
		}
		return m
	}
	sp := c.spec
	var challengerJSON any = user(challenger)
	if c.incoming && sp.Anonymous {
		challengerJSON = nil
	}
	g := &game{hasClock: sp.ClockLimit > 0 || sp.ClockIncrement > 0, initial: sp.ClockLimit, inc: sp.ClockIncrement, variant: sp.Variant}
	var tc map[string]any
	switch {
	case g.hasClock:
		lim, inc := int(sp.ClockLimit/time.Second), int(sp.ClockIncrement/time.Second)
		tc = map[string]any{"type": "clock", "limit": lim, "increment": inc, "show": clockShow(sp.ClockLimit, inc)}
	case sp.Days > 0:
		tc = map[string]any{"type": "correspondence", "daysPerTurn": sp.Days}
	default:
		tc = map[string]any{"type": "unlimited"}
	}
	color := sp.Color
	if color == "" {
		color = "random"
	}
	m := map[string]any{
		"id": c.id, "url": "https://lichess.org/" + c.id, "status": c.status,
		"challenger": challengerJSON, "destUser": user(dest),
		"variant": variantJSON(sp.Variant, true), "rated": sp.Rated, "speed": g.speed(),
		"timeControl": tc, "color": color, "finalColor": c.finalColor,
		"perf": map[string]string{"icon": "", "name": perfName(g.perfKey())},
	}
	if direction != "" {
		m["direction"] = direction
	}
	if sp.Variant != "standard" && sp.FEN != "" {
		m["initialFen"] = sp.FEN
	}
	if sp.RematchOf != "" {
		m["rematchOf"] = sp.RematchOf
	}
	if c.status == "declined" {
		key := strings.ToLower(c.reason)
		if declineTexts[key] == "" {
			key = "generic"
		}
		m["declineReason"] = declineTexts[key]
		m["declineReasonKey"] = key
	}
	return m
}

func clockShow(limit time.Duration, inc int) string {
	var l string
	switch limit {
	case 15 * time.Second:
		l = "¼"
	case 30 * time.Second:
		l = "½"
	case 45 * time.Second:
		l = "¾"
	case 90 * time.Second:
		l = "1.5"
	default:
		l = strconv.Itoa(int(limit / time.Minute))
	}
	return fmt.Sprintf("%s+%d", l, inc)
}

func (c *challenge) event(typ string, s *Server) map[string]any {
	m := map[string]any{"type": typ, "challenge": c.json(s, "")}
	if typ == "challenge" {
		m["compat"] = map[string]bool{"bot": true, "board": false}
	}
	return m
}

// normSpec fills defaults. Call with s.mu held (it may draw a 960 position).
func (s *Server) normSpec(sp ChallengeSpec) ChallengeSpec {
	if sp.Variant == "" {
		sp.Variant = "standard"
	}
	if sp.Variant == "chess960" && sp.FEN == "" {
		sp.FEN = Chess960FEN(s.rng.IntN(960))
	}
	if sp.Color == "" {
		sp.Color = "random"
	}
	return sp
}

func (s *Server) finalColor(requested string) string {
	switch requested {
	case "white", "black":
		return requested
	}
	if s.rng.IntN(2) == 0 {
		return "white"
	}
	return "black"
}

// Challenge sends a challenge to the bot (a "challenge" event) and returns
// its id, which becomes the game id if the bot accepts.
func (s *Server) Challenge(spec ChallengeSpec) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case spec.Anonymous:
		spec.Challenger = Player{Name: "Anon."} // how lila lists an anonymous opponent
	case spec.Challenger.ID == "" && spec.Challenger.Name == "":
		spec.Challenger = Player{ID: "alice", Name: "Alice"}
	}
	if !spec.Anonymous {
		spec.Challenger = spec.Challenger.norm()
	}
	spec = s.normSpec(spec)
	c := &challenge{id: s.newID(8), incoming: true, opp: spec.Challenger, spec: spec,
		finalColor: s.finalColor(spec.Color), status: "created", created: time.Now()}
	s.challenges[c.id] = c
	s.chOrder = append(s.chOrder, c.id)
	s.pushEvent(c.event("challenge", s))
	s.notify()
	return c.id
}

// CancelChallenge makes the challenger withdraw a pending challenge to the
// bot (a "challengeCanceled" event).
func (s *Server) CancelChallenge(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.challenges[id]
	if c == nil || c.status != "created" {
		return fmt.Errorf("fakelichess: no pending challenge %q", id)
	}
	c.status = "canceled"
	s.pushEvent(c.event("challengeCanceled", s))
	s.notify()
	return nil
}

// ChallengeState returns a snapshot of a challenge.
func (s *Server) ChallengeState(id string) (ChallengeInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.challenges[id]
	if c == nil {
		return ChallengeInfo{}, false
	}
	return c.info(), true
}

// Challenges returns snapshots of every challenge, oldest first.
func (s *Server) Challenges() []ChallengeInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ChallengeInfo
	for _, id := range s.chOrder {
		out = append(out, s.challenges[id].info())
	}
	return out
}

// startFromChallenge creates the game. Call with s.mu held.
func (s *Server) startFromChallenge(c *challenge) {
	c.status = "accepted"
	botColor := board.White
	challengerWhite := c.finalColor == "white"
	if c.incoming == challengerWhite {
		botColor = board.Black
	}
	if c.opp.Title == "BOT" && !c.spec.Anonymous {
		s.botGames = append(s.botGames, s.opts.Now()) // lila's BotLimit counts the start
	}
	s.newGame(c.id, botColor, c.opp, c.spec)
}

// openIncoming returns the open challenge to the bot named in the path, or
// answers 404 and returns nil. Call with s.mu held.
func (s *Server) openIncoming(w http.ResponseWriter, r *http.Request) *challenge {
	c := s.challenges[r.PathValue("id")]
	if c == nil || !c.incoming || c.status != "created" {
		writeError(w, http.StatusNotFound, "Challenge not found")
		return nil
	}
	return c
}

func (s *Server) handleAccept(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.openIncoming(w, r)
	if c == nil {
		return
	}
	if !playable(c.spec.Variant) {
		writeError(w, http.StatusBadRequest, "fakelichess: this fake cannot play "+c.spec.Variant)
		return
	}
	if !c.spec.Anonymous && s.botLimitError(w, c.opp) {
		return
	}
	s.startFromChallenge(c)
	writeOK(w)
}

var declineKeys = []string{"generic", "later", "toofast", "tooslow", "timecontrol", "rated", "casual", "standard", "variant", "nobot", "onlybot"}

func (s *Server) handleDecline(w http.ResponseWriter, r *http.Request) {
	reason := r.PostForm.Get("reason")
	if reason == "" {
		reason = "generic"
	}
	if !slices.Contains(declineKeys, strings.ToLower(reason)) {
		writeFormError(w, "reason", "Invalid value")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.openIncoming(w, r)
	if c == nil {
		return
	}
	c.status, c.reason = "declined", reason
	s.pushEvent(c.event("challengeDeclined", s)) // lila tells the declining side too
	s.notify()
	writeOK(w)
}

func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := r.PathValue("id")
	if c := s.challenges[id]; c != nil && !c.incoming && c.status == "created" {
		c.status = "canceled"
		s.cancelTimer(&c.answer)
		s.pushEvent(c.event("challengeCanceled", s))
		s.notify()
		writeOK(w)
		return
	}
	if g := s.games[id]; g != nil && g.status == statusStarted && len(g.moves) < 2 {
		s.finish(g, statusAborted, "")
		writeOK(w)
		return
	}
	writeError(w, http.StatusNotFound, "Challenge not found")
}

func (s *Server) handleListChallenges(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, out := []any{}, []any{}
	for _, id := range s.chOrder {
		c := s.challenges[id]
		if c.status != "created" {
			continue
		}
		if c.incoming {
			in = append(in, c.json(s, "in"))
		} else {
			out = append(out, c.json(s, "out"))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"in": in, "out": out})
}

var validLimits = []int{0, 15, 30, 45, 60, 90}

func (s *Server) handleCreateChallenge(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	name := r.PathValue("user")
	s.mu.Lock()
	defer s.mu.Unlock()
	var opp *Player
	for i := range s.opts.OnlineBots {
		if strings.EqualFold(s.opts.OnlineBots[i].ID, name) {
			opp = &s.opts.OnlineBots[i]
		}
	}
	if opp == nil {
		writeError(w, http.StatusBadRequest, "No such user: "+name)
		return
	}
	if s.botLimitError(w, *opp) {
		return
	}
	spec := ChallengeSpec{Variant: f.Get("variant"), FEN: f.Get("fen"), Rated: f.Get("rated") == "true"}
	if f.Has("clock.limit") || f.Has("clock.increment") {
		lim, err1 := strconv.Atoi(f.Get("clock.limit"))
		inc, err2 := strconv.Atoi(f.Get("clock.increment"))
		if err1 != nil || err2 != nil || inc < 0 || inc > 60 || lim < 0 || lim > 10800 ||
			(!slices.Contains(validLimits, lim) && lim%60 != 0) {
			writeFormError(w, "clock", "Invalid value")
			return
		}
		spec.ClockLimit, spec.ClockIncrement = time.Duration(lim)*time.Second, time.Duration(inc)*time.Second
		if lichess.SpeedOf(spec.ClockLimit, spec.ClockIncrement) == lichess.SpeedUltraBullet {
			writeError(w, http.StatusBadRequest, "Bots cannot play UltraBullet. Choose a slower time control.")
			return
		}
	} else if d := f.Get("days"); d != "" {
		days, err := strconv.Atoi(d)
		if err != nil || !slices.Contains(lichess.CorrespondenceDays, days) {
			writeFormError(w, "days", "Invalid value")
			return
		}
		spec.Days = days
	}
	switch spec.Variant {
	case "", "standard", "chess960", "fromPosition":
	default:
		writeFormError(w, "variant", "this fake only plays standard, chess960 and fromPosition")
		return
	}
	if spec.FEN != "" {
		if spec.Rated {
			writeError(w, http.StatusBadRequest, "Custom positions cannot be rated")
			return
		}
		if _, err := board.ParseFEN(spec.FEN); err != nil {
			writeFormError(w, "fen", "Invalid value")
			return
		}
		if spec.Variant == "" || spec.Variant == "standard" {
			spec.Variant = "fromPosition"
		}
	}
	if f.Get("rules") != "" {
		writeError(w, http.StatusBadRequest, "Rules not applicable for bots")
		return
	}
	botSide := f.Get("color")
	switch botSide {
	case "", "random", "white", "black":
	default:
		writeFormError(w, "color", "Invalid value")
		return
	}
	spec.Color = botSide
	spec = s.normSpec(spec)
	c := &challenge{id: s.newID(8), opp: *opp, spec: spec, finalColor: s.finalColor(spec.Color), status: "created", created: time.Now()}
	s.challenges[c.id] = c
	s.chOrder = append(s.chOrder, c.id)
	s.pushEvent(c.event("challenge", s))
	s.notify()
	c.answer = s.after(s.opts.AnswerDelay, func() { s.answer(c) })
	writeJSON(w, http.StatusOK, c.json(s, "out"))
}

// answer is the opponent's reply to the bot's challenge.
func (s *Server) answer(c *challenge) {
	s.mu.Lock()
	if c.status != "created" || s.closed {
		s.mu.Unlock()
		return
	}
	info := c.info()
	s.mu.Unlock()
	reason := ""
	if s.opts.AnswerChallenge != nil {
		reason = s.opts.AnswerChallenge(info)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.status != "created" || s.closed {
		return
	}
	if reason == "" {
		s.startFromChallenge(c)
		return
	}
	c.status, c.reason = "declined", reason
	s.pushEvent(c.event("challengeDeclined", s))
	s.notify()
}
