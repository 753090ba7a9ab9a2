package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// sandboxOptions configure runSandbox.
type sandboxOptions struct {
	// Games is the number of games played (default 2), alternating
	// standard and Chess960, a human and a bot challenger.
	Games int
	// Clock and Increment are the time control of the games (default 1+1).
	Clock, Increment time.Duration
	// OpponentNodes is the node budget per move of the sparring engine
	// (default 3000): a weak but real opponent.
	OpponentNodes uint64
	// StatusAddr is where the status page is served (default
	// defaultSandboxStatusAddr, or any free loopback port when that one is
	// taken). Its URL is the first line written to Out.
	StatusAddr string
	// started, when set (tests), is called once the service is ready,
	// with the status page's URL and the fake Lichess.
	started func(statusURL string, srv *fakelichess.Server)
	// Out receives the summary; Logger the service's logs.
	Out     io.Writer
	Logger  *slog.Logger
	Version string
}

// runSandbox runs the whole service against an in-process fake Lichess
// (lichess/fakelichess, which therefore ships in the binary) on the
// loopback interface: it sends a few scripted challenges (some the default
// policy declines), waits for the games to end, stops the service and
// prints a summary. It needs no token and no network.
func runSandbox(ctx context.Context, cfg config.Config, o sandboxOptions) (bot.Snapshot, error) {
	if o.Games <= 0 {
		o.Games = 2
	}
	if o.Clock <= 0 {
		o.Clock, o.Increment = time.Minute, time.Second
	}
	if o.OpponentNodes == 0 {
		o.OpponentNodes = 3000
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if lichess.SpeedOf(o.Clock, o.Increment) == lichess.SpeedUltraBullet {
		return bot.Snapshot{}, fmt.Errorf("sandbox: %s is UltraBullet, which the policy declines: use clock + 40×increment of at least 30s", tcString(o.Clock, o.Increment))
	}
	statusLn, err := listenSandboxStatus(o.StatusAddr)
	if err != nil {
		return bot.Snapshot{}, fmt.Errorf("sandbox: status page: %w", err)
	}
	url := "http://" + statusLn.Addr().String() + "/"
	fmt.Fprintf(o.Out, "Status page: %s\n", url)
	srv := fakelichess.New(fakelichess.Options{Opponent: fakelichess.EngineOpponent(o.OpponentNodes), OpponentDelay: 50 * time.Millisecond})
	defer srv.Close()
	cfg.URL, cfg.Token = srv.URL(), config.NewSecret(srv.Token())
	client := lichess.New(lichess.Options{BaseURL: cfg.URL, Token: cfg.Token.Reveal(), UserAgent: o.Version + " (sandbox)", Logger: o.Logger})
	defer client.Close()

	ready := make(chan struct{})
	svc := bot.New(cfg, client, bot.Options{Logger: o.Logger, Version: o.Version, OnReady: func(*lichess.User) { close(ready) },
		StatusListener: statusLn})
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- svc.Run(sctx) }()
	select {
	case <-ready:
	case err := <-done:
		return bot.Snapshot{}, fmt.Errorf("sandbox: %w", err)
	}
	fmt.Fprintf(o.Out, "Sandbox: a fake Lichess at %s, %d games of %s\n", srv.URL(), o.Games, tcString(o.Clock, o.Increment))
	if o.started != nil {
		o.started(url, srv)
	}

	// Challenges the default policy declines, to show the reasons.
	declined := []struct {
		label string
		spec  fakelichess.ChallengeSpec
	}{
		{"Bob, atomic 3+2", fakelichess.ChallengeSpec{Challenger: fakelichess.Player{Name: "Bob"}, Variant: "atomic", ClockLimit: 3 * time.Minute, ClockIncrement: 2 * time.Second}},
		{"Carol, UltraBullet 1/4+0", fakelichess.ChallengeSpec{Challenger: fakelichess.Player{Name: "Carol"}, ClockLimit: 15 * time.Second}},
		{"Dave, correspondence 3 days", fakelichess.ChallengeSpec{Challenger: fakelichess.Player{Name: "Dave"}, Days: 3}},
	}
	var declinedIDs []string
	for _, d := range declined {
		declinedIDs = append(declinedIDs, srv.Challenge(d.spec))
	}
	var ids []string
	for i := range o.Games {
		spec := fakelichess.ChallengeSpec{ClockLimit: o.Clock, ClockIncrement: o.Increment, Rated: i%2 == 0}
		if i%2 == 0 {
			spec.Challenger = fakelichess.Player{Name: "Alice", Rating: 1650}
			spec.Color = "black"
		} else {
			spec.Challenger = fakelichess.Player{Name: "SparringBot", Title: "BOT", Rating: 1900}
			spec.Variant = "chess960"
			spec.Color = "white"
		}
		ids = append(ids, srv.Challenge(spec))
	}
	// Wait for every game, with a bound: a game still going after twice
	// its clock (plus a margin) is resigned by the opponent.
	limit := 2*(o.Clock+80*o.Increment) + time.Minute
	for _, id := range ids {
		wctx, cancel := context.WithTimeout(sctx, limit)
		err := srv.WaitUntil(wctx, func() bool {
			st, _ := srv.ChallengeState(id)
			return st.Status != "created"
		})
		if st, _ := srv.ChallengeState(id); err == nil && st.Status == "accepted" {
			_, err = srv.WaitGameOver(wctx, id)
		}
		cancel()
		if err != nil && sctx.Err() == nil {
			if _, ok := srv.Game(id); ok {
				srv.OpponentResign(id)
			}
		}
		if sctx.Err() != nil {
			break
		}
	}
	stop()
	if err := <-done; err != nil {
		return bot.Snapshot{}, fmt.Errorf("sandbox: %w", err)
	}
	snap := svc.Snapshot()

	fmt.Fprintln(o.Out, "\nGames:")
	for _, id := range ids {
		g, ok := srv.Game(id)
		if !ok {
			st, _ := srv.ChallengeState(id)
			fmt.Fprintf(o.Out, "  %s  not played (challenge %s %s)\n", id, st.Status, st.DeclineReason)
			continue
		}
		fmt.Fprintf(o.Out, "  %s  %-9s %-5s vs %-12s %-5s (%s, %d plies)\n", id, g.Variant, g.BotColor,
			g.Opponent.Name, botResult(g), g.Status, len(g.Moves))
	}
	fmt.Fprintln(o.Out, "Declined:")
	for i, id := range declinedIDs {
		st, _ := srv.ChallengeState(id)
		fmt.Fprintf(o.Out, "  %-30s -> %s (%s)\n", declined[i].label, st.Status, st.DeclineReason)
	}
	l := snap.Latency
	fmt.Fprintf(o.Out, "Moves posted: %d; time added by the bot beyond the search: median %v, max %v; move request round trip: median %v\n",
		snap.Moves, l.Median.Round(time.Microsecond), l.Max.Round(time.Microsecond), snap.RoundTrip.Median.Round(time.Microsecond))
	if cfg.Engine.Command != nil {
		fmt.Fprintf(o.Out, "External engine %q: faults %v; moves the embedded engine played in its place: %d\n",
			strings.Join(cfg.Engine.Command, " "), snap.EngineFaults, snap.FallbackMoves)
	}
	if cfg.PGNDir != "" {
		fmt.Fprintf(o.Out, "PGN files: %s\n", cfg.PGNDir)
	}
	return snap, nil
}

func botResult(g fakelichess.GameInfo) string {
	switch {
	case g.Status == "started":
		return "-"
	case g.Status == "aborted":
		return "abort"
	case g.Winner == "":
		return "draw"
	case g.Winner == g.BotColor:
		return "win"
	}
	return "loss"
}

// tcString writes a time control as minutes+seconds ("1+1", "0.5+0.2").
func tcString(base, inc time.Duration) string {
	return fmt.Sprintf("%s+%s", strconv.FormatFloat(base.Minutes(), 'f', -1, 64), strconv.FormatFloat(inc.Seconds(), 'f', -1, 64))
}

// defaultSandboxStatusAddr is where the sandbox serves its status page.
const defaultSandboxStatusAddr = "127.0.0.1:8080"

// listenSandboxStatus listens on addr (defaultSandboxStatusAddr when
// empty); when the default port is taken it takes any free loopback port.
func listenSandboxStatus(addr string) (net.Listener, error) {
	if addr == "" {
		addr = defaultSandboxStatusAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil && addr == defaultSandboxStatusAddr {
		return net.Listen("tcp", "127.0.0.1:0")
	}
	return ln, err
}
