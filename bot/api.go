package bot

import (
	"context"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

// lichessAPI is the part of the Lichess client the bot uses. *lichess.Client
// implements it; the tests run the real client against the fake server.
type lichessAPI interface {
	Account(ctx context.Context) (*lichess.User, error)
	OngoingGames(ctx context.Context, nb int) ([]lichess.GameEventInfo, error)
	WatchEvents(ctx context.Context) (<-chan lichess.Event, <-chan error)
	EventStreamState() lichess.StreamState
	WatchGame(ctx context.Context, gameID string) (<-chan lichess.GameEvent, <-chan error)
	AcceptChallenge(ctx context.Context, id string) error
	DeclineChallenge(ctx context.Context, id string, reason lichess.DeclineReason) error
	Move(ctx context.Context, gameID, uci string, offeringDraw bool) error
	Chat(ctx context.Context, gameID, room, text string) error
	Abort(ctx context.Context, gameID string) error
	Resign(ctx context.Context, gameID string) error
	ClaimVictory(ctx context.Context, gameID string) error
	ClaimDraw(ctx context.Context, gameID string) error
	HandleDrawOffer(ctx context.Context, gameID string, accept bool) error
	HandleTakeback(ctx context.Context, gameID string, accept bool) error
	OnlineBots(ctx context.Context, nb int) ([]lichess.User, error)
	CreateChallenge(ctx context.Context, username string, p lichess.ChallengeParams) (*lichess.Challenge, error)
	CancelChallenge(ctx context.Context, id string) error
	Arena(ctx context.Context, id string) (*lichess.Arena, error)
	JoinArena(ctx context.Context, id string, o lichess.JoinArenaOptions) error
	WithdrawArena(ctx context.Context, id string) error
	Swiss(ctx context.Context, id string) (*lichess.Swiss, error)
	JoinSwiss(ctx context.Context, id, password string) error
	WithdrawSwiss(ctx context.Context, id string) error
}

var _ lichessAPI = (*lichess.Client)(nil)
