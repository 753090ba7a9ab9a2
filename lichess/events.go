package lichess

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Event is one line of the account event stream (GET /api/stream/event):
// *GameStartEvent, *GameFinishEvent, *ChallengeEvent,
// *ChallengeCanceledEvent or *ChallengeDeclinedEvent. Switch on the type.
type Event interface{ eventType() string }

// GameStartEvent: a game of ours started (also replayed for every ongoing
// game when the stream opens).
type GameStartEvent struct{ Game GameEventInfo }

// GameFinishEvent: a game of ours ended.
type GameFinishEvent struct{ Game GameEventInfo }

// ChallengeEvent: a challenge to us, or one we created (compare
// Challenge.Challenger.ID with our id). Open challenges are replayed when the
// stream opens. Only accept when Compat is nil or Compat.Bot is true.
type ChallengeEvent struct {
	Challenge Challenge
	Compat    *Compat
}

// ChallengeCanceledEvent: the challenger withdrew a challenge.
type ChallengeCanceledEvent struct{ Challenge Challenge }

// ChallengeDeclinedEvent: a challenge (usually ours) was declined;
// Challenge.DeclineReasonKey says why.
type ChallengeDeclinedEvent struct{ Challenge Challenge }

func (*GameStartEvent) eventType() string         { return "gameStart" }
func (*GameFinishEvent) eventType() string        { return "gameFinish" }
func (*ChallengeEvent) eventType() string         { return "challenge" }
func (*ChallengeCanceledEvent) eventType() string { return "challengeCanceled" }
func (*ChallengeDeclinedEvent) eventType() string { return "challengeDeclined" }

// GameEvent is one line of a bot game stream (GET /api/bot/game/stream/{id}):
// *GameFull (always first, also after a reconnect), *GameStateEvent,
// *ChatLine or *OpponentGone.
type GameEvent interface{ gameEventType() string }

// GameStateEvent wraps a gameState line.
type GameStateEvent struct{ GameState }

// ChatLine is a chat message, our own included.
type ChatLine struct {
	Room     string `json:"room"` // "player" or "spectator"
	Username string `json:"username"`
	Text     string `json:"text"`
}

// OpponentGone reports the opponent leaving (Gone true; ClaimWinInSeconds
// counts down to 0, then ClaimVictory is allowed) or coming back (Gone false).
type OpponentGone struct {
	Gone              bool `json:"gone"`
	ClaimWinInSeconds *int `json:"claimWinInSeconds,omitempty"`
}

func (*GameFull) gameEventType() string       { return "gameFull" }
func (*GameStateEvent) gameEventType() string { return "gameState" }
func (*ChatLine) gameEventType() string       { return "chatLine" }
func (*OpponentGone) gameEventType() string   { return "opponentGone" }

// ErrUnknownType marks a well-formed line whose "type" this package does not
// know; streams skip such lines (Lichess may add types at any time).
var ErrUnknownType = errors.New("lichess: unknown event type")

type envelope struct {
	Type *string `json:"type"`
}

func lineType(line []byte) (string, error) {
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return "", fmt.Errorf("lichess: malformed line: %w", err)
	}
	if env.Type == nil {
		return "", errors.New(`lichess: malformed line: no "type"`)
	}
	return *env.Type, nil
}

// DecodeEvent decodes one non-empty line of the event stream. Unknown fields
// are ignored; invalid JSON, wrong field types or missing identifiers are
// errors; an unknown type returns an error wrapping ErrUnknownType. It never
// panics.
func DecodeEvent(line []byte) (Event, error) {
	typ, err := lineType(line)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "gameStart", "gameFinish":
		var w struct {
			Game *GameEventInfo `json:"game"`
		}
		if err := json.Unmarshal(line, &w); err != nil {
			return nil, fmt.Errorf("lichess: malformed %s: %w", typ, err)
		}
		if w.Game == nil {
			return nil, fmt.Errorf(`lichess: malformed %s: no "game"`, typ)
		}
		if w.Game.GameID == "" {
			w.Game.GameID = w.Game.ID
		}
		if w.Game.GameID == "" {
			return nil, fmt.Errorf("lichess: malformed %s: no game id", typ)
		}
		if typ == "gameStart" {
			return &GameStartEvent{Game: *w.Game}, nil
		}
		return &GameFinishEvent{Game: *w.Game}, nil
	case "challenge", "challengeCanceled", "challengeDeclined":
		var w struct {
			Challenge *Challenge `json:"challenge"`
			Compat    *Compat    `json:"compat"`
		}
		if err := json.Unmarshal(line, &w); err != nil {
			return nil, fmt.Errorf("lichess: malformed %s: %w", typ, err)
		}
		if w.Challenge == nil || w.Challenge.ID == "" {
			return nil, fmt.Errorf("lichess: malformed %s: no challenge id", typ)
		}
		switch typ {
		case "challenge":
			return &ChallengeEvent{Challenge: *w.Challenge, Compat: w.Compat}, nil
		case "challengeCanceled":
			return &ChallengeCanceledEvent{Challenge: *w.Challenge}, nil
		default:
			return &ChallengeDeclinedEvent{Challenge: *w.Challenge}, nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownType, typ)
}

// DecodeGameEvent decodes one non-empty line of a bot game stream, with the
// same strictness as DecodeEvent.
func DecodeGameEvent(line []byte) (GameEvent, error) {
	typ, err := lineType(line)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "gameFull":
		var w struct {
			GameFull
			State *struct {
				GameState
				Status *GameStatus `json:"status"`
			} `json:"state"`
		}
		if err := json.Unmarshal(line, &w); err != nil {
			return nil, fmt.Errorf("lichess: malformed gameFull: %w", err)
		}
		if w.ID == "" {
			return nil, errors.New("lichess: malformed gameFull: no id")
		}
		if w.State == nil || w.State.Status == nil || *w.State.Status == "" {
			return nil, errors.New("lichess: malformed gameFull: no state status")
		}
		g := w.GameFull
		g.State = w.State.GameState
		g.State.Status = *w.State.Status
		if g.InitialFEN == "" {
			g.InitialFEN = "startpos"
		}
		return &g, nil
	case "gameState":
		var w struct {
			GameState
			Status *GameStatus `json:"status"`
		}
		if err := json.Unmarshal(line, &w); err != nil {
			return nil, fmt.Errorf("lichess: malformed gameState: %w", err)
		}
		if w.Status == nil || *w.Status == "" {
			return nil, errors.New("lichess: malformed gameState: no status")
		}
		s := &GameStateEvent{GameState: w.GameState}
		s.Status = *w.Status
		return s, nil
	case "chatLine":
		var c ChatLine
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("lichess: malformed chatLine: %w", err)
		}
		return &c, nil
	case "opponentGone":
		var w struct {
			OpponentGone
			Gone *bool `json:"gone"`
		}
		if err := json.Unmarshal(line, &w); err != nil {
			return nil, fmt.Errorf("lichess: malformed opponentGone: %w", err)
		}
		if w.Gone == nil {
			return nil, errors.New(`lichess: malformed opponentGone: no "gone"`)
		}
		o := w.OpponentGone
		o.Gone = *w.Gone
		return &o, nil
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownType, typ)
}
