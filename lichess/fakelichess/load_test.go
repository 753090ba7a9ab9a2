package fakelichess_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// playRandom plays one game as the bot with random legal moves through the
// real client, resigning after maxPly plies. It returns the final state.
func playRandom(ctx context.Context, c *lichess.Client, id, botID string, seed uint64, maxPly int) (*lichess.GameState, error) {
	rng := rand.New(rand.NewPCG(seed, 1))
	events, errc := c.WatchGame(ctx, id)
	var full *lichess.GameFull
	var last *lichess.GameState
	played := -1
	for ev := range events {
		switch e := ev.(type) {
		case *lichess.GameFull:
			full, last = e, &e.State
		case *lichess.GameStateEvent:
			last = &e.GameState
		default:
			continue
		}
		if full == nil || last.Status.Finished() {
			continue
		}
		moves := last.MoveList()
		start := board.StartPosition()
		if full.InitialFEN != "startpos" {
			p, err := board.ParseFEN(full.InitialFEN)
			if err != nil {
				return nil, err
			}
			start = p
		}
		start.Chess960 = full.Variant.Key != lichess.VariantStandard
		g := board.NewGame(start)
		for _, m := range moves {
			if err := g.PlayUCI(m); err != nil {
				return nil, err
			}
		}
		pos := g.Position()
		us := board.White
		if full.Black.ID == botID {
			us = board.Black
		}
		if pos.SideToMove() != us || len(moves) == played {
			continue
		}
		played = len(moves)
		if len(moves) >= maxPly {
			if err := c.Resign(ctx, id); err != nil {
				return nil, err
			}
			continue
		}
		var l board.MoveList
		pos.GenerateLegal(&l)
		err := c.Move(ctx, id, pos.UCI(l.Moves[rng.IntN(l.N)]), false)
		var me *lichess.MoveError
		if err != nil && !errors.As(err, &me) {
			return nil, err
		}
	}
	if err := <-errc; err != nil {
		return nil, err
	}
	if last == nil || !last.Status.Finished() {
		return nil, errors.New("game stream ended before the game")
	}
	return last, nil
}

// TestManyGames runs concurrent games through the real client, with
// dropped streams on the way, to keep the fake race-clean and leak-free
// under load. PONDEROSA_LONG=1 plays 200 bullet games.
func TestManyGames(t *testing.T) {
	games, parallel, limit := 8, 8, 3*time.Second
	if os.Getenv("PONDEROSA_LONG") == "1" {
		games, parallel, limit = 200, 4, 15*time.Second
	}
	srv := fakelichess.New(fakelichess.Options{OpponentDelay: time.Millisecond, KeepAlive: 50 * time.Millisecond, Seed: 11})
	defer srv.Close()
	c := lichess.New(lichess.Options{BaseURL: srv.URL(), Token: srv.Token(), ReconnectMin: 5 * time.Millisecond,
		Limiter:          rate.NewLimiter(500, 50),
		EventIdleTimeout: time.Second, GameIdleTimeout: time.Second})
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()

	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	errs := make(chan error, games)
	variants := []string{"standard", "chess960", "standard", "fromPosition"}
	for i := range games {
		sem <- struct{}{}
		spec := fakelichess.ChallengeSpec{ClockLimit: limit, Variant: variants[i%4]}
		if spec.Variant == "fromPosition" {
			spec.FEN = "r3k2r/pppq1ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPPQ1PPP/R3K2R w KQkq - 0 1"
		}
		id := srv.Challenge(spec)
		if err := c.AcceptChallenge(ctx, id); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			st, err := playRandom(ctx, c, id, "ponderosa", uint64(i), 160)
			if err != nil {
				errs <- err
				return
			}
			if gi, _ := srv.Game(id); gi.Status != string(st.Status) {
				errs <- errors.New("server and client disagree on " + id)
			}
		}()
		if i%3 == 1 {
			srv.DropStreams()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ended := map[string]int{}
	for _, g := range srv.Games() {
		ended[g.Status]++
	}
	plies := 0
	for _, g := range srv.Games() {
		plies += len(g.Moves)
	}
	t.Logf("%d games, %d plies: %v", games, plies, ended)
}
