package lichess

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Color is a side of the board as Lichess spells it: "white" or "black".
// Challenges also use "random" for the requested side.
type Color string

// Colors used on the wire.
const (
	White  Color = "white"
	Black  Color = "black"
	Random Color = "random"
)

// Other returns the opposite colour ("" for anything but white or black).
func (c Color) Other() Color {
	switch c {
	case White:
		return Black
	case Black:
		return White
	}
	return ""
}

// GameStatus is a game status name (GameStatusName in the spec). Unknown
// values are kept as they are, so a status Lichess adds later still decodes.
type GameStatus string

// Game statuses, with the numeric ids the event stream pairs them with.
const (
	StatusCreated                   GameStatus = "created"       // 10
	StatusStarted                   GameStatus = "started"       // 20
	StatusAborted                   GameStatus = "aborted"       // 25
	StatusMate                      GameStatus = "mate"          // 30
	StatusResign                    GameStatus = "resign"        // 31
	StatusStalemate                 GameStatus = "stalemate"     // 32
	StatusTimeout                   GameStatus = "timeout"       // 33: opponent left, win claimed
	StatusDraw                      GameStatus = "draw"          // 34
	StatusOutOfTime                 GameStatus = "outoftime"     // 35: flag fall
	StatusCheat                     GameStatus = "cheat"         // 36
	StatusNoStart                   GameStatus = "noStart"       // 37
	StatusUnknownFinish             GameStatus = "unknownFinish" // 38
	StatusInsufficientMaterialClaim GameStatus = "insufficientMaterialClaim"
	StatusVariantEnd                GameStatus = "variantEnd" // 60
)

// StatusID returns the numeric id Lichess uses for a status name, or 0 when
// the name is unknown.
func (s GameStatus) StatusID() int {
	switch s {
	case StatusCreated:
		return 10
	case StatusStarted:
		return 20
	case StatusAborted:
		return 25
	case StatusMate:
		return 30
	case StatusResign:
		return 31
	case StatusStalemate:
		return 32
	case StatusTimeout:
		return 33
	case StatusDraw:
		return 34
	case StatusOutOfTime:
		return 35
	case StatusCheat:
		return 36
	case StatusNoStart:
		return 37
	case StatusUnknownFinish:
		return 38
	case StatusInsufficientMaterialClaim:
		return 39
	case StatusVariantEnd:
		return 60
	}
	return 0
}

// Finished reports whether the status ends the game: anything but created
// and started (and the empty string).
func (s GameStatus) Finished() bool {
	return s != "" && s != StatusCreated && s != StatusStarted
}

// VariantKey names a variant: standard, chess960, fromPosition, and others the
// bot declines.
type VariantKey string

// Variant keys.
const (
	VariantStandard      VariantKey = "standard"
	VariantChess960      VariantKey = "chess960"
	VariantFromPosition  VariantKey = "fromPosition"
	VariantCrazyhouse    VariantKey = "crazyhouse"
	VariantAntichess     VariantKey = "antichess"
	VariantAtomic        VariantKey = "atomic"
	VariantHorde         VariantKey = "horde"
	VariantKingOfTheHill VariantKey = "kingOfTheHill"
	VariantRacingKings   VariantKey = "racingKings"
	VariantThreeCheck    VariantKey = "threeCheck"
)

// Variant is the variant object: {key, name, short}.
type Variant struct {
	Key   VariantKey `json:"key"`
	Name  string     `json:"name,omitempty"`
	Short string     `json:"short,omitempty"`
}

// Speed is the speed class of a time control.
type Speed string

// Speeds.
const (
	SpeedUltraBullet    Speed = "ultraBullet"
	SpeedBullet         Speed = "bullet"
	SpeedBlitz          Speed = "blitz"
	SpeedRapid          Speed = "rapid"
	SpeedClassical      Speed = "classical"
	SpeedCorrespondence Speed = "correspondence"
)

// EstimatedDuration is how long Lichess expects a real-time game of base
// plus inc per move to last for each player: base + 40×inc, the measure
// its speed classes are cut from.
func EstimatedDuration(base, inc time.Duration) time.Duration { return base + 40*inc }

// SpeedOf is the speed class of a real-time clock of base plus inc per
// move, as Lichess classes it: by EstimatedDuration, under 30 s
// UltraBullet, under 3 min bullet, under 8 min blitz, under 25 min rapid,
// else classical.
func SpeedOf(base, inc time.Duration) Speed {
	est := EstimatedDuration(base, inc)
	switch {
	case est < 30*time.Second:
		return SpeedUltraBullet
	case est < 3*time.Minute:
		return SpeedBullet
	case est < 8*time.Minute:
		return SpeedBlitz
	case est < 25*time.Minute:
		return SpeedRapid
	}
	return SpeedClassical
}

