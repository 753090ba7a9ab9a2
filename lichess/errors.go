package lichess

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrUnauthorized is wrapped by every error for a 401 or 403 answer: the
// token is wrong, revoked, or lacks a scope. It is fatal; retrying will not
// help. Messages never contain the token. The bot needs only bot:play (the
// server takes it for the event stream and for challenges too); only
// Client.Challenges needs challenge:read, which the bot does not call.
var ErrUnauthorized = errors.New("lichess: token rejected: check LICHESS_TOKEN and that it has the bot:play scope")

// ErrStreamIdle is returned (wrapped) when a stream stayed silent, not even a
// keep-alive line, for longer than the idle timeout: the connection is
// treated as dead.
var ErrStreamIdle = errors.New("lichess: stream silent for too long")

// ErrStreamEnded is returned by StreamEvents when the server closed the event
// stream (which Lichess never does on purpose): reconnect.
var ErrStreamEnded = errors.New("lichess: stream closed by the server")

// APIError is a non-2xx answer other than 401/403/429. Message is Lichess's
// error text when there was one (field errors read "field: message").
// LimitKey and RetryAfter are set when the answer carried a "ratelimit"
// object: lila answers 400 so when the OPPONENT is out of its quota (e.g.
// bot.vsBot.day: the other bot played its 100 bot games today).
type APIError struct {
	Method     string
	Path       string // path without host and query
	Status     int
	Message    string
	LimitKey   string
	RetryAfter time.Duration
}

// OpponentLimited reports whether err is lila's answer that the opponent is
// out of a quota, and for how long.
func OpponentLimited(err error) (time.Duration, bool) {
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusBadRequest && ae.LimitKey != "" {
		return ae.RetryAfter, true
	}
	return 0, false
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

// RateLimitError is a 429 answer, or a request not sent because its
// endpoint family is paused past the caller's deadline (NotSent).
//
// A plain 429 (no "ratelimit" object) is a request-rate limit: the client
// has paused the endpoint Family until Until (Retry-After, or
// RateLimitPause, or GameActionPause for one game's actions); other
// families go on.
//
// A quota 429 carries Lichess's "ratelimit" object: Key (e.g.
// "bot.vsBot.day", the daily bot-vs-bot games) and RetryAfter until it
// resets (Until). Quota() is true; nothing is paused — only that action is
// used up, and the caller must stop doing it until Until.
type RateLimitError struct {
	Method, Path string
	Family       string // the paused endpoint family ("" for a quota)
	Message      string
	Key          string
	RetryAfter   time.Duration
	Until        time.Time
	NotSent      bool // the family was paused: the request never left
}

// Quota reports whether the answer was a quota (a "ratelimit" key), not a
// request-rate limit.
func (e *RateLimitError) Quota() bool { return e.Key != "" }

func (e *RateLimitError) Error() string {
	var s string
	switch {
	case e.Quota():
		s = fmt.Sprintf("lichess: %s %s: 429 quota %s used up until %s", e.Method, e.Path, e.Key, e.Until.Format(time.TimeOnly))
	case e.NotSent:
		s = fmt.Sprintf("lichess: %s %s: not sent: %s is paused until %s after a 429", e.Method, e.Path, e.Family, e.Until.Format(time.TimeOnly))
	default:
		s = fmt.Sprintf("lichess: %s %s: 429 rate limited; %s paused until %s", e.Method, e.Path, e.Family, e.Until.Format(time.TimeOnly))
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// QuotaReached returns the quota error in err's chain, if err is a quota 429.
func QuotaReached(err error) (*RateLimitError, bool) {
	var rl *RateLimitError
	if errors.As(err, &rl) && rl.Quota() {
		return rl, true
	}
	return nil, false
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
	var fe *fatalError
	if errors.As(err, &fe) {
		return true
	}
	var me *MoveError
	return errors.As(err, &me)
}

// fatalError marks a configuration error no retry can fix (a refused base URL).
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }
