package fakelichess

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Opponent chooses the opponent's move in g (the side to move is the
// opponent). left and inc are its clock. Returning board.NoMove resigns.
// It runs outside the server's lock and may take its time (the clock runs);
// ctx ends when the server closes. The game is a clone the func may keep.
// An engine can be plugged in here: EngineOpponent (the sandbox uses it).
type Opponent func(ctx context.Context, g *board.Game, left, inc time.Duration) board.Move

// pieceValue orders captures: most valuable victim first.
var pieceValue = [7]int{0, 1, 3, 3, 5, 9, 0}

// CapturesFirst returns a weak but legal opponent: it mates in one when it
// can, otherwise takes the most valuable piece it can capture, otherwise
// plays a random move. seed makes it reproducible; it is safe for
// concurrent games.
func CapturesFirst(seed uint64) Opponent {
	random := newPicker(seed, 0xda3e39cb94b95bdb)
	return fromLegal(func(pos *board.Position, l *board.MoveList) board.Move {
		best, bestVal := board.NoMove, -1
		for _, m := range l.Slice() {
			var child board.Position
			pos.MakeMove(m, &child)
			var replies board.MoveList
			child.GenerateLegal(&replies)
			if replies.N == 0 && child.InCheck() {
				return m
			}
			if pos.IsCapture(m) {
				v := 1 // en passant
				if pc := pos.PieceAt(m.To()); pc != board.NoPiece && !m.IsCastling() {
					v = pieceValue[pc.Type()]
				}
				if m.IsPromotion() {
					v += pieceValue[m.Promotion()]
				}
				if v > bestVal {
					best, bestVal = m, v
				}
			}
		}
		if best != board.NoMove {
			return best
		}
		return random.pick(l)
	})
}

// fromLegal makes an opponent of choose, which gets the position and its
// legal moves (at least one); without a legal move the opponent resigns.
func fromLegal(choose func(pos *board.Position, l *board.MoveList) board.Move) Opponent {
	return func(ctx context.Context, g *board.Game, left, inc time.Duration) board.Move {
		pos := g.Position()
		var l board.MoveList
		pos.GenerateLegal(&l)
		if l.N == 0 {
			return board.NoMove
		}
		return choose(&pos, &l)
	}
}

// picker picks uniformly random moves, reproducibly from its seed; it is
// safe for concurrent games.
type picker struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newPicker(seed, salt uint64) *picker {
	return &picker{rng: rand.New(rand.NewPCG(seed, seed^salt))}
}

// pick returns one of the l.N > 0 moves of l.
func (p *picker) pick(l *board.MoveList) board.Move {
	p.mu.Lock()
	defer p.mu.Unlock()
	return l.Moves[p.rng.IntN(l.N)]
}

// RandomMover returns an opponent that plays uniformly random legal moves.
func RandomMover(seed uint64) Opponent {
	random := newPicker(seed, 0x2545f4914f6cdd1d)
	return fromLegal(func(_ *board.Position, l *board.MoveList) board.Move { return random.pick(l) })
}

// Scripted plays the given UCI moves as the opponent's 1st, 2nd, … moves
// (king-takes-rook or e1g1 castling both work), then falls back to then
// (nil: resign). A scripted move that is illegal also falls back.
func Scripted(moves []string, then Opponent) Opponent {
	return func(ctx context.Context, g *board.Game, left, inc time.Duration) board.Move {
		start := g.Start()
		pos := g.Position()
		n := len(g.Moves())
		k := n / 2 // opponent moves already played
		if pos.SideToMove() != start.SideToMove() {
			k = (n - 1) / 2
		}
		if k < len(moves) {
			if m, err := pos.ParseUCIMove(strings.TrimSpace(moves[k])); err == nil {
				return m
			}
		}
		if then == nil {
			return board.NoMove
		}
		return then(ctx, g, left, inc)
	}
}

// Slow wraps an opponent so that it thinks for d first (or until ctx ends).
func Slow(d time.Duration, o Opponent) Opponent {
	return func(ctx context.Context, g *board.Game, left, inc time.Duration) board.Move {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		return o(ctx, g, left, inc)
	}
}

// Chess960FEN returns Chess960 start position number n (0..959) in the
// standard numbering (518 is the normal start), castling written KQkq.
func Chess960FEN(n int) string {
	n = ((n % 960) + 960) % 960
	var rank [8]byte
	rank[2*(n%4)+1] = 'b' // light-squared bishop: files b, d, f, h
	n /= 4
	rank[2*(n%4)] = 'b' // dark-squared bishop: files a, c, e, g
	n /= 4
	place := func(k int, p byte) { // put p on the k-th empty file
		for f := range rank {
			if rank[f] == 0 {
				if k == 0 {
					rank[f] = p
					return
				}
				k--
			}
		}
	}
	place(n%6, 'q')
	n /= 6
	knights := [10][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}}
	kn := knights[n]
	place(kn[1], 'n') // the later one first, so the earlier index stays valid
	place(kn[0], 'n')
	place(0, 'r')
	place(0, 'k')
	place(0, 'r')
	black := string(rank[:])
	return black + "/pppppppp/8/8/8/8/PPPPPPPP/" + strings.ToUpper(black) + " w KQkq - 0 1"
}