// ChallengeStatus is the status of a challenge.
type ChallengeStatus string

// Challenge statuses.
const (
	ChallengeCreated  ChallengeStatus = "created"
	ChallengeOffline  ChallengeStatus = "offline"
	ChallengeCanceled ChallengeStatus = "canceled"
	ChallengeDeclined ChallengeStatus = "declined"
	ChallengeAccepted ChallengeStatus = "accepted"
)

// DeclineReason is a reason for declining a challenge. The constants are the
// camelCase keys that POST /api/challenge/{id}/decline takes; events may spell
// them in lower case, so compare with [DeclineReason.Is].
type DeclineReason string

// Decline reasons.
const (
	DeclineGeneric     DeclineReason = "generic"
	DeclineLater       DeclineReason = "later"
	DeclineTooFast     DeclineReason = "tooFast"
	DeclineTooSlow     DeclineReason = "tooSlow"
	DeclineTimeControl DeclineReason = "timeControl"
	DeclineRated       DeclineReason = "rated"    // "I only play rated games"
	DeclineCasual      DeclineReason = "casual"   // "I only play casual games"
	DeclineStandard    DeclineReason = "standard" // "I only play standard chess"
	DeclineVariant     DeclineReason = "variant"
	DeclineNoBot       DeclineReason = "noBot"
	DeclineOnlyBot     DeclineReason = "onlyBot"
)

// Is reports whether r and o are the same reason, ignoring case.
func (r DeclineReason) Is(o DeclineReason) bool { return strings.EqualFold(string(r), string(o)) }

// Compat says which APIs can play a game: only games with Bot true are ours.
type Compat struct {
	Bot   bool `json:"bot"`
	Board bool `json:"board"`
}

// Perf is one rating category of a user.
type Perf struct {
	Games  int  `json:"games"`
	Rating int  `json:"rating"`
	RD     int  `json:"rd"`
	Prog   int  `json:"prog"`
	Prov   bool `json:"prov,omitempty"`
}

// User is the profile returned by GET /api/account (UserExtended) and by the
// online-bots list (User). Only the fields a bot uses are kept.
type User struct {
	ID           string          `json:"id"`       // lowercase: use for comparisons
	Username     string          `json:"username"` // display case
	Title        string          `json:"title,omitempty"`
	Perfs        map[string]Perf `json:"perfs,omitempty"`
	CreatedAt    int64           `json:"createdAt,omitempty"` // epoch ms
	SeenAt       int64           `json:"seenAt,omitempty"`    // epoch ms
	URL          string          `json:"url,omitempty"`
	Disabled     bool            `json:"disabled,omitempty"`
	TosViolation bool            `json:"tosViolation,omitempty"`
}

// IsBot reports whether the user has the BOT title.
func (u *User) IsBot() bool { return u.Title == "BOT" }

// GameStatusObject is the {id, name} status used on the event stream (the
// game stream uses the bare name). It also decodes from a bare string.
type GameStatusObject struct {
	ID   int        `json:"id"`
	Name GameStatus `json:"name"`
}

// UnmarshalJSON accepts {"id":..,"name":..} and, leniently, a bare name.
func (s *GameStatusObject) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var name string
		if err := json.Unmarshal(b, &name); err != nil {
			return err
		}
		*s = GameStatusObject{ID: GameStatus(name).StatusID(), Name: GameStatus(name)}
		return nil
	}
	type plain GameStatusObject
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = GameStatusObject(p)
	return nil
}

// Opponent is the opponent in GameEventInfo. For the Lichess AI, ID is empty
// and AI holds its level.
type Opponent struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	Rating     int    `json:"rating,omitempty"`
	RatingDiff int    `json:"ratingDiff,omitempty"`
	AI         int    `json:"ai,omitempty"`
}

// GameEventInfo is the game object of gameStart/gameFinish events and of
// GET /api/account/playing.
type GameEventInfo struct {
	FullID       string           `json:"fullId,omitempty"`
	GameID       string           `json:"gameId"`
	ID           string           `json:"id,omitempty"` // same as GameID (legacy)
	Color        Color            `json:"color"`        // our colour
	FEN          string           `json:"fen,omitempty"`
	LastMove     string           `json:"lastMove"`
	IsMyTurn     bool             `json:"isMyTurn"`
	SecondsLeft  *int             `json:"secondsLeft,omitempty"` // our clock, seconds; nil when unlimited
	HasMoved     bool             `json:"hasMoved"`
	Source       string           `json:"source,omitempty"`
	Status       GameStatusObject `json:"status"`
	Variant      Variant          `json:"variant"`
	Speed        Speed            `json:"speed,omitempty"`
	Perf         string           `json:"perf,omitempty"`
	Rated        bool             `json:"rated"`
	Rating       int              `json:"rating,omitempty"`
	RatingDiff   int              `json:"ratingDiff,omitempty"`
	Opponent     Opponent         `json:"opponent"`
	Winner       Color            `json:"winner,omitempty"` // gameFinish only; empty on draw/abort
	Compat       *Compat          `json:"compat,omitempty"`
	TournamentID string           `json:"tournamentId,omitempty"`
}

