package lichess

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrUnauthorized is wrapped by every error for a 401 or 403 answer: the
// token is wrong, revoked, or lacks a scope. It is fatal; retrying will not
// help. Messages never contain the token.
var ErrUnauthorized = errors.New("lichess: token rejected: check LICHESS_TOKEN and its scopes (bot:play, challenge:read, challenge:write)")

// ErrStreamIdle is returned (wrapped) when a stream stayed silent, not even a
// keep-alive line, for longer than the idle timeout: the connection is
// treated as dead.
var ErrStreamIdle = errors.New("lichess: stream silent for too long")

// ErrStreamEnded is returned by StreamEvents when the server closed the event
// stream (which Lichess never does on purpose): reconnect.
var ErrStreamEnded = errors.New("lichess: stream closed by the server")

// APIError is a non-2xx answer other than 401/403/429. Message is Lichess's
// {"error": "..."} text when there was one.
type APIError struct {
	Method  string
	Path    string // path without host and query
	Status  int
	Message string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("lichess: %s %s: %d: %s", e.Method, e.Path, e.Status, msg)
}

// Temporary reports whether the error is a server-side (5xx) failure that may
// go away on retry.
func (e *APIError) Temporary() bool { return e.Status >= 500 }

// MoveError is returned by Client.Move when Lichess rejects the move with
// 400 (illegal move, not our turn, game over). Message is Lichess's text.
// The game stream is the source of truth: resynchronise from it.
type MoveError struct {
	GameID  string
	Move    string
	Message string
}

func (e *MoveError) Error() string {
	return fmt.Sprintf("lichess: move %s in game %s rejected: %s", e.Move, e.GameID, e.Message)
}

// RateLimitError is a 429 answer. The client has already closed its gate:
// no request of this Client (which should be the one per process) is sent
// before Until. Key and RetryAfter come from Lichess's "ratelimit" object
// when present (e.g. "bot.vsBot.day" with a day-long RetryAfter for the daily
// bot-game quota); RetryAfter is at least the 60 s pause.
type RateLimitError struct {
	Method, Path string
	Message      string
	Key          string
	RetryAfter   time.Duration
	Until        time.Time // end of the process-wide pause
}

func (e *RateLimitError) Error() string {
	s := fmt.Sprintf("lichess: %s %s: 429 rate limited, pausing all requests until %s", e.Method, e.Path, e.Until.Format(time.TimeOnly))
	if e.Key != "" {
		s += fmt.Sprintf(" (limit %s, retry after %s)", e.Key, e.RetryAfter.Round(time.Second))
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// IsFatal reports whether err means retrying (or reconnecting) is pointless:
// an authorization failure, or a 4xx answer other than 429 (e.g. 404 for a
// game that is not ours, 400 for a game the Bot API cannot play).
func IsFatal(err error) bool {
	if errors.Is(err, ErrUnauthorized) {
		return true
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status >= 400 && ae.Status < 500
	}
	var me *MoveError
	return errors.As(err, &me)
}
