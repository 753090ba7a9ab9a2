package lichess

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Account returns the profile of the token's owner (GET /api/account).
// Compare ids (lowercase), not usernames.
func (c *Client) Account(ctx context.Context) (*User, error) {
	var u User
	if err := c.do(ctx, call{method: http.MethodGet, path: "/api/account", out: &u, retry: true}); err != nil {
		return nil, err
	}
	if u.ID == "" {
		return nil, fmt.Errorf("lichess: GET /api/account: answer has no id")
	}
	return &u, nil
}

// UpgradeToBot turns the account into a BOT account (POST
// /api/bot/account/upgrade). Irreversible, and only possible for an account
// that never played a game: check Account().IsBot() first.
func (c *Client) UpgradeToBot(ctx context.Context) error {
	return c.do(ctx, call{method: http.MethodPost, path: "/api/bot/account/upgrade"})
}

// TokenInfo describes a token, from POST /api/token/test.
type TokenInfo struct {
	UserID  string `json:"userId"`
	Scopes  string `json:"scopes"`  // comma separated
	Expires *int64 `json:"expires"` // epoch ms; nil when it never expires
}

// HasScope reports whether the token holds scope s.
func (t *TokenInfo) HasScope(s string) bool {
	for _, x := range strings.Split(t.Scopes, ",") {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

// TokenInfo checks the client's own token (POST /api/token/test). It wraps
// ErrUnauthorized when Lichess does not know the token.
func (c *Client) TokenInfo(ctx context.Context) (*TokenInfo, error) {
	var m map[string]*TokenInfo
	if err := c.do(ctx, call{method: http.MethodPost, path: "/api/token/test", body: c.opts.Token, out: &m, retry: true}); err != nil {
		return nil, err
	}
	info := m[c.opts.Token]
	if info == nil {
		return nil, fmt.Errorf("%w (token unknown or expired)", ErrUnauthorized)
	}
	return info, nil
}

// OngoingGames lists our games in progress (GET /api/account/playing), at
// most nb (1..50; 0 means 50).
func (c *Client) OngoingGames(ctx context.Context, nb int) ([]GameEventInfo, error) {
	if nb <= 0 || nb > 50 {
		nb = 50
	}
	var out struct {
		NowPlaying []GameEventInfo `json:"nowPlaying"`
	}
	err := c.do(ctx, call{method: http.MethodGet, path: "/api/account/playing",
		query: map[string]string{"nb": strconv.Itoa(nb)}, out: &out, retry: true})
	if err != nil {
		return nil, err
	}
	for i := range out.NowPlaying {
		if out.NowPlaying[i].GameID == "" {
			out.NowPlaying[i].GameID = out.NowPlaying[i].ID
		}
	}
	return out.NowPlaying, nil
}

// OnlineBots lists up to nb (1..512; 0 means 100) bots online now (GET
// /api/bot/online, ndjson). Malformed lines are logged and skipped.
func (c *Client) OnlineBots(ctx context.Context, nb int) ([]User, error) {
	if nb <= 0 || nb > 512 {
		nb = 100
	}
	var raw ndjsonSink
	var users []User
	err := c.do(ctx, call{method: http.MethodGet, path: "/api/bot/online",
		query: map[string]string{"nb": strconv.Itoa(nb)}, out: &raw, retry: true})
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var u User
		if err := json.Unmarshal([]byte(line), &u); err != nil || u.ID == "" {
			c.log.Warn("lichess: skipping malformed online-bot line", "err", err, "line", truncate(line))
			continue
		}
		users = append(users, u)
	}
	return users, nil
}

// ndjsonSink as a call's out receives the raw body (do does not decode it).
type ndjsonSink []byte

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