// ChallengeUser is a challenger or challenged user.
type ChallengeUser struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Rating      int    `json:"rating,omitempty"`
	Title       string `json:"title,omitempty"`
	Provisional bool   `json:"provisional,omitempty"`
	Online      bool   `json:"online,omitempty"`
	Lag         int    `json:"lag,omitempty"`
}

// IsBot reports whether the user has the BOT title.
func (u *ChallengeUser) IsBot() bool { return u != nil && u.Title == "BOT" }

// AnonymousName is the name given to a challenger who is not logged in
// (lila sends "challenger": null).
const AnonymousName = "Anonymous"

// IsAnonymous reports whether the user is an anonymous (logged-out) player:
// no id. Anonymous players are humans, never bots.
func (u *ChallengeUser) IsAnonymous() bool { return u == nil || u.ID == "" }

// TimeControl of a challenge. Type is "clock" (Limit, Increment in SECONDS),
// "correspondence" (DaysPerTurn) or "unlimited".
type TimeControl struct {
	Type        string `json:"type"`
	Limit       int    `json:"limit,omitempty"`     // seconds
	Increment   int    `json:"increment,omitempty"` // seconds
	Show        string `json:"show,omitempty"`
	DaysPerTurn int    `json:"daysPerTurn,omitempty"`
}

// ChallengePerf is the perf object of a challenge ({icon, name}).
type ChallengePerf struct {
	Icon string `json:"icon"`
	Name string `json:"name"`
}

// Challenge is ChallengeJson (and its declined/canceled forms).
type Challenge struct {
	ID          string          `json:"id"`
	URL         string          `json:"url"`
	Status      ChallengeStatus `json:"status"`
	Challenger  ChallengeUser   `json:"challenger"`
	DestUser    *ChallengeUser  `json:"destUser"` // nil for an open challenge
	Variant     Variant         `json:"variant"`
	Rated       bool            `json:"rated"`
	Speed       Speed           `json:"speed"`
	TimeControl TimeControl     `json:"timeControl"`
	Color       Color           `json:"color"`                // challenger's requested side (may be random)
	FinalColor  Color           `json:"finalColor,omitempty"` // challenger's actual side: we get the other
	Perf        ChallengePerf   `json:"perf"`
	Direction   string          `json:"direction,omitempty"` // "in"/"out": list/create responses only
	InitialFEN  string          `json:"initialFen,omitempty"`
	RematchOf   string          `json:"rematchOf,omitempty"`
	Rules       []string        `json:"rules,omitempty"`

	DeclineReason    string        `json:"declineReason,omitempty"`    // translated text
	DeclineReasonKey DeclineReason `json:"declineReasonKey,omitempty"` // compare with Is
}

// UnmarshalJSON decodes ChallengeJson. An anonymous challenger (lila writes
// "challenger": null) becomes a ChallengeUser with no id, named
// AnonymousName, so that logs and policies never see an empty name.
func (c *Challenge) UnmarshalJSON(b []byte) error {
	type plain Challenge
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if p.Challenger.ID == "" {
		p.Challenger = ChallengeUser{Name: AnonymousName}
	} else if p.Challenger.Name == "" {
		p.Challenger.Name = p.Challenger.ID
	}
	*c = Challenge(p)
	return nil
}

// GamePlayer is white or black in gameFull. For the Lichess AI only AILevel is set.
type GamePlayer struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Rating      int    `json:"rating,omitempty"`
	Provisional bool   `json:"provisional,omitempty"`
	AILevel     int    `json:"aiLevel,omitempty"`
}

// GameClock is the clock of a real-time game, in MILLISECONDS on the wire.
type GameClock struct {
	Initial   int64 `json:"initial"`   // ms
	Increment int64 `json:"increment"` // ms
}

// InitialTime returns Initial as a Duration.
func (c GameClock) InitialTime() time.Duration { return time.Duration(c.Initial) * time.Millisecond }

