package lichess_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// Example shows the shape of a bot loop against the fake server: accept a
// challenge, play the game from its stream, stop when it is over.
func Example() {
	srv := fakelichess.New(fakelichess.Options{Seed: 1})
	defer srv.Close()
	c := lichess.New(lichess.Options{BaseURL: srv.URL(), Token: srv.Token(), UserAgent: "example-bot/1.0"})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	me, err := c.Account(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The challenger takes black and plays the fool's mate replies.
	srv.Challenge(fakelichess.ChallengeSpec{ClockLimit: time.Minute, Color: "black",
		Opponent: fakelichess.Scripted([]string{"e7e5", "d8h4"}, nil)})

	ours := []string{"f2f3", "g2g4"}
	events, errc := c.WatchEvents(ctx)
	for ev := range events {
		switch e := ev.(type) {
		case *lichess.ChallengeEvent:
			if e.Challenge.Challenger.ID != me.ID {
				_ = c.AcceptChallenge(ctx, e.Challenge.ID)
			}
		case *lichess.GameStartEvent:
			game, _ := c.WatchGame(ctx, e.Game.GameID)
			for gev := range game {
				var st *lichess.GameState
				switch g := gev.(type) {
				case *lichess.GameFull:
					st = &g.State
				case *lichess.GameStateEvent:
					st = &g.GameState
				default:
					continue
				}
				if n := len(st.MoveList()); !st.Status.Finished() && n%2 == 0 && n/2 < len(ours) {
					_ = c.Move(ctx, e.Game.GameID, ours[n/2], false)
				}
			}
		case *lichess.GameFinishEvent:
			fmt.Println(e.Game.Status.Name, "won by", e.Game.Winner)
			cancel()
		}
	}
	if err := <-errc; err != nil {
		fmt.Println(err)
	}
	// Output: mate won by black
}
