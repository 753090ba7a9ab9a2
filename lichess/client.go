// Package lichess is a client for the Lichess Bot API: account, challenges,
// game actions and the two ndjson streams (account events and per-game
// state), with typed values for every object a bot uses.
//
// Moves stay UCI strings here; translating them to board moves is the bot's
// job. One Client should serve the whole process: it owns the process-wide
// rate limiter and the 60-second pause that a 429 answer imposes on every
// request.
//
// Policies, in short:
//   - every request (streams included) first waits for the 429 gate and for
//     the shared rate.Limiter;
//   - unary calls get a per-call deadline and are retried with backoff on
//     network errors and 5xx when the call is safe to repeat;
//   - 401/403 are fatal and wrap ErrUnauthorized, never showing the token;
//   - streams have no overall timeout but an idle watchdog; a silent stream
//     is declared dead (ErrStreamIdle). WatchEvents and WatchGame reconnect
//     with exponential backoff and jitter.
package lichess

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-resty/resty/v2"
	"golang.org/x/time/rate"
)

// DefaultBaseURL is the Lichess server.
const DefaultBaseURL = "https://lichess.org"

// RateLimitPause is how long every request waits after a 429 (Lichess asks
// for one full minute).
const RateLimitPause = 60 * time.Second

// DefaultRate and DefaultBurst size the default limiter: 5 requests a
// second on average (300 a minute, well under what gets a 429 in practice
// for moves), with bursts of 15.
const (
	DefaultRate  rate.Limit = 5
	DefaultBurst            = 15
)

// Clock is the time source for the 429 pause and for retry and reconnect
// backoff. Tests inject a fake one; the zero Options use the real clock.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx is done (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Options configure a Client. Only Token is required.
type Options struct {
	BaseURL   string // default DefaultBaseURL
	Token     string // API token; sent as a Bearer header, never logged
	UserAgent string // e.g. "ponderosa/1.2.3 (+https://lichess.org/@/mybot)"; Lichess asks bots to identify themselves

	// Limiter is waited on before every request, streams included. Share
	// one per process; nil means DefaultRate with a burst of DefaultBurst.
	// Size it for the moves of every concurrent game: a bullet game posts
	// about one move a second.
	Limiter *rate.Limiter
	// Clock drives the 429 pause and backoff waits; nil means real time.
	Clock Clock
	// Logger receives warnings (skipped lines, retries, reconnects); nil
	// discards them.
	Logger *slog.Logger
	// HTTPClient, if set, is used as the transport client. It must not have
	// a Timeout (that would cut streams).
	HTTPClient *http.Client

	// CallTimeout is the deadline of one attempt of a unary call (default 10 s).
	CallTimeout time.Duration
	// MoveTimeout is the deadline of one attempt of a move POST (default 3 s).
	MoveTimeout time.Duration
	// Retries is how many times a safe call is retried after a network error
	// or 5xx (default 3; negative means none).
	Retries int
	// RetryBackoff is the first retry delay; it doubles per attempt, with
	// jitter (default 250 ms).
	RetryBackoff time.Duration

	// EventIdleTimeout declares the event stream dead after this much
	// silence (Lichess sends a keep-alive every 6-7 s; default 20 s).
	EventIdleTimeout time.Duration
	// GameIdleTimeout does the same for game streams (default 20 s).
	GameIdleTimeout time.Duration
	// ReconnectMin and ReconnectMax bound the reconnect backoff of
	// WatchEvents/WatchGame (defaults 500 ms and 60 s).
	ReconnectMin, ReconnectMax time.Duration
	// HealthyAfter is how long a stream must stay up for the reconnect
	// backoff to reset to ReconnectMin (default 60 s).
	HealthyAfter time.Duration
}

// Client talks to Lichess. It is safe for concurrent use. Close it when done
// to release idle connections.
type Client struct {
	r       *resty.Client
	hc      *http.Client
	limiter *rate.Limiter
	clock   Clock
	log     *slog.Logger
	opts    Options

	mu        sync.Mutex
	gateUntil time.Time // no request before this (429 pause)
	rng       *rand.Rand
}

