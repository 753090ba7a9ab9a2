package client

import (
	"context"
	"errors"
	"fmt"
	"github.com/ponderosa-chess/ponderosa/internal/testbin"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// relay and xbfake are the test helper engines built by TestMain
// (testdata/relay, testdata/xbfake).
var relay, xbfake string

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, testbin.Build{Pkg: "./testdata/relay", Out: &relay},
		testbin.Build{Pkg: "./testdata/xbfake", Out: &xbfake}))
}

func startRelay(t *testing.T, fault string, after int, mod func(*Spec)) *Engine {
	t.Helper()
	spec := Spec{Argv: []string{relay, "-fault", fault, "-after", fmt.Sprint(after)}, Ponder: true,
		Options: []Option{{"Hash", "4"}}}
	if mod != nil {
		mod(&spec)
	}
	e, err := Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	if err := e.NewGame(context.Background(), NewGame{Opponent: &Opponent{Name: "someone", Rating: 1500}}); err != nil {
		t.Fatal(err)
	}
	return e
}

var italian = Position{Moves: []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4"}}

func TestUCISearchReportsAndAnswers(t *testing.T) {
	e := startRelay(t, "none", 0, nil)
	if e.ID() == "" || !e.CanPonder() || !e.HasOption("hash") {
		t.Fatalf("id %q, ponder %v, options %v", e.ID(), e.CanPonder(), e.Options())
	}
	var infos []Info
	res, err := e.Go(context.Background(), italian, Limits{Depth: 4}, func(in Info) { infos = append(infos, in) }).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !validMove(res.Move) || !res.HasLast || res.Last.Depth == 0 || len(res.Last.PV) == 0 || res.Last.PV[0] != res.Move {
		t.Fatalf("answer %+v", res)
	}
	if len(infos) == 0 || res.Read.Before(res.GoSent) {
		t.Fatalf("%d reports, times %v %v", len(infos), res.GoSent, res.Read)
	}
	// From a FEN, black to move.
	res, err = e.Go(context.Background(), Position{FEN: "4k3/8/8/8/8/8/4P3/4K2R b K - 0 1", Moves: []string{"e8d7", "e1g1"}},
		Limits{WTime: time.Second, BTime: time.Second}, nil).Wait()
	if err != nil || !validMove(res.Move) || !strings.HasPrefix(res.Move, "d7") {
		t.Fatalf("from a FEN: %+v, %v", res, err)
	}
}

// TestUCIPonder: a ponder search answers only after ponderhit or stop,
// exactly once, and the next search gets its own answer.
func TestUCIPonder(t *testing.T) {
	e := startRelay(t, "none", 0, nil)
	lim := Limits{WTime: 2 * time.Second, BTime: 2 * time.Second, Ponder: true}
	s := e.Go(context.Background(), italian, lim, nil)
	s.PonderHit()
	if res, err := s.Wait(); err != nil || !validMove(res.Move) {
		t.Fatalf("after ponderhit: %+v, %v", res, err)
	}
	s = e.Go(context.Background(), italian, lim, nil)
	s.Stop()
	if _, err := s.Wait(); err != nil {
		t.Fatalf("after stop: %v", err)
	}
	// A cancelled context stops the search like Stop.
	ctx, cancel := context.WithCancel(context.Background())
	s = e.Go(ctx, italian, Limits{Infinite: true}, nil)
	cancel()
	if _, err := s.Wait(); err != nil {
		t.Fatalf("after cancel: %v", err)
	}
	next := Position{Moves: append(append([]string(nil), italian.Moves...), "f8c5")}
	res, err := e.Go(context.Background(), next, Limits{Depth: 1}, nil).Wait()
	if err != nil || res.Move == "" || strings.HasPrefix(res.Move, "f8") {
		t.Fatalf("the search after: %+v, %v", res, err)
	}
}

// TestUCIEarlyPonderAnswerHeld: an engine that answers a ponder search
// before ponderhit has its answer held until ponderhit.
func TestUCIEarlyPonderAnswerHeld(t *testing.T) {
	e := startRelay(t, "early", 0, nil)
	got := make(chan Info, 100)
	s := e.Go(context.Background(), italian, Limits{Ponder: true, WTime: time.Second, BTime: time.Second},
		func(in Info) { got <- in })
	<-got // the search runs; its answer follows at once (depth 1)
	select {
	case <-s.Done():
		t.Fatal("a ponder search answered before ponderhit")
	case <-time.After(200 * time.Millisecond):
	}
	s.PonderHit()
	if res, err := s.Wait(); err != nil || !validMove(res.Move) {
		t.Fatalf("%+v, %v", res, err)
	}
}

// TestUCIFaults: every fault ends the engine with its kind of error, and
// the process is gone.
func TestUCIFaults(t *testing.T) {
	for _, tc := range []struct {
		fault string
		want  error
	}{
		{"crash", ErrExited},
		{"hang", ErrHang},
		{"malformed", ErrBadMove},
		{"flood", ErrFlood},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			e := startRelay(t, tc.fault, 1, func(s *Spec) { s.StopGrace = 100 * time.Millisecond })
			if _, err := e.Go(context.Background(), italian, Limits{Depth: 2}, nil).Wait(); err != nil {
				t.Fatalf("first search: %v", err)
			}
			// Only the hang needs the deadline (then stop, then the grace).
			within := 10 * time.Second
			if tc.fault == "hang" {
				within = 300 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), within)
			defer cancel()
			_, err := e.Go(ctx, italian, Limits{Depth: 2}, nil).Wait()
			if !errors.Is(err, tc.want) {
				t.Fatalf("want %v, got %v", tc.want, err)
			}
			if !errors.Is(e.Err(), tc.want) {
				t.Fatalf("engine error %v", e.Err())
			}
			select {
			case <-e.p.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("the faulty process is still running")
			}
			if _, err := e.Go(context.Background(), italian, Limits{Depth: 1}, nil).Wait(); !errors.Is(err, tc.want) || !errors.Is(err, ErrDown) {
				t.Fatalf("a search after the fault: %v", err)
			}
		})
	}
	// A burst of 5,000 lines at once, as real engines print on a found
	// mate over a few quick searches, is not a flood: the search answers.
	e := startRelay(t, "burst", 0, nil)
	if res, err := e.Go(context.Background(), italian, Limits{Depth: 2}, nil).Wait(); err != nil || !validMove(res.Move) {
		t.Fatalf("after a burst: %+v, %v", res, err)
	}
	// "bestmove a1a1" is well formed; its legality is the caller's call.
	e = startRelay(t, "illegal", 0, nil)
	if res, err := e.Go(context.Background(), italian, Limits{Depth: 1}, nil).Wait(); err != nil || res.Move != "a1a1" {
		t.Fatalf("%+v, %v", res, err)
	}
}

