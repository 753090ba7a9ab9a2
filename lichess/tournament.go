package lichess

// Arena and Swiss tournaments: the bot joins them, withdraws (pauses) from
// them, and reads their state. Shapes follow the lichess-org/api spec
// (tags/arenatournaments, tags/swisstournaments; schemas ArenaTournamentFull
// and SwissTournament); lila's join errors are 400 {"error": text} with the
// texts of Tournament.JoinResult (TournamentErr*).
//
// Bots may join the arenas and Swiss tournaments that allow them
// (conditions.bots); the others answer 400 "Tournament restrictions" and
// list "Bot players are not allowed" among their verdicts. Joins are
// rate limited by lila (about 30 per 10 minutes, first joins 8 an hour):
// a 429 pauses the join family "POST /api/tournament/{id}/join" (all
// arenas) like any other endpoint; lila's own "You are joining too many
// tournaments" is a 400.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Lila's join refusals (Tournament.JoinResult), as the error text of a 400.
const (
	TournamentErrWrongCode    = "Wrong entry code"
	TournamentErrPaused       = "Your pause is not over yet"
	TournamentErrRestrictions = "Tournament restrictions"
	TournamentErrMissingTeam  = "Missing team"
	TournamentErrTooMany      = "You are joining too many tournaments"
	TournamentErrNotFound     = "This tournament no longer exists"
	TournamentErrBanned       = "You are not allowed to join arenas"
)

// ConditionNoBots is the verdict condition of a tournament closed to bots.
const ConditionNoBots = "Bot players are not allowed"

// JoinArenaOptions are the form fields of an arena join.
type JoinArenaOptions struct {
	// Password is the tournament's password or the player's entry code.
	Password string
	// Team is the team to play for in a team battle.
	Team string
	// PairMeAsap asks lila to pair us in a started arena even though we
	// are not on the tournament page; it lasts a minute, and joining again
	// extends it.
	PairMeAsap bool
}

// JoinArena joins an arena, or resumes after a withdraw (POST
// /api/tournament/{id}/join). A refusal is an *APIError (400) whose
// Message is one of the TournamentErr* texts.
func (c *Client) JoinArena(ctx context.Context, id string, o JoinArenaOptions) error {
	form := map[string]string{}
	if o.Password != "" {
		form["password"] = o.Password
	}
	if o.Team != "" {
		form["team"] = o.Team
	}
	if o.PairMeAsap {
		form["pairMeAsap"] = "true"
	}
	return c.do(ctx, call{method: http.MethodPost, path: "/api/tournament/{id}/join",
		params: map[string]string{"id": id}, form: form, retry: true})
}

// WithdrawArena leaves an arena that has not started, or pauses in one
// that has (POST /api/tournament/{id}/withdraw): no new pairings, the score
// is kept, a game in progress goes on.
func (c *Client) WithdrawArena(ctx context.Context, id string) error {
	return c.do(ctx, call{method: http.MethodPost, path: "/api/tournament/{id}/withdraw",
		params: map[string]string{"id": id}, form: map[string]string{}, retry: true})
}

// JoinSwiss joins a Swiss tournament (POST /api/swiss/{id}/join), with its
// password if it has one.
func (c *Client) JoinSwiss(ctx context.Context, id, password string) error {
	form := map[string]string{}
	if password != "" {
		form["password"] = password
	}
	return c.do(ctx, call{method: http.MethodPost, path: "/api/swiss/{id}/join",
		params: map[string]string{"id": id}, form: form, retry: true})
}

// WithdrawSwiss leaves a Swiss tournament before it starts, or pauses in
// it (POST /api/swiss/{id}/withdraw).
func (c *Client) WithdrawSwiss(ctx context.Context, id string) error {
	return c.do(ctx, call{method: http.MethodPost, path: "/api/swiss/{id}/withdraw",
		params: map[string]string{"id": id}, form: map[string]string{}, retry: true})
}

// TournamentClock is a tournament's time control, in seconds.
type TournamentClock struct {
	Limit     int `json:"limit"`
	Increment int `json:"increment"`
}

// Verdicts are a tournament's entry conditions as they apply to the
// token's owner: each condition with "ok" or the reason it fails.
type Verdicts struct {
	List []struct {
		Condition string `json:"condition"`
		Verdict   string `json:"verdict"`
	} `json:"list"`
	Accepted bool `json:"accepted"`
}

// Refused returns the conditions that are not met.
func (v *Verdicts) Refused() []string {
	if v == nil {
		return nil
	}
	var out []string
	for _, x := range v.List {
		if x.Verdict != "ok" {
			out = append(out, x.Condition)
		}
	}
	return out
}

// Timestamp reads lila's dates: an ISO 8601 string (the current
// tournament JSON) or epoch milliseconds (older examples). Zero when absent.
type Timestamp struct{ time.Time }

