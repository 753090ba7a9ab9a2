package lichess

// The 429 gate: a 429 pauses only the endpoint family it limits (one
// game's actions, or one endpoint), for Retry-After or the default pause;
// other families, and the moves of other games, go on.

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// Pauses returns the endpoint families paused by a 429 now, with the end of
// each pause.
func (c *Client) Pauses() map[string]time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	out := map[string]time.Time{}
	for f, t := range c.paused {
		if t.After(now) {
			out[f] = t
		}
	}
	return out
}

// family is the key a 429 pauses: the method and path template, with the
// game id filled in for game actions and game streams, which are paused per
// game.
func family(method, path string, params map[string]string) string {
	if strings.HasPrefix(path, "/api/bot/game/") && params["id"] != "" {
		path = strings.ReplaceAll(path, "{id}", params["id"])
	}
	return method + " " + path
}

// gameFamily reports whether a family belongs to one game.
func gameFamily(f string) bool { return strings.Contains(f, " /api/bot/game/") }

// wait blocks until family's pause is over and lim grants a token.
// When ctx's deadline comes before the end of the pause, it returns a
// *RateLimitError at once: the request is not sent.
func (c *Client) wait(ctx context.Context, lim *rate.Limiter, method, path, family string) error {
	for {
		c.mu.Lock()
		until := c.paused[family]
		c.mu.Unlock()
		d := until.Sub(c.clock.Now())
		if d <= 0 {
			break
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return &RateLimitError{Method: method, Path: path, Family: family, RetryAfter: d, Until: until, NotSent: true}
		}
		if err := c.clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
	return lim.Wait(ctx)
}

// pause stops family until now+d (a longer pause already set is kept).
func (c *Client) pause(family string, d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	for f, t := range c.paused { // forget finished pauses
		if !t.After(now) {
			delete(c.paused, f)
		}
	}
	until := now.Add(d)
	if until.After(c.paused[family]) {
		c.paused[family] = until
	}
	return c.paused[family]
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		d = time.Duration(min(n, int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = max(t.Sub(now), 0)
	} else {
		return 0, false
	}
	return min(d, maxRetryAfter), true
}