func TestStartFailures(t *testing.T) {
	short := func(s *Spec) { s.HandshakeTimeout = 2 * time.Second } // the relay answers in milliseconds, a loaded machine slower
	for _, tc := range []struct {
		fault string
		want  error
		says  []string
	}{
		{"nouciok", ErrHandshake, []string{"uciok"}},
		{"noready", ErrHandshake, []string{"readyok"}},
		{"die", ErrExited, []string{"exit status 2", "nets/missing.pb", relay}},
	} {
		spec := Spec{Argv: []string{relay, "-fault", tc.fault}}
		short(&spec)
		_, err := Start(context.Background(), spec)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: want %v, got %v", tc.fault, tc.want, err)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not say %q", tc.fault, err, s)
			}
		}
	}
	_, err := Start(context.Background(), Spec{Argv: []string{relay}, Options: []Option{{"Hash", "4"}, {"Contempt Factor", "3"}}})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `"Contempt Factor"`) {
		t.Errorf("unknown option: %v", err)
	}
	_, err = Start(context.Background(), Spec{Argv: []string{relay}, Options: []Option{{"Hash", "lots"}}})
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("bad value: %v", err)
	}
	if _, err := Start(context.Background(), Spec{Argv: []string{"/nonexistent/engine"}}); err == nil || !strings.Contains(err.Error(), "/nonexistent/engine") {
		t.Errorf("missing program: %v", err)
	}
}

func TestParseOptions(t *testing.T) {
	got, err := ParseOptions(" Hash=64, Threads = 2 ,SyzygyPath=/tb/a:/tb/b,WeightsFile=nets/t2 net.pb")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[{Hash 64} {Threads 2} {SyzygyPath /tb/a:/tb/b} {WeightsFile nets/t2 net.pb}]" {
		t.Errorf("%v", got)
	}
	for _, bad := range []string{"Hash", "=3", "Move Overhead=100"} {
		if _, err := ParseOptions(bad); err == nil {
			t.Errorf("ParseOptions(%q): no error", bad)
		}
	}
}

