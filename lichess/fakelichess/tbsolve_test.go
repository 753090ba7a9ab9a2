package fakelichess

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// tbFEN writes a placement of table t as a FEN.
func tbFEN(t *tbTable, p *tbPos) string {
	var sq [64]byte
	for k := 0; k < p.n; k++ {
		c := tbLetters[t.pieces[k].pt]
		if t.pieces[k].color == board.Black {
			c += 'a' - 'A'
		}
		sq[p.sq[k]] = c
	}
	var b strings.Builder
	for r := 7; r >= 0; r-- {
		e := 0
		for f := 0; f < 8; f++ {
			if c := sq[r*8+f]; c != 0 {
				if e > 0 {
					fmt.Fprint(&b, e)
					e = 0
				}
				b.WriteByte(c)
			} else {
				e++
			}
		}
		if e > 0 {
			fmt.Fprint(&b, e)
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	stm := "w"
	if p.stm == board.Black {
		stm = "b"
	}
	return b.String() + " " + stm + " - - 0 1"
}

// randomPos draws a valid canonical placement of t.
func randomPos(rng *rand.Rand, t *tbTable) (tbPos, int) {
	for {
		i := rng.IntN(tbSize(len(t.pieces)))
		p := decode(i, len(t.pieces))
		if t.valid(&p) && t.canon(&p) == i {
			return p, i
		}
	}
}

// TestTBMovesMatchBoard: the solver's moves are engine/board's legal
// moves, in three- and four-piece tables, and each index decodes to the
// position it was made from.
func TestTBMovesMatchBoard(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, key := range []string{"KQvK", "KRvKR", "KBNvK", "KQvKN", "KNNvK"} {
		pieces, err := parseSig(key)
		if err != nil {
			t.Fatal(err)
		}
		tab := &tbTable{key: key, pieces: pieces}
		var buf []tbMove
		for range 1500 {
			p, i := randomPos(rng, tab)
			if got := rawIndex(&p); got != i {
				t.Fatalf("%s: index %d decodes to %d", key, i, got)
			}
			fen := tbFEN(tab, &p)
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
			for _, m := range tab.moves(&p, buf) {
				got = append(got, board.Square(p.sq[m.k]).String()+board.Square(m.to).String())
			}
			sort.Strings(want)
			sort.Strings(got)
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Fatalf("%s: board %v, solver %v", fen, want, got)
			}
		}
	}
}

// checkLongestWin solves the table of key and checks that its longest win
// lasts want plies; it returns the table and the longest win found.
func checkLongestWin(t *testing.T, s *tbSolver, key string, want int) (*tbTable, int) {
	t.Helper()
	tab, err := s.table(key)
	if err != nil {
		t.Fatal(err)
	}
	longest := 0
	for _, v := range tab.dtm {
		if n, win, ok := tbPlies(v); ok && win && n > longest {
			longest = n
		}
	}
	if longest != want {
		t.Errorf("%s: longest win %d plies, want %d", key, longest, want)
	}
	return tab, longest
}

// TestTBLongestMates: the longest wins are the known ones: KQvK mate in
// 10 moves, KRvK in 16; KBvK and KNvK never win.
func TestTBLongestMates(t *testing.T) {
	var s tbSolver
	for _, c := range []struct {
		key     string
		longest int // plies
	}{{"KQvK", 19}, {"KRvK", 31}, {"KBvK", 0}, {"KNvK", 0}} {
		checkLongestWin(t, &s, c.key, c.longest)
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

// TestTBFourPieces solves KRvKR and KQvKR (about six seconds of CPU each
// without the race detector, a minute with it: .ci/run runs this test
// without -race) and checks them: the longest wins are the known ones
// (KQvKR mate in 35 moves, KRvKR in 19), and on sampled positions the
// engine's own search agrees with the distances to mate: a mate the engine
// finds is never shorter than the table's (the table's is the fastest)
// and only for the side the table says wins, a short win in the table is
// found by the engine, and the engine finds no mate in a drawn position.
func TestTBFourPieces(t *testing.T) {
	if raceEnabled {
		t.Skip("four-piece tables take about a minute of CPU each under -race; .ci/run runs this test without it")
	}
	src := NewSources()
	defer src.Close()
	s := &src.solver
	eng := engine.New(engine.Options{HashMB: 16})
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		key     string
		longest int // plies
	}{{"KRvKR", 37}, {"KQvKR", 69}} {
		start := time.Now()
		tab, longest := checkLongestWin(t, s, c.key, c.longest)
		const depth = 8
		var found, short, draws int
		// Samples: positions the table mates in at most 7 plies (the
		// engine's depth reaches them), longer wins and losses, draws.
		var shortWins, longer, drawn []int
		for i, v := range tab.dtm {
			n, _, decided := tbPlies(v)
			switch {
			case v == tbInvalid:
			case !decided:
				drawn = append(drawn, i)
			case n <= 7:
				shortWins = append(shortWins, i)
			default:
				longer = append(longer, i)
			}
		}
		var sample []int
		for _, set := range [][]int{shortWins, longer, drawn} {
			for range 100 {
				sample = append(sample, set[rng.IntN(len(set))])
			}
		}
		for _, i := range sample {
			p := decode(i, len(tab.pieces))
			n, win, decided := tbPlies(tab.dtm[i])
			if z, _, _ := tbPlies(tab.dtz[i]); decided && (z > n || z == 0 && n > 0) {
				t.Errorf("%s: DTZ %d with DTM %d", tbFEN(tab, &p), z, n)
			}
			fen := tbFEN(tab, &p)
			pos, err := board.ParseFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			var ml board.MoveList
			if pos.GenerateLegal(&ml); ml.N == 0 {
				continue
			}
			eng.NewGame()
			res := eng.Search(context.Background(), board.NewGame(pos), engine.Limits{Depth: depth}, nil)
			m := res.Score.MateIn()
			switch {
			case !decided && m != 0:
				t.Errorf("%s: a draw in the table, the engine mates in %d", fen, m)
			case m > 0 && (!win || 2*m-1 < n):
				t.Errorf("%s: the engine mates in %d moves, the table says win %v in %d plies", fen, m, win, n)
			case m < 0 && (win || -2*m < n):
				t.Errorf("%s: the engine is mated in %d moves, the table says win %v in %d plies", fen, -m, win, n)
			case decided && n <= 5 && m == 0:
				t.Errorf("%s: the table mates in %d plies, the engine at depth %d finds no mate", fen, n, depth)
			}
			if m != 0 {
				found++
				if decided && (m > 0 && 2*m-1 == n || m < 0 && -2*m == n) {
					short++
				}
			}
			if !decided {
				draws++
			}
		}
		t.Logf("%s: solved in %v; longest win %d plies; of 300 sampled positions (100 won or lost in at most 7 plies, 100 more, 100 drawn), %d drawn, %d mates found by the engine (%d of the table's length)",
			c.key, time.Since(start).Round(time.Millisecond), longest, draws, found, short)
	}
	// Over HTTP, a four-piece answer: White in check from the rook on c1
	// takes it (KRvK, a win): the capture is the best move, zeroing, and
	// the position's DTZ is 1 (the capture) while its DTM is one more than
	// the capture's.
	resp, err := http.Get(src.URL() + "/standard?fen=" + url.QueryEscape("8/8/8/8/8/2k5/8/K1r4R w - - 0 1"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Category string `json:"category"`
		DTZ, DTM int
		Moves    []struct {
			UCI      string `json:"uci"`
			Category string `json:"category"`
			DTM      int    `json:"dtm"`
			Zeroing  bool   `json:"zeroing"`
		} `json:"moves"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e.Category != "win" || e.DTZ != 1 || len(e.Moves) == 0 || e.Moves[0].UCI != "h1c1" || !e.Moves[0].Zeroing ||
		e.Moves[0].Category != "loss" || e.DTM != -e.Moves[0].DTM+1 {
		t.Errorf("KRvKR capture: %+v", e)
	}
}
