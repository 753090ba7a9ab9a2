package lichess

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// MaxChatLength is the longest chat message Lichess accepts (in characters).
const MaxChatLength = 140

// Move plays a move in UCI (e2e4, e7e8q; in chess960 castle king-to-rook,
// e1h1). offeringDraw adds offeringDraw=true: offer, or accept the
// opponent's offer, with the move. Each attempt has the short MoveTimeout;
// network errors and 5xx are retried. A 400 is a *MoveError carrying
// Lichess's message; after a retry it usually means the first attempt did
// land: resynchronise from the game stream.
func (c *Client) Move(ctx context.Context, gameID, uci string, offeringDraw bool) error {
	k := call{method: http.MethodPost, path: "/api/bot/game/{id}/move/{move}",
		params: map[string]string{"id": gameID, "move": uci}, retry: true, timeout: c.opts.MoveTimeout}
	if offeringDraw {
		k.query = map[string]string{"offeringDraw": "true"}
	}
	err := c.do(ctx, k)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusBadRequest {
		return &MoveError{GameID: gameID, Move: uci, Message: ae.Message}
	}
	return err
}

// Chat writes to the game chat; room is "player" or "spectator" ("" means
// player). Text must be 1..140 characters. It is never retried: a chat
// line whose answer was lost (a 5xx, a reset) may have been posted, and a
// retry would post it twice.
func (c *Client) Chat(ctx context.Context, gameID, room, text string) error {
	if room == "" {
		room = "player"
	}
	if text == "" || utf8.RuneCountInString(text) > MaxChatLength {
		return fmt.Errorf("lichess: chat text must be 1..%d characters, got %d", MaxChatLength, utf8.RuneCountInString(text))
	}
	return c.do(ctx, call{method: http.MethodPost, path: "/api/bot/game/{id}/chat", chat: true,
		params: map[string]string{"id": gameID}, form: map[string]string{"room": room, "text": text}})
}

func (c *Client) gameAction(ctx context.Context, gameID, action string) error {
	return c.do(ctx, call{method: http.MethodPost, path: "/api/bot/game/{id}/" + action,
		params: map[string]string{"id": gameID}, retry: true})
}

// Abort aborts a game that is still abortable (fewer than 2 plies).
func (c *Client) Abort(ctx context.Context, gameID string) error {
	return c.gameAction(ctx, gameID, "abort")
}

// Resign resigns (Lichess aborts instead while the game is abortable).
func (c *Client) Resign(ctx context.Context, gameID string) error {
	return c.gameAction(ctx, gameID, "resign")
}

// ClaimVictory claims the win once the opponent has been gone long enough
// (OpponentGone.ClaimWinInSeconds reached 0). The game ends as "timeout".
func (c *Client) ClaimVictory(ctx context.Context, gameID string) error {
	return c.gameAction(ctx, gameID, "claim-victory")
}

// ClaimDraw claims a draw under the same condition as ClaimVictory.
func (c *Client) ClaimDraw(ctx context.Context, gameID string) error {
	return c.gameAction(ctx, gameID, "claim-draw")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// HandleDrawOffer offers or accepts a draw (accept true) or declines the
// opponent's offer (false). Lichess answers ok even when nothing happened:
// watch wdraw/bdraw and status on the game stream.
func (c *Client) HandleDrawOffer(ctx context.Context, gameID string, accept bool) error {
	return c.gameAction(ctx, gameID, "draw/"+yesNo(accept))
}

// HandleTakeback proposes or accepts (true) or declines (false) a takeback.
func (c *Client) HandleTakeback(ctx context.Context, gameID string, accept bool) error {
	return c.gameAction(ctx, gameID, "takeback/"+yesNo(accept))
}