func TestStockfish(t *testing.T) {
	sf := testbin.Need(t, "/usr/games/stockfish")
	e, err := Start(context.Background(), Spec{Argv: []string{sf}, Ponder: true, Options: []Option{{"Hash", "16"}, {"Threads", "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.NewGame(context.Background(), NewGame{Chess960: true}); err != nil {
		t.Fatal(err)
	}
	// Chess960 castling king-takes-rook, in a 960 start position.
	pos := Position{FEN: "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"}
	s := e.Go(context.Background(), pos, Limits{WTime: 3 * time.Second, BTime: 3 * time.Second, Ponder: true}, nil)
	s.PonderHit()
	res, err := s.Wait()
	if err != nil || !validMove(res.Move) || !res.HasLast {
		t.Fatalf("%+v, %v", res, err)
	}
}

func TestXBoardEngines(t *testing.T) {
	for _, path := range []string{"/usr/games/fairymax", "/usr/games/phalanx"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			testbin.Need(t, path)
			e, err := Start(context.Background(), Spec{Argv: []string{path}, Protocol: XBoard, Options: []Option{{"Hash", "8"}}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := e.NewGame(context.Background(), NewGame{Base: time.Minute, Opponent: &Opponent{Name: "x y", Computer: true, Rating: 2000}, OurRating: 1900}); err != nil {
				t.Fatal(err)
			}
			if err := e.NewGame(context.Background(), NewGame{Chess960: true}); !errors.Is(err, ErrUnsupported) {
				t.Fatalf("chess960: %v", err)
			}
			pos := Position{Moves: []string{"e2e4"}}
			lim := Limits{WTime: 5 * time.Second, BTime: 5 * time.Second}
			for i := 0; i < 3; i++ {
				res, err := e.Go(context.Background(), pos, lim, nil).Wait()
				if err != nil || !validMove(res.Move) {
					t.Fatalf("search %d: %+v, %v", i, res, err)
				}
				// Continue the game with a plausible reply: the engine's move
				// is on its board; our next move must be legal there, so
				// replay a fresh game instead when unsure.
				pos.Moves = append(pos.Moves, res.Move)
				if i == 0 {
					pos = Position{Moves: []string{"d2d4"}} // a new line: new + replay
				} else {
					pos = Position{Moves: []string{"d2d4", "g8f6"}[:1]}
				}
			}
		})
	}
}

// TestStopRightAfterGo: Ethereal 12 loses a stop that comes right after
// "go ponder" and then ponders for ever (its input thread blocks on the
// search, so a second stop is never read). The client holds stop until the
// search shows a sign of life; sent at once, all 20 stops were lost. It
// still happens, rarely (about 1 in 100 here): the bot treats it as a
// hang, restarts the engine and plays that move with its own.
func TestStopRightAfterGo(t *testing.T) {
	path := testbin.Need(t, "/usr/games/ethereal-chess")
	start := func() *Engine {
		e, err := Start(context.Background(), Spec{Argv: []string{path}, Ponder: true, StopGrace: 250 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.NewGame(context.Background(), NewGame{}); err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := start()
	defer func() { e.Close() }()
	const tries = 20
	lost := 0
	for range tries {
		s := e.Go(context.Background(), italian, Limits{Ponder: true, WTime: 3 * time.Second, BTime: 3 * time.Second}, nil)
		s.Stop()
		if _, err := s.Wait(); err != nil {
			if !errors.Is(err, ErrHang) {
				t.Fatal(err)
			}
			lost++
			e.Close()
			e = start()
		}
	}
	t.Logf("%d of %d stops sent right after go ponder were lost", lost, tries)
	if lost > 2 {
		t.Errorf("%d of %d stops lost", lost, tries)
	}
}

// TestXBoardMoveNowIgnored: an xboard engine that ignores "?" while it
// thinks (as Fairy-Max does) moves in its own time, then answers the "?"
// with "Error (unknown command): ?". That error refuses nothing: the next
// search reads it and goes on; and once the engine has shown it ignores
// "?", a stop waits for its move within its clock, not just the stop grace.
func TestXBoardMoveNowIgnored(t *testing.T) {
	// Search 1 thinks 50 ms, the others 400 ms: past the stop grace.
	e, err := Start(context.Background(), Spec{Argv: []string{xbfake, "-think", "50ms,400ms"}, Protocol: XBoard,
		StopGrace: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.NewGame(context.Background(), NewGame{Base: time.Minute}); err != nil {
		t.Fatal(err)
	}
	lim := Limits{WTime: 5 * time.Second, BTime: 5 * time.Second}
	pos := Position{Moves: []string{"e2e4"}}
	// 1: stopped at once; the move comes at 50 ms, then the error.
	s := e.Go(context.Background(), pos, lim, nil)
	s.Stop()
	if res, err := s.Wait(); err != nil || res.Move != "a7a6" {
		t.Fatalf("stopped search: %+v, %v", res, err)
	}
	// 2: reads the error to the first search's "?" before its own move.
	pos.Moves = append(pos.Moves, "a7a6", "d2d4")
	if res, err := e.Go(context.Background(), pos, lim, nil).Wait(); err != nil || res.Move != "a7a6" {
		t.Fatalf("the search after the error to \"?\": %+v, %v", res, err)
	}
	// 3: stopped at once; the engine moves at 400 ms, past the grace.
	pos.Moves = append(pos.Moves, "a7a6", "g1f3")
	s = e.Go(context.Background(), pos, lim, nil)
	s.Stop()
	if res, err := s.Wait(); err != nil || res.Move != "a7a6" {
		t.Fatalf("a stop to an engine that ignores \"?\": %+v, %v", res, err)
	}
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
}
