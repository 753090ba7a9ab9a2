package lichess

import (
	"context"
	"fmt"
	"net/http"
)

// AcceptChallenge accepts a challenge (POST /api/challenge/{id}/accept). A
// gameStart event follows on the event stream; the challenge id becomes the
// game id.
func (c *Client) AcceptChallenge(ctx context.Context, id string) error {
	return c.do(ctx, call{method: http.MethodPost, path: "/api/challenge/{id}/accept",
		params: map[string]string{"id": id}, retry: true})
}

// DeclineChallenge declines a challenge with a reason ("" means generic).
func (c *Client) DeclineChallenge(ctx context.Context, id string, reason DeclineReason) error {
	if reason == "" {
		reason = DeclineGeneric
	}
	return c.do(ctx, call{method: http.MethodPost, path: "/api/challenge/{id}/decline",
		params: map[string]string{"id": id}, form: map[string]string{"reason": string(reason)}, retry: true})
}

// CancelChallenge cancels a challenge we created (or aborts the game it
// became if nobody has moved yet).
func (c *Client) CancelChallenge(ctx context.Context, id string) error {
	return c.do(ctx, call{method: http.MethodPost, path: "/api/challenge/{id}/cancel",
		params: map[string]string{"id": id}, retry: true})
}

// CreateChallenge challenges a user (POST /api/challenge/{username}), for
// matchmaking. It is not retried (a retry could create a second challenge).
// A real-time challenge expires after 20 s unless accepted; the outcome
// arrives on the event stream (gameStart or challengeDeclined). A 429 for
// the daily bot-game quota is a *RateLimitError whose RetryAfter says when
// to try again.
func (c *Client) CreateChallenge(ctx context.Context, username string, p ChallengeParams) (*Challenge, error) {
	var ch Challenge
	err := c.do(ctx, call{method: http.MethodPost, path: "/api/challenge/{user}",
		params: map[string]string{"user": username}, form: p.form(), out: &ch})
	if err != nil {
		return nil, err
	}
	if ch.ID == "" {
		return nil, fmt.Errorf("lichess: POST /api/challenge/%s: answer has no challenge id", username)
	}
	return &ch, nil
}

// Challenges lists open challenges to us (In) and from us (Out) (GET
// /api/challenge; needs the challenge:read scope).
func (c *Client) Challenges(ctx context.Context) (in, out []Challenge, err error) {
	var v struct {
		In  []Challenge `json:"in"`
		Out []Challenge `json:"out"`
	}
	if err := c.do(ctx, call{method: http.MethodGet, path: "/api/challenge", out: &v, retry: true}); err != nil {
		return nil, nil, err
	}
	return v.In, v.Out, nil
}
