package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// TestDropQuietsKeepsOrder checks that dropping quiet moves changes nothing
// but the work: with dropQuiets called before every quiet move, the moves
// handed out and the number dropped before each equal what plain picking
// gives when the search skips every quiet move that does not give check.
// Histories with many equal scores exercise the tie order of the selection.
func TestDropQuietsKeepsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h history
	fens := append(BenchPositions(),
		"4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",                               // castling gives check
		"3k4/8/8/8/8/8/2B5/R3K3 w Q - 0 1",                               // many quiet checks
		"r3k2r/8/8/3q4/8/8/8/R2QK2R w KQkq - 0 1",                        // queens and rooks
		"8/8/8/4k3/8/2N5/1B6/R3K2R w KQ - 0 1",                           // discovered checks
		"rnbqkbnr/ppp2ppp/8/3pp3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3") // opening
	for round := 0; round < 40; round++ {
		// Round 0: all zero (every score ties); later rounds: small ranges.
		if round > 0 {
			span := 1 + rng.IntN(4)
			for s := range h.butterfly {
				for f := range h.butterfly[s] {
					for to := range h.butterfly[s][f] {
						h.butterfly[s][f][to] = int16(rng.IntN(span) * 100)
					}
				}
			}
		}
		for _, fen := range fens {
			pos, err := board.ParseFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			var all board.MoveList
			pos.GenerateLegal(&all)
			var killers [2]board.Move
			var excluded board.Move
			if all.N > 2 {
				killers = [2]board.Move{all.Moves[rng.IntN(all.N)], all.Moves[rng.IntN(all.N)]}
				excluded = all.Moves[rng.IntN(all.N)]
			}
			tt := board.NoMove
			if rng.IntN(2) == 0 && all.N > 0 {
				tt = all.Moves[rng.IntN(all.N)]
			}
			// Reference: plain picking; quiet non-checks are counted, not kept.
			type step struct {
				dropped int
				m       board.Move
			}
			var want []step
			var ref picker
			ref.init(&pos, tt, killers, board.NoMove, false, &h, nil, nil)
			n := 0
			for {
				inQuiets := ref.atQuiets()
				m := ref.next()
				if m == board.NoMove {
					break
				}
				if m == excluded {
					continue
				}
				if inQuiets && !pos.IsCapture(m) && !m.IsPromotion() && !pos.GivesCheck(m) {
					n++
					continue
				}
				want = append(want, step{n, m})
				n = 0
			}
			want = append(want, step{n, board.NoMove})

			var got []step
			var p picker
			p.init(&pos, tt, killers, board.NoMove, false, &h, nil, nil)
			n = 0
			for {
				if p.atQuiets() {
					n += p.dropQuiets(excluded)
				}
				m := p.next()
				if m == board.NoMove {
					break
				}
				if m == excluded {
					continue
				}
				got = append(got, step{n, m})
				n = 0
			}
			got = append(got, step{n, board.NoMove})
			if len(got) != len(want) {
				t.Fatalf("%s round %d: got %v, want %v", fen, round, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s round %d: step %d got %v, want %v", fen, round, i, got[i], want[i])
				}
			}
		}
	}
}

// TestPickBest checks the branch-free selection against the plain one: the
// first of the best scores is swapped to the front.
func TestPickBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 2000; round++ {
		n := 1 + rng.IntN(60)
		l := make([]scoredMove, n)
		for i := range l {
			l[i] = scoredMove{board.Move(i + 1), int32(rng.IntN(1+round%7)) - 3}
		}
		want := append([]scoredMove(nil), l...)
		b := 0
		for j := range want {
			if want[j].score > want[b].score {
				b = j
			}
		}
		want[0], want[b] = want[b], want[0]
		if m := pickBest(l); m != want[0].move {
			t.Fatalf("round %d: picked %v, want %v", round, m, want[0].move)
		}
		for i := range l {
			if l[i] != want[i] {
				t.Fatalf("round %d: order %v, want %v", round, l, want)
			}
		}
	}
}
