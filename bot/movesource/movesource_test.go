package movesource

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func query(t *testing.T, fen string, remaining time.Duration) Query {
	t.Helper()
	pos, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return Query{Pos: pos, Variant: "standard", Speed: "blitz", Remaining: remaining}
}

// TestTablebaseMatesKRvK plays the tablebase's choice for White and the
// tablebase's best defence for Black from a KRvK position: mate comes in
// exactly the DTM the first answer promised.
func TestTablebaseMatesKRvK(t *testing.T) {
	src := fakelichess.NewSources()
	defer src.Close()
	set := New(Options{LichessURL: "https://lichess.org", Token: "lip_secret", Tablebase: true, TablebaseURL: src.URL(), MaxTimeout: 20 * time.Second})
	defer set.Close()
	g := board.NewGame(query(t, "8/8/8/3k4/8/8/8/R3K3 w - - 0 1", time.Hour).Pos)
	ctx := context.Background()
	plies, promised := 0, 0
	for {
		pos := g.Position()
		var ml board.MoveList
		pos.GenerateLegal(&ml)
		if ml.N == 0 {
			break
		}
		a, ok := set.Lookup(ctx, Query{Pos: pos, Variant: "standard", Remaining: time.Hour})
		if !ok || a.Source != Tablebase {
			t.Fatalf("ply %d: no tablebase answer", plies)
		}
		if plies == 0 {
			if a.Verdict != "win" {
				t.Fatalf("verdict %q", a.Verdict)
			}
			if _, err := fmt.Sscanf(a.Note, "win, DTM %d", &promised); err != nil {
				t.Fatalf("note %q: %v", a.Note, err)
			}
		}
		if err := g.Play(a.Move); err != nil {
			t.Fatal(err)
		}
		plies++
		if plies > 40 {
			t.Fatal("no mate in 40 plies")
		}
	}
	if p := g.Position(); !p.InCheck() {
		t.Fatal("stalemate, not mate")
	}
	for _, a := range src.Auth() {
		if a != "" {
			t.Fatalf("the tablebase host got the token: %q", a)
		}
	}
	if plies != promised+1 {
		t.Fatalf("mate in %d plies, the tablebase promised %d", plies, promised+1)
	}
}

// TestSlowAndBrokenSources: a source slower than its budget gives no
// answer within the budget; garbage and 5xx are ignored; three failures
// open the breaker, and the source is not asked again.
func TestSlowAndBrokenSources(t *testing.T) {
	src := fakelichess.NewSources()
	defer src.Close()
	set := New(Options{Tablebase: true, TablebaseURL: src.URL(), MaxTimeout: 200 * time.Millisecond, BreakAfter: 3, BreakFor: time.Hour})
	defer set.Close()
	q := query(t, "8/8/8/3k4/8/8/8/R3K3 w - - 0 1", 60*time.Second)
	if d := set.Timeout(60 * time.Second); d != 200*time.Millisecond {
		t.Fatalf("timeout %v", d)
	}
	if d := set.Timeout(5 * time.Second); d != 0 {
		t.Fatalf("timeout below the minimum clock: %v", d)
	}
	if _, ok := set.Lookup(context.Background(), query(t, "8/8/8/3k4/8/8/8/R3K3 w - - 0 1", 5*time.Second)); ok || src.Hits("/standard") != 0 {
		t.Fatal("looked up below the minimum clock")
	}
	src.SetFault("/standard", fakelichess.SourceFault{Delay: 5 * time.Second})
	start := time.Now()
	if _, ok := set.Lookup(context.Background(), q); ok {
		t.Fatal("a 5 s answer within 200 ms")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("lookup took %v", d)
	}
	src.SetFault("/standard", fakelichess.SourceFault{Garbage: true})
	if _, ok := set.Lookup(context.Background(), q); ok {
		t.Fatal("garbage answered")
	}
	src.SetFault("/standard", fakelichess.SourceFault{Status: http.StatusBadGateway})
	if _, ok := set.Lookup(context.Background(), q); ok {
		t.Fatal("502 answered")
	}
	hits := src.Hits("/standard")
	src.SetFault("/standard", fakelichess.SourceFault{})
	if _, ok := set.Lookup(context.Background(), q); ok || src.Hits("/standard") != hits {
		t.Fatal("the breaker did not skip the source")
	}
}
