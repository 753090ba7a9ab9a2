// Package lichess is a client for the Lichess Bot API: account, challenges,
// game actions and the two ndjson streams (account events and per-game
// state), with typed values for every object a bot uses.
//
// Moves stay UCI strings here; translating them to board moves is the bot's
// job. One Client should serve the whole process: it owns the process-wide
// rate limiter and the pauses that 429 answers impose.
//
// Lichess answers 429 for two different things, and the client keeps them
// apart:
//   - a request-rate limit (too many calls to one endpoint): the client
//     pauses that endpoint family — the method and path template, e.g.
//     "POST /api/challenge/{id}/accept" — for Retry-After, or a minute when
//     the answer has none. Nothing else waits. Game actions
//     (/api/bot/game/{id}/...) are families per game, paused for
//     Retry-After or GameActionPause, so one game's 429 never touches
//     another game; the game retries within its own clock;
//   - a quota (the body carries a "ratelimit" object, e.g. bot.vsBot.day,
//     at most 100 bot-vs-bot games a day): the answer is a *RateLimitError
//     with Quota() true and the reset time; no endpoint is paused, since
//     the same endpoint still serves other requests (accepting a human).
//
// Policies, in short:
//   - every request (streams included) first waits for its family's pause
//     — or fails at once with a *RateLimitError, sending nothing, when its
//     context's deadline comes before the pause ends — and for the shared
//     rate.Limiter;
//   - unary calls get a per-call deadline and are retried with backoff on
//     network errors and 5xx when the call is safe to repeat;
//   - redirects are never followed (a redirect could carry the token to
//     another host, port or scheme);
//   - 401/403 are fatal and wrap ErrUnauthorized, never showing the token;
//   - streams have no overall timeout but an idle watchdog; a silent stream
//     is declared dead (ErrStreamIdle). WatchEvents and WatchGame reconnect
//     with exponential backoff and jitter.
package lichess

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-resty/resty/v2"
	"golang.org/x/time/rate"
)

// DefaultBaseURL is the Lichess server.
const DefaultBaseURL = "https://lichess.org"

// RateLimitPause is how long an endpoint family is paused after a 429 that
// has no Retry-After header (Lichess asks for one full minute).
const RateLimitPause = 60 * time.Second

// GameActionPause is how long one game's action family (its moves, its chat,
// its draw offers...) is paused after a 429 without Retry-After: the game
// itself retries with backoff while its clock allows.
const GameActionPause = time.Second

// maxRetryAfter caps a Retry-After header (a broken or hostile value must not
// stop an endpoint for days).
const maxRetryAfter = time.Hour

// DefaultRate and DefaultBurst size the default limiter: 5 requests a
// second on average (300 a minute, well under what gets a 429 in practice
// for moves), with bursts of 15.
const (
	DefaultRate  rate.Limit = 5
	DefaultBurst int        = 15
)

// ChatRate and ChatBurst size the default chat limiter: a line a second,
// bursts of 5 (greetings to both rooms, a command reply).
const (
	ChatRate  rate.Limit = 1
	ChatBurst int        = 5
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
	// ChatLimiter is waited on before chat lines instead of Limiter, so
	// that chat never takes the tokens moves need; nil means ChatRate with
	// a burst of ChatBurst.
	ChatLimiter *rate.Limiter
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

	urlErr error // a base URL the token must not be sent to

	events streamTracker // the account event stream's state

	mu     sync.Mutex
	paused map[string]time.Time // endpoint family → no request before this (429)
	rng    *rand.Rand
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
	if opts.ChatLimiter == nil {
		opts.ChatLimiter = rate.NewLimiter(ChatRate, ChatBurst)
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
	var hc *http.Client
	if opts.HTTPClient != nil {
		c := *opts.HTTPClient
		hc = &c
	} else {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	// Never follow a redirect: Go's default keeps the Authorization header
	// when only the port or scheme changes, and re-sends a POST body (the
	// token test's body is the token) to the new target. The 3xx answer
	// itself comes back as an *APIError.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	urlErr := CheckBaseURL(opts.BaseURL)
	token := opts.Token
	if urlErr != nil {
		token = "" // never sent: every request fails with urlErr first
	}
	r := resty.NewWithClient(hc).
		SetBaseURL(opts.BaseURL).
		SetHeader("User-Agent", opts.UserAgent).
		SetHeader("Accept", "application/json").
		SetAuthToken(token).
		SetDisableWarn(true).
		SetLogger(restyLogger{opts.Logger}).
		SetRetryCount(0).
		SetResponseBodyLimit(8 << 20) // unary answers only; streams are read raw
	return &Client{
		r: r, hc: hc, limiter: opts.Limiter, clock: opts.Clock, log: opts.Logger, opts: opts, urlErr: urlErr,
		paused: map[string]time.Time{},
		rng:    rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15)),
	}
}