// IncrementTime returns Increment as a Duration.
func (c GameClock) IncrementTime() time.Duration {
	return time.Duration(c.Increment) * time.Millisecond
}

// Expiration is present in gameState while a side's first move is pending:
// the game is aborted if nobody moves within MillisToMove.
type Expiration struct {
	IdleMillis   int64 `json:"idleMillis"`
	MillisToMove int64 `json:"millisToMove"`
}

// GameFull is the first line of every game stream: immutable game data plus
// the current state. Our colour is not in it: compare White.ID/Black.ID with
// the account id.
type GameFull struct {
	ID          string     `json:"id"`
	Variant     Variant    `json:"variant"`
	Clock       *GameClock `json:"clock,omitempty"` // nil for correspondence/unlimited
	DaysPerTurn int        `json:"daysPerTurn,omitempty"`
	Speed       Speed      `json:"speed"`
	Perf        struct {
		Name string `json:"name"`
	} `json:"perf"`
	Rated        bool       `json:"rated"`
	CreatedAt    int64      `json:"createdAt"` // epoch ms
	White        GamePlayer `json:"white"`
	Black        GamePlayer `json:"black"`
	InitialFEN   string     `json:"initialFen"` // "startpos" or a FEN
	State        GameState  `json:"state"`
	TournamentID string     `json:"tournamentId,omitempty"`
}

// GameState is the mutable state of a game: every move so far and the
// clocks (MILLISECONDS). It is re-sent without a new move (draw offers…):
// detect new moves by counting them.
type GameState struct {
	Moves      string      `json:"moves"` // all moves, space separated UCI; "" before the first
	WTime      int64       `json:"wtime"` // ms
	BTime      int64       `json:"btime"` // ms
	WInc       int64       `json:"winc"`  // ms
	BInc       int64       `json:"binc"`  // ms
	Status     GameStatus  `json:"status"`
	Winner     Color       `json:"winner,omitempty"`
	WDraw      bool        `json:"wdraw,omitempty"`
	BDraw      bool        `json:"bdraw,omitempty"`
	WTakeback  bool        `json:"wtakeback,omitempty"`
	BTakeback  bool        `json:"btakeback,omitempty"`
	Expiration *Expiration `json:"expiration,omitempty"`
	Rematch    string      `json:"rematch,omitempty"`
}

// MoveList splits Moves into UCI strings (nil before the first move).
func (s *GameState) MoveList() []string { return strings.Fields(s.Moves) }

// Clock returns the remaining times and increments as Durations.
func (s *GameState) Clock() (wtime, btime, winc, binc time.Duration) {
	ms := time.Millisecond
	return time.Duration(s.WTime) * ms, time.Duration(s.BTime) * ms,
		time.Duration(s.WInc) * ms, time.Duration(s.BInc) * ms
}

// DrawOffered reports whether side c is offering a draw.
func (s *GameState) DrawOffered(c Color) bool {
	if c == White {
		return s.WDraw
	}
	return c == Black && s.BDraw
}

// TakebackProposed reports whether side c is proposing a takeback.
func (s *GameState) TakebackProposed(c Color) bool {
	if c == White {
		return s.WTakeback
	}
	return c == Black && s.BTakeback
}

// CorrespondenceDays are the days per move a correspondence challenge may
// have (lila's Challenge.TimeControl.Correspondence choices).
var CorrespondenceDays = []int{1, 2, 3, 5, 7, 10, 14}

// ChallengeParams describes a challenge to create (matchmaking). A real-time
// game needs ClockLimit and ClockIncrement (both in SECONDS; ClockLimit one
// of 0, 15, 30, 45, 60, 90 or a multiple of 60 up to 10800); Days makes a
// correspondence game; neither means unlimited.
type ChallengeParams struct {
	Rated          bool
	ClockLimit     int // seconds
	ClockIncrement int // seconds
	Days           int
	Color          Color      // our side; "" means random
	Variant        VariantKey // "" means standard
	FEN            string     // optional start position (never rated)
}

func (p ChallengeParams) form() map[string]string {
	f := map[string]string{"rated": fmt.Sprint(p.Rated)}
	if p.Days > 0 {
		f["days"] = fmt.Sprint(p.Days)
	} else if p.ClockLimit > 0 || p.ClockIncrement > 0 {
		f["clock.limit"] = fmt.Sprint(p.ClockLimit)
		f["clock.increment"] = fmt.Sprint(p.ClockIncrement)
	}
	if p.Color != "" {
		f["color"] = string(p.Color)
	}
	if p.Variant != "" {
		f["variant"] = string(p.Variant)
	}
	if p.FEN != "" {
		f["fen"] = p.FEN
	}
	return f
}
