package bot

import (
	"context"
	"errors"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// Move retries after a 429: the client pauses this game's moves (for
// Retry-After, or lichess.GameActionPause); the game waits with backoff and
// posts again while its clock allows. Nothing else waits: other games'
// moves are other endpoint families.
const (
	moveRetryFirst = 250 * time.Millisecond
	moveRetryMax   = 4 * time.Second
	// moveRetryAttempts bounds the retries of a game without a clock.
	moveRetryAttempts = 20
	// moveAnswerGrace is how long after our clock's end (as the stream
	// showed it) a move's answer is still awaited: Lichess's flag falls no
	// later than that, give or take its lag compensation.
	moveAnswerGrace = time.Second
)

// sendMove posts uci for the search job j, offering a draw with it when
// offerDraw is set. A 429 on the move is retried with backoff, never past
// the moment our clock would run out (its state's arrival plus our time,
// less the learned overhead). That moment only decides whether another
// attempt is worth making: an attempt is always sent, however little
// time is left, and waits for its answer until Lichess's own flag has
// surely passed (moveAnswerGrace after our clock's end). Cutting it
// earlier lost the answers to moves Lichess had played in time: the bot
// took them for failures and searched again, and with less time left
// than the overhead estimate it never sent its last move at all (a flag
// with time on the clock). It returns the error of the last attempt; a
// lichess.Attempt in ctx records that attempt's own round trip, so the
// waits never teach the overhead learner.
func (r *gameRunner) sendMove(ctx context.Context, j *searchJob, uci string, offerDraw bool) (err error) {
	var deadline, answerBy time.Time
	if r.board.kind == realTime && j.clock > 0 {
		deadline = j.received.Add(j.clock - r.svc.overhead.Overhead())
		answerBy = j.received.Add(j.clock + moveAnswerGrace)
	}
	backoff := moveRetryFirst
	for attempt := 1; ; attempt++ {
		mctx, cancel := ctx, context.CancelFunc(func() {})
		if !answerBy.IsZero() {
			mctx, cancel = context.WithDeadline(ctx, answerBy)
		}
		err = r.svc.api.Move(mctx, r.id, uci, offerDraw)
		cancel()
		var rl *lichess.RateLimitError
		if err == nil || !errors.As(err, &rl) || rl.Quota() || ctx.Err() != nil {
			return err
		}
		wait := max(backoff, rl.RetryAfter) // RetryAfter: the pause left, on the client's clock
		if (!deadline.IsZero() && time.Now().Add(wait).After(deadline)) || (deadline.IsZero() && attempt >= moveRetryAttempts) {
			r.log.Warn("move rate limited and the clock allows no retry", "move", uci, "err", err)
			return err
		}
		r.log.Warn("move rate limited (429); retrying this game's move", "move", uci, "wait", wait.Round(time.Millisecond), "attempt", attempt)
		r.svc.stats.count(func(s *stats) { s.moveRetries++ })
		if !waitRetry(ctx, wait) {
			return err
		}
		backoff = min(backoff*2, moveRetryMax)
	}
}

// actionRetries is how many times a game action (draw, takeback, abort,
// claim, chat) is posted again after a 429, within actionTimeout.
const actionRetries = 3

// retryRateLimited runs a game action, posting it again after a plain 429
// (the answer means Lichess did not act on it, so even a chat line is
// safe to repeat) with backoff, while ctx's deadline allows.
func (r *gameRunner) retryRateLimited(ctx context.Context, what string, f func(context.Context) error) error {
	backoff := moveRetryFirst
	for attempt := 0; ; attempt++ {
		err := f(ctx)
		var rl *lichess.RateLimitError
		if err == nil || !errors.As(err, &rl) || rl.Quota() || attempt >= actionRetries {
			return err
		}
		wait := max(backoff, rl.RetryAfter)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return err
		}
		r.log.Warn(what+" rate limited (429); retrying", "wait", wait.Round(time.Millisecond))
		if !waitRetry(ctx, wait) {
			return err
		}
		backoff = min(backoff*2, moveRetryMax)
	}
}

// sleepCtx waits for d; it returns false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// waitRetry waits before posting again and leaves the wait out of the
// attempt's wire time (the overhead learner must not learn it); false when
// ctx ended first.
func waitRetry(ctx context.Context, wait time.Duration) bool {
	slept := time.Now()
	ok := sleepCtx(ctx, wait)
	lichess.AttemptOf(ctx).AddWait(time.Since(slept))
	return ok
}
