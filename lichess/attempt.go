package lichess

import (
	"context"
	"time"
)

// Attempt is the timing of a call's last attempt on the wire: when it was
// sent, after any wait for the rate limiter, a 429 pause or a retry
// backoff, and when its answer (or failure) came. A caller that measures
// its own latency uses it to leave those waits out.
type Attempt struct {
	Sent, Answered time.Time
	// Attempts counts the attempts sent (more than one after retries).
	Attempts int
	// Waited adds up what is not the last attempt: waits for the rate
	// limiter or a 429 pause, retry backoffs, and failed attempts. Time
	// the caller's own goroutine spends unscheduled is not in it.
	Waited time.Duration
}

// AddWait records d as waited (for a caller that retries on its own).
func (a *Attempt) AddWait(d time.Duration) {
	if a != nil {
		a.Waited += d
	}
}

// AttemptOf returns the Attempt that ctx records into, or nil.
func AttemptOf(ctx context.Context) *Attempt { return attemptOf(ctx) }

// Wire returns how long the last attempt took on the wire (0 if none was
// sent).
func (a *Attempt) Wire() time.Duration {
	if a.Sent.IsZero() || a.Answered.Before(a.Sent) {
		return 0
	}
	return a.Answered.Sub(a.Sent)
}

type attemptKey struct{}

// WithAttempt returns a context whose calls record their last attempt in a
// (one call at a time per Attempt).
func WithAttempt(ctx context.Context, a *Attempt) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

func attemptOf(ctx context.Context) *Attempt {
	a, _ := ctx.Value(attemptKey{}).(*Attempt)
	return a
}