// New returns a Client. It does no I/O.
func New(opts Options) *Client {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.UserAgent == "" {
		opts.UserAgent = "ponderosa-lichess-bot"
	}
	if opts.Limiter == nil {
		opts.Limiter = rate.NewLimiter(DefaultRate, DefaultBurst)
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.CallTimeout, 10*time.Second)
	def(&opts.MoveTimeout, 3*time.Second)
	def(&opts.RetryBackoff, 250*time.Millisecond)
	def(&opts.EventIdleTimeout, 20*time.Second)
	def(&opts.GameIdleTimeout, 20*time.Second)
	def(&opts.ReconnectMin, 500*time.Millisecond)
	def(&opts.ReconnectMax, 60*time.Second)
	def(&opts.HealthyAfter, 60*time.Second)
	if opts.Retries == 0 {
		opts.Retries = 3
	} else if opts.Retries < 0 {
		opts.Retries = 0
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	r := resty.NewWithClient(hc).
		SetBaseURL(opts.BaseURL).
		SetHeader("User-Agent", opts.UserAgent).
		SetHeader("Accept", "application/json").
		SetAuthToken(opts.Token).
		SetDisableWarn(true).
		SetLogger(restyLogger{opts.Logger}).
		SetRetryCount(0).
		SetResponseBodyLimit(8 << 20) // unary answers only; streams are read raw
	return &Client{
		r: r, hc: hc, limiter: opts.Limiter, clock: opts.Clock, log: opts.Logger, opts: opts,
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15)),
	}
}

// Close releases idle connections. Streams end with their contexts.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// restyLogger routes resty's own messages to slog at debug level. Resty never
// sees debug mode, so it never dumps headers (the token).
type restyLogger struct{ l *slog.Logger }

func (r restyLogger) Errorf(f string, v ...any) { r.l.Debug("resty: " + fmt.Sprintf(f, v...)) }
func (r restyLogger) Warnf(f string, v ...any)  { r.l.Debug("resty: " + fmt.Sprintf(f, v...)) }
func (r restyLogger) Debugf(f string, v ...any) { r.l.Debug("resty: " + fmt.Sprintf(f, v...)) }

// RateLimitedUntil returns the end of the current 429 pause (zero or past
// when there is none).
func (c *Client) RateLimitedUntil() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gateUntil
}

