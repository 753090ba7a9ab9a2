package lichess

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxLine bounds one ndjson line; longer lines end the stream with an error.
const maxLine = 1 << 20

// StreamEvents opens the account event stream (GET /api/stream/event) once.
// Events arrive on the first channel, which is closed when the stream ends;
// then the error channel yields why (ErrStreamEnded, a wrapped
// ErrStreamIdle, a network error, ctx.Err(), or an open error such as a
// wrapped ErrUnauthorized) and is closed. Read the events channel until it
// is closed, then the error channel. Keep-alive lines reset the idle
// watchdog; malformed lines and unknown types are logged and skipped.
//
// Only one event stream per token may be open: opening another one makes
// Lichess close the first. Most callers want WatchEvents, which reconnects.
func (c *Client) StreamEvents(ctx context.Context) (<-chan Event, <-chan error) {
	return streamLines(c, ctx, "/api/stream/event", c.opts.EventIdleTimeout, DecodeEvent, nil, &c.events)
}

// StreamGame opens the bot game stream of one game (GET
// /api/bot/game/stream/{id}) once. The first event is always *GameFull. The
// channels behave as in StreamEvents, except that when the server closes the
// stream after a final status (the game is over) the error channel is
// closed without a value; a close before that yields ErrStreamEnded. Most
// callers want WatchGame, which reconnects.
func (c *Client) StreamGame(ctx context.Context, gameID string) (<-chan GameEvent, <-chan error) {
	return streamLines(c, ctx, "/api/bot/game/stream/"+gameID, c.opts.GameIdleTimeout, DecodeGameEvent, gameOver, nil)
}

// gameOver reports whether a game event carries a final status.
func gameOver(ev GameEvent) bool {
	switch e := ev.(type) {
	case *GameFull:
		return e.State.Status.Finished()
	case *GameStateEvent:
		return e.Status.Finished()
	}
	return false
}

// streamLines runs one ndjson stream in a goroutine it owns; track (nil for
// none) follows its state.
func streamLines[T any](c *Client, ctx context.Context, path string, idle time.Duration,
	decode func([]byte) (T, error), final func(T) bool, track *streamTracker) (<-chan T, <-chan error) {
	out := make(chan T)
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		defer close(out)
		err := readStream(c, ctx, path, idle, decode, final, out, track)
		track.down(c.clock.Now(), err)
		if err != nil {
			errc <- err
		}
	}()
	return out, errc
}

// readStream opens path and delivers decoded lines to out until the stream
// ends. The idle watchdog runs while waiting for the server (headers or the
// next line), and is paused while the consumer takes an event.
func readStream[T any](c *Client, ctx context.Context, path string, idle time.Duration,
	decode func([]byte) (T, error), final func(T) bool, out chan<- T, track *streamTracker) error {
	if c.urlErr != nil {
		return &fatalError{c.urlErr}
	}
	fam := "GET " + path
	if err := c.wait(ctx, c.limiter, http.MethodGet, path, fam); err != nil {
		var rl *RateLimitError
		if errors.As(err, &rl) {
			return err
		}
		return fmt.Errorf("lichess: GET %s: %w", path, err)
	}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(idle, func() { cancel(ErrStreamIdle) })
	defer watchdog.Stop()

	resp, err := c.r.R().SetContext(sctx).SetDoNotParseResponse(true).
		SetHeader("Accept", "application/x-ndjson").Get(path)
	if err != nil {
		return c.streamErr(ctx, sctx, path, err)
	}
	body := resp.RawBody()
	defer body.Close() // never drain: a live stream would block until its next keep-alive
	if st := resp.StatusCode(); st != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(body, 64<<10))
		if err := c.check(http.MethodGet, path, fam, st, resp.Header(), b); err != nil {
			return err
		}
		return &APIError{Method: http.MethodGet, Path: path, Status: st, Message: "unexpected status for a stream"}
	}

	track.up(c.clock.Now())
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	ended := false
	for sc.Scan() {
		watchdog.Reset(idle)
		line := bytes.TrimSpace(sc.Bytes())
		track.data(c.clock.Now(), len(line) > 0)
		if len(line) == 0 {
			continue // keep-alive
		}
		v, err := decode(line)
		if err != nil {
			if errors.Is(err, ErrUnknownType) {
				c.log.Debug("lichess: skipping stream line of unknown type", "path", path, "err", err)
			} else {
				c.log.Warn("lichess: skipping malformed stream line", "path", path, "err", err, "line", truncate(string(line)))
			}
			continue
		}
		if final != nil && final(v) {
			ended = true
		}
		watchdog.Stop()
		select {
		case out <- v:
		case <-ctx.Done():
			return ctx.Err()
		}
		watchdog.Reset(idle)
	}
	if err := sc.Err(); err != nil {
		return c.streamErr(ctx, sctx, path, err)
	}
	if err := c.streamErr(ctx, sctx, path, nil); err != nil {
		return err
	}
	if ended {
		return nil
	}
	return fmt.Errorf("lichess: GET %s: %w", path, ErrStreamEnded)
}