// CheckBaseURL refuses a base URL the token must not be sent to: anything
// but https://, except http:// to a loopback host (the fake Lichess, a local
// proxy).
func CheckBaseURL(base string) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return fmt.Errorf("lichess: base URL %q is not an absolute URL", base)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if IsLoopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("lichess: refusing http:// base URL %s: the token would cross the network unencrypted (use https://, or http:// only to a loopback host)", u.Host)
	}
	return fmt.Errorf("lichess: base URL %q must be https://", base)
}

// IsLoopback reports whether host (a name or an IP, without port) is
// "localhost" or a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Close releases idle connections. Streams end with their contexts.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// restyLogger routes resty's own messages to slog at debug level. Resty never
// sees debug mode, so it never dumps headers (the token).
type restyLogger struct{ l *slog.Logger }

func (r restyLogger) Errorf(f string, v ...any) { r.l.Debug("resty: " + fmt.Sprintf(f, v...)) }
func (r restyLogger) Warnf(f string, v ...any)  { r.l.Debug("resty: " + fmt.Sprintf(f, v...)) }
func (r restyLogger) Debugf(f string, v ...any) { r.l.Debug("resty: " + fmt.Sprintf(f, v...)) }

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
	chat    bool   // waits on the chat limiter, not the one moves use
	timeout time.Duration
}

// errorBody is lila's error JSON: "error" is a string, or an object of
// field errors ({"error": {"days": ["Invalid value"]}}); "ratelimit" comes
// with quotas (429) and with the opponent's quota (400).
type errorBody struct {
	Error     json.RawMessage `json:"error"`
	RateLimit *struct {
		Key     string `json:"key"`
		Seconds int64  `json:"seconds"`
	} `json:"ratelimit"`
}

// ErrorMessage turns the body of an error answer into one readable line:
// lila's "error" string, its field errors as "field: message; ...", or the
// start of a non-JSON, non-HTML body. It returns "" when there is nothing
// worth showing.
func ErrorMessage(body []byte) string {
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil && len(eb.Error) > 0 {
		return errorText(eb.Error)
	}
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] == '<' || b[0] == '{' || b[0] == '[' {
		return ""
	}
	return oneLine(string(b), 200)
}

// errorText reads lila's "error" value: a string, or an object of field
// errors whose values are a message or a list of messages.
func errorText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return oneLine(str, 300)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return ""
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		var msgs []string
		var one string
		if json.Unmarshal(fields[k], &one) == nil {
			msgs = []string{one}
		} else if json.Unmarshal(fields[k], &msgs) != nil {
			continue
		}
		text := strings.Join(msgs, ", ")
		if k == "global" || k == "" {
			parts = append(parts, text)
		} else {
			parts = append(parts, k+": "+text)
		}
	}
	return oneLine(strings.Join(parts, "; "), 300)
}