// UnmarshalJSON accepts a string, a number or null.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	switch {
	case s == "null" || s == `""`:
		t.Time = time.Time{}
		return nil
	case strings.HasPrefix(s, `"`):
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		v, err := time.Parse(time.RFC3339, str)
		if err != nil {
			return fmt.Errorf("lichess: bad date %q", str)
		}
		t.Time = v
		return nil
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("lichess: bad date %.40s", s)
	}
	t.Time = time.UnixMilli(ms)
	return nil
}

// Arena is an arena tournament (GET /api/tournament/{id}), the fields a
// bot uses.
type Arena struct {
	ID              string          `json:"id"`
	FullName        string          `json:"fullName"`
	Rated           bool            `json:"rated"`
	Clock           TournamentClock `json:"clock"`
	Minutes         int             `json:"minutes"`
	Variant         string          `json:"variant"`
	System          string          `json:"system"`
	StartsAt        Timestamp       `json:"startsAt"`
	SecondsToStart  int             `json:"secondsToStart"`
	SecondsToFinish int             `json:"secondsToFinish"`
	IsStarted       bool            `json:"isStarted"`
	IsFinished      bool            `json:"isFinished"`
	PairingsClosed  bool            `json:"pairingsClosed"`
	NbPlayers       int             `json:"nbPlayers"`
	Berserkable     bool            `json:"berserkable"`
	Verdicts        *Verdicts       `json:"verdicts"`
	// TeamBattle lists the teams of a team battle (nil otherwise).
	TeamBattle *struct {
		Teams map[string]json.RawMessage `json:"teams"`
	} `json:"teamBattle"`
	// Me is the token owner's place, when joined.
	Me *struct {
		Rank     int    `json:"rank"`
		Withdraw bool   `json:"withdraw"`
		GameID   string `json:"gameId"`
	} `json:"me"`
}

// Arena returns an arena tournament's state (GET /api/tournament/{id}).
func (c *Client) Arena(ctx context.Context, id string) (*Arena, error) {
	var a Arena
	if err := c.do(ctx, call{method: http.MethodGet, path: "/api/tournament/{id}",
		params: map[string]string{"id": id}, out: &a, retry: true}); err != nil {
		return nil, err
	}
	if a.ID == "" {
		return nil, fmt.Errorf("lichess: GET /api/tournament/%s: answer has no id", id)
	}
	return &a, nil
}

// Swiss is a Swiss tournament (GET /api/swiss/{id}), the fields a bot uses.
type Swiss struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	CreatedBy string          `json:"createdBy"`
	StartsAt  Timestamp       `json:"startsAt"`
	Clock     TournamentClock `json:"clock"`
	Variant   string          `json:"variant"`
	Round     int             `json:"round"`
	NbRounds  int             `json:"nbRounds"`
	NbPlayers int             `json:"nbPlayers"`
	NbOngoing int             `json:"nbOngoing"`
	// Status is "created", "started" or "finished".
	Status   string    `json:"status"`
	Rated    bool      `json:"rated"`
	Verdicts *Verdicts `json:"verdicts"`
}

// Finished reports whether the tournament is over.
func (s *Swiss) Finished() bool { return s.Status == "finished" }

// Swiss returns a Swiss tournament's state (GET /api/swiss/{id}).
func (c *Client) Swiss(ctx context.Context, id string) (*Swiss, error) {
	var s Swiss
	if err := c.do(ctx, call{method: http.MethodGet, path: "/api/swiss/{id}",
		params: map[string]string{"id": id}, out: &s, retry: true}); err != nil {
		return nil, err
	}
	if s.ID == "" {
		return nil, fmt.Errorf("lichess: GET /api/swiss/%s: answer has no id", id)
	}
	return &s, nil
}

// JoinRefusal classifies a failed join. Permanent refusals (a wrong
// password, a tournament closed to bots, a missing team, a tournament that
// is gone) will not change by retrying; the others (a pause not over, too
// many joins, a 429, a server or network failure) may pass: retry after
// the returned wait (zero: the caller's own backoff).
func JoinRefusal(err error) (permanent bool, wait time.Duration) {
	var rl *RateLimitError
	if errors.As(err, &rl) {
		return false, max(time.Until(rl.Until), rl.RetryAfter)
	}
	if errors.Is(err, ErrUnauthorized) {
		return true, 0
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		return false, 0 // network, timeout
	}
	if ae.Temporary() {
		return false, 0
	}
	switch {
	case strings.Contains(ae.Message, TournamentErrPaused):
		return false, 0
	case strings.Contains(ae.Message, TournamentErrTooMany):
		return false, 10 * time.Minute
	}
	return true, 0
}