// streamErr explains why a stream read or open failed: the caller's ctx,
// the idle watchdog, or the network (err may be nil after a clean EOF).
func (c *Client) streamErr(ctx, sctx context.Context, path string, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(context.Cause(sctx), ErrStreamIdle):
		return fmt.Errorf("lichess: GET %s: %w", path, ErrStreamIdle)
	case err != nil:
		return fmt.Errorf("lichess: GET %s: %w", path, scrub(err, c.opts.Token))
	}
	return nil
}

// WatchEvents follows the account event stream for as long as ctx lives,
// reconnecting whenever it drops, goes silent or fails with a temporary
// error. Reconnects wait ReconnectMin, doubling up to ReconnectMax, with
// ±50% jitter; the wait resets after a connection that stayed up
// HealthyAfter. The previous reader is always finished (joined) before a new
// stream is opened, so there is never more than one event stream.
//
// After a reconnect Lichess replays every ongoing game (gameStart) and open
// challenge (challenge): consumers must treat events idempotently (key them
// by game or challenge id).
//
// The events channel is closed when WatchEvents stops; the error channel
// then yields the fatal error (IsFatal: bad token, 4xx) or is closed
// without a value when ctx ended.
func (c *Client) WatchEvents(ctx context.Context) (<-chan Event, <-chan error) {
	return watch(c, ctx, "event stream", func(ctx context.Context) (<-chan Event, <-chan error) {
		return c.StreamEvents(ctx)
	}, nil, false)
}

// WatchGame follows one game's stream, reconnecting like WatchEvents until
// the game is over, except that the wait also resets after a connection
// that delivered an event: it was working, and our clock may be running.
// Every (re)connection starts with a *GameFull carrying the complete state: resynchronise from it, never apply moves on top of old
// state. The events channel is closed after the final state (the error
// channel then closed without a value), when ctx ends, or on a fatal error
// (404: not our game; 400: not playable by a bot), which the error channel
// yields.
func (c *Client) WatchGame(ctx context.Context, gameID string) (<-chan GameEvent, <-chan error) {
	return watch(c, ctx, "game stream "+gameID, func(ctx context.Context) (<-chan GameEvent, <-chan error) {
		return c.StreamGame(ctx, gameID)
	}, gameOver, true)
}

// watch runs open until final accepts a value (nil: until ctx ends),
// reconnecting with backoff; with resetOnData, a connection that delivered a
// value counts as healthy however short it lived.
func watch[T any](c *Client, ctx context.Context, what string,
	open func(context.Context) (<-chan T, <-chan error), final func(T) bool, resetOnData bool) (<-chan T, <-chan error) {
	out := make(chan T)
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		defer close(out)
		backoff := c.opts.ReconnectMin
		for attempt := 1; ; attempt++ {
			start := c.clock.Now()
			in, ierr := open(ctx)
			ended, delivered := false, false
			for v := range in { // join: drain until the reader closes it
				delivered = true
				if final != nil && final(v) {
					ended = true
				}
				select {
				case out <- v:
				case <-ctx.Done():
				}
			}
			err := <-ierr
			switch {
			case ctx.Err() != nil:
				return
			case err == nil && (final == nil || ended):
				return // the game is over
			case err != nil && IsFatal(err):
				errc <- err
				return
			}
			if c.clock.Now().Sub(start) >= c.opts.HealthyAfter || (resetOnData && delivered) {
				backoff = c.opts.ReconnectMin
			}
			wait := c.jitter(backoff)
			c.log.Warn("lichess: reconnecting", "stream", what, "attempt", attempt, "wait", wait, "err", err)
			if c.clock.Sleep(ctx, wait) != nil {
				return
			}
			backoff = min(backoff*2, c.opts.ReconnectMax)
		}
	}()
	return out, errc
}
