package fakelichess

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// kxkFEN writes the position with White the strong side.
func kxkFEN(pt board.PieceType, strongToMove bool, sk, wk, x int) string {
	var sq [64]byte
	sq[sk], sq[wk] = 'K', 'k'
	sq[x] = map[board.PieceType]byte{board.Queen: 'Q', board.Rook: 'R', board.Bishop: 'B', board.Knight: 'N'}[pt]
	fen := ""
	for r := 7; r >= 0; r-- {
		e := 0
		for f := 0; f < 8; f++ {
			if c := sq[r*8+f]; c != 0 {
				if e > 0 {
					fen += fmt.Sprint(e)
					e = 0
				}
				fen += string(c)
			} else {
				e++
			}
		}
		if e > 0 {
			fen += fmt.Sprint(e)
		}
		if r > 0 {
			fen += "/"
		}
	}
	stm := "b"
	if strongToMove {
		stm = "w"
	}
	return fen + " " + stm + " - - 0 1"
}

// TestKXKMovesMatchBoard: the solver's moves are engine/board's legal moves.
func TestKXKMovesMatchBoard(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf []tbMove
	checked := 0
	for checked < 3000 {
		pt := []board.PieceType{board.Queen, board.Rook, board.Bishop, board.Knight}[rng.IntN(4)]
		stm := rng.IntN(2) == 0
		sk, wk, x := rng.IntN(64), rng.IntN(64), rng.IntN(64)
		if !validKXK(pt, stm, sk, wk, x) {
			continue
		}
		checked++
		fen := kxkFEN(pt, stm, sk, wk, x)
		pos, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatalf("%s: %v", fen, err)
		}
		var ml board.MoveList
		pos.GenerateLegal(&ml)
		var want, got []string
		for _, m := range ml.Moves[:ml.N] {
			want = append(want, pos.UCI(m))
		}
		for _, m := range kxkMoves(pt, stm, sk, wk, x, buf) {
			got = append(got, board.Square(m.from).String()+board.Square(m.to).String())
		}
		sort.Strings(want)
		sort.Strings(got)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("%s: board %v, solver %v", fen, want, got)
		}
	}
}

// TestKXKSolved: the longest mates are the known ones (KQvK mate in 10,
// KRvK mate in 16).
func TestKXKSolved(t *testing.T) {
	var s tbSolver
	for _, c := range []struct {
		pt      board.PieceType
		longest int // plies
	}{{board.Queen, 19}, {board.Rook, 31}} {
		tab := s.table(c.pt)
		longest := 0
		for _, v := range tab.val {
			if n, win, ok := tbPlies(v); ok && win && n > longest {
				longest = n
			}
		}
		if longest != c.longest {
			t.Errorf("%v: longest win %d plies, want %d", c.pt, longest, c.longest)
		}
	}
}

// TestSourcesTablebase: the fake tablebase's answers over HTTP, decoded by
// the client: the category and DTM of a KRvK position, its best move one
// ply nearer mate, captures to a draw, the fifty-move counter, and other
// material unknown.
func TestSourcesTablebase(t *testing.T) {
	src := NewSources()
	defer src.Close()
	get := func(fen string) map[string]any {
		t.Helper()
		resp, err := http.Get(src.URL() + "/standard?fen=" + url.QueryEscape(fen))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	// Mate in one: Ra8#? White Kb6, rook h1, black Kb8: Rh8#.
	e := get("1k6/8/1K6/8/8/8/8/7R w - - 0 1")
	if e["category"] != "win" || e["dtm"].(float64) != 1 {
		t.Fatalf("mate in one: %v", e)
	}
	best := e["moves"].([]any)[0].(map[string]any)
	if best["uci"] != "h1h8" || best["checkmate"] != true || best["category"] != "loss" {
		t.Fatalf("best move %v", best)
	}
	// Black rook, black to move, white king can take it: the answer
	// lists the capture as a draw.
	e = get("8/8/8/8/8/3k4/1r6/K7 w - - 0 1")
	found := false
	for _, m := range e["moves"].([]any) {
		mm := m.(map[string]any)
		if mm["uci"] == "a1b2" {
			found = mm["category"] == "draw" && mm["zeroing"] == true
		}
	}
	if e["category"] != "draw" || !found {
		t.Fatalf("capture: %v", e)
	}
	// A long KRvK win, and the same with a halfmove clock that leaves too
	// few moves: cursed.
	e = get("8/8/8/3k4/8/8/8/R3K3 w - - 0 1")
	n := e["dtm"].(float64)
	if e["category"] != "win" || n < 20 {
		t.Fatalf("KRvK: %v", e)
	}
	e = get("8/8/8/3k4/8/8/8/R3K3 w - - 90 80")
	if e["category"] != "cursed-win" {
		t.Fatalf("KRvK at halfmove 90: %v", e["category"])
	}
	if e = get("8/8/8/3k4/8/8/P7/R3K3 w - - 0 1"); e["category"] != "unknown" {
		t.Fatalf("KRPvK: %v", e["category"])
	}
}