// oneLine flattens s to one line of at most n bytes (cut on a rune boundary).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// do runs a unary call with pause, limiter, deadline and retries.
func (c *Client) do(ctx context.Context, k call) error {
	if c.urlErr != nil {
		return &fatalError{c.urlErr}
	}
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
			slept := time.Now()
			serr := c.clock.Sleep(ctx, c.jitter(backoff))
			attemptOf(ctx).AddWait(time.Since(slept))
			if serr != nil {
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
	fam := family(k.method, k.path, k.params)
	path := expand(k.path, k.params)
	lim := c.limiter
	if k.chat {
		lim = c.opts.ChatLimiter
	}
	waitStart := time.Now()
	werr := c.wait(ctx, lim, k.method, path, fam)
	a := attemptOf(ctx)
	a.AddWait(time.Since(waitStart))
	if err := werr; err != nil {
		var rl *RateLimitError
		if errors.As(err, &rl) {
			return false, err
		}
		return false, fmt.Errorf("lichess: %s %s: %w", k.method, k.path, err)
	}
	if a != nil {
		if a.Attempts > 0 {
			a.Waited += a.Wire() // the previous attempt failed
		}
		a.Sent, a.Answered = time.Now(), time.Time{}
		a.Attempts++
		defer func() { a.Answered = time.Now() }()
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
		return true, fmt.Errorf("lichess: %s %s: %w", k.method, path, scrub(err, c.opts.Token))
	}
	if err := c.check(k.method, path, fam, resp.StatusCode(), resp.Header(), resp.Body()); err != nil {
		var ae *APIError
		return errors.As(err, &ae) && ae.Temporary(), err
	}
	if sink, ok := k.out.(*ndjsonSink); ok {
		*sink = append((*sink)[:0], resp.Body()...)
	} else if k.out != nil {
		if err := json.Unmarshal(resp.Body(), k.out); err != nil {
			return false, fmt.Errorf("lichess: %s %s: decoding answer: %w", k.method, path, err)
		}
	}
	return false, nil
}

// check turns a non-2xx status into a typed error; a plain 429 pauses its
// endpoint family, a quota 429 pauses nothing.
func (c *Client) check(method, path, fam string, status int, h http.Header, body []byte) error {
	if status >= 200 && status < 300 {
		return nil
	}
	var eb errorBody
	_ = json.Unmarshal(body, &eb) // best effort: the body may be HTML or empty
	msg := mask(ErrorMessage(body), c.opts.Token)
	switch {
	case status >= 300 && status < 400:
		loc := h.Get("Location")
		if u, err := url.Parse(loc); err == nil {
			loc = u.Redacted()
		}
		return &APIError{Method: method, Path: path, Status: status,
			Message: "redirect refused (to " + mask(oneLine(loc, 200), c.opts.Token) + "); check LICHESS_URL"}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if msg == "" {
			msg = http.StatusText(status)
		}
		return fmt.Errorf("%w (%s %s: %d %s)", ErrUnauthorized, method, path, status, msg)
	case status == http.StatusTooManyRequests:
		now := c.clock.Now()
		rl := &RateLimitError{Method: method, Path: path, Family: fam, Message: msg}
		if eb.RateLimit != nil && eb.RateLimit.Key != "" {
			// A quota: only this action is limited, until its reset.
			rl.Key = eb.RateLimit.Key
			rl.RetryAfter = time.Duration(max(eb.RateLimit.Seconds, 0)) * time.Second
			rl.Until = now.Add(rl.RetryAfter)
			c.log.Warn("lichess: quota reached", "path", path, "key", rl.Key, "until", rl.Until, "msg", msg)
			return rl
		}
		d, ok := retryAfter(h, now)
		if !ok {
			d = RateLimitPause
			if gameFamily(fam) {
				d = GameActionPause
			}
		}
		rl.RetryAfter = d
		rl.Until = c.pause(fam, d)
		c.log.Warn("lichess: rate limited (429), pausing this endpoint", "family", fam, "until", rl.Until)
		return rl
	}
	ae := &APIError{Method: method, Path: path, Status: status, Message: msg}
	if eb.RateLimit != nil && eb.RateLimit.Key != "" {
		// The opponent's quota (lila answers 400 with a ratelimit object).
		ae.LimitKey = eb.RateLimit.Key
		ae.RetryAfter = time.Duration(max(eb.RateLimit.Seconds, 0)) * time.Second
	}
	return ae
}

// mask hides the token in s. An empty token masks nothing (replacing "" would
// put "***" between every character).
func mask(s, token string) string {
	if token == "" {
		return s
	}
	return strings.ReplaceAll(s, token, "***")
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