// wait blocks until the 429 gate is open and the limiter grants a token.
func (c *Client) wait(ctx context.Context) error {
	for {
		c.mu.Lock()
		until := c.gateUntil
		c.mu.Unlock()
		d := until.Sub(c.clock.Now())
		if d <= 0 {
			break
		}
		if err := c.clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
	return c.limiter.Wait(ctx)
}

func (c *Client) closeGate(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	until := c.clock.Now().Add(d)
	if until.After(c.gateUntil) {
		c.gateUntil = until
	}
	return c.gateUntil
}

// jitter returns d scaled by a random factor in [0.5, 1.5).
func (c *Client) jitter(d time.Duration) time.Duration {
	c.mu.Lock()
	f := 0.5 + c.rng.Float64()
	c.mu.Unlock()
	return time.Duration(float64(d) * f)
}

// call describes one unary request.
type call struct {
	method  string
	path    string // may contain {name} placeholders
	params  map[string]string
	query   map[string]string
	form    map[string]string
	body    string // raw text/plain body (token test)
	out     any    // decoded from JSON on 2xx when non-nil
	retry   bool   // safe to repeat after a network error or 5xx
	timeout time.Duration
}

// errorBody is Lichess's error JSON.
type errorBody struct {
	Error     string `json:"error"`
	RateLimit *struct {
		Key     string `json:"key"`
		Seconds int64  `json:"seconds"`
	} `json:"ratelimit"`
}

// do runs a unary call with gate, limiter, deadline and retries.
func (c *Client) do(ctx context.Context, k call) error {
	if k.timeout <= 0 {
		k.timeout = c.opts.CallTimeout
	}
	attempts := 1
	if k.retry {
		attempts += c.opts.Retries
	}
	backoff := c.opts.RetryBackoff
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			c.log.Warn("lichess: retrying", "method", k.method, "path", k.path, "attempt", i+1, "err", err)
			if serr := c.clock.Sleep(ctx, c.jitter(backoff)); serr != nil {
				return errors.Join(err, serr)
			}
			backoff *= 2
		}
		var retryable bool
		retryable, err = c.once(ctx, k)
		if err == nil || !retryable || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// once runs one attempt; retryable says whether a failure may be retried.
func (c *Client) once(ctx context.Context, k call) (retryable bool, err error) {
	if err := c.wait(ctx); err != nil {
		return false, fmt.Errorf("lichess: %s %s: %w", k.method, k.path, err)
	}
	actx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	req := c.r.R().SetContext(actx)
	if len(k.params) > 0 {
		req.SetPathParams(k.params)
	}
	if len(k.query) > 0 {
		req.SetQueryParams(k.query)
	}
	if k.form != nil {
		req.SetFormData(k.form)
	} else if k.body != "" {
		req.SetHeader("Content-Type", "text/plain").SetBody(k.body)
	}
	resp, err := req.Execute(k.method, k.path)
	if err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("lichess: %s %s: %w", k.method, k.path, ctx.Err())
		}
		return true, fmt.Errorf("lichess: %s %s: %w", k.method, expand(k.path, k.params), scrub(err, c.opts.Token))
	}
	if err := c.check(k.method, expand(k.path, k.params), resp.StatusCode(), resp.Header(), resp.Body()); err != nil {
		var ae *APIError
		return errors.As(err, &ae) && ae.Temporary(), err
	}
	if sink, ok := k.out.(*ndjsonSink); ok {
		*sink = append((*sink)[:0], resp.Body()...)
	} else if k.out != nil {
		if err := json.Unmarshal(resp.Body(), k.out); err != nil {
			return false, fmt.Errorf("lichess: %s %s: decoding answer: %w", k.method, expand(k.path, k.params), err)
		}
	}
	return false, nil
}

// check turns a non-2xx status into a typed error; a 429 closes the gate.
func (c *Client) check(method, path string, status int, h http.Header, body []byte) error {
	if status >= 200 && status < 300 {
		return nil
	}
	var eb errorBody
	_ = json.Unmarshal(body, &eb) // best effort: the body may be HTML or empty
	msg := eb.Error
	if msg == "" && len(body) > 0 && body[0] != '<' {
		msg = strings.TrimSpace(string(body[:min(len(body), 200)]))
	}
	msg = strings.ReplaceAll(msg, c.opts.Token, "***")
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if msg == "" {
			msg = http.StatusText(status)
		}
		return fmt.Errorf("%w (%s %s: %d %s)", ErrUnauthorized, method, path, status, msg)
	case status == http.StatusTooManyRequests:
		retry := RateLimitPause
		rl := &RateLimitError{Method: method, Path: path, Message: msg}
		if eb.RateLimit != nil {
			rl.Key = eb.RateLimit.Key
			if s := time.Duration(eb.RateLimit.Seconds) * time.Second; s > retry {
				retry = s
			}
		}
		rl.RetryAfter = retry
		rl.Until = c.closeGate(RateLimitPause)
		c.log.Warn("lichess: rate limited (429), pausing every request", "path", path, "until", rl.Until, "key", rl.Key)
		return rl
	}
	return &APIError{Method: method, Path: path, Status: status, Message: msg}
}

// expand fills {name} placeholders for messages.
func expand(path string, params map[string]string) string {
	for k, v := range params {
		path = strings.ReplaceAll(path, "{"+k+"}", v)
	}
	return path
}

// scrub hides the token should an error text ever contain it.
func scrub(err error, token string) error {
	if token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), token, "***"))
}
