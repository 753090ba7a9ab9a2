package board

import (
	"math/rand/v2"
	"testing"
)

// checkInvariants compares a position reached by MakeMove with the same
// position parsed from its FEN, and the generators with each other.
func checkInvariants(t *testing.T, p *Position, rng *rand.Rand) {
	t.Helper()
	fen := p.FEN()
	q, err := ParseFEN(fen)
	if err != nil {
		t.Fatalf("FEN() wrote %q that does not parse: %v", fen, err)
	}
	q.Chess960 = p.Chess960
	if q.FEN() != fen {
		t.Fatalf("FEN round trip %q → %q", fen, q.FEN())
	}
	if p.Key() != q.Key() || p.PawnKey() != q.PawnKey() {
		t.Fatalf("%s: incremental keys %x/%x, from scratch %x/%x", fen, p.Key(), p.PawnKey(), q.Key(), q.PawnKey())
	}
	if p.Checkers() != q.Checkers() {
		t.Fatalf("%s: checkers differ", fen)
	}
	pp := *p
	for i := range pp.castleRook {
		if pp.castling&(1<<i) == 0 {
			pp.castleRook[i], q.castleRook[i] = NoSquare, NoSquare
		}
	}
	if pp != q {
		t.Fatalf("%s: position made by moves differs from the parsed one", fen)
	}

	var all, caps, quiets MoveList
	p.GenerateLegal(&all)
	p.GenerateCaptures(&caps)
	p.GenerateQuiets(&quiets)
	if caps.N+quiets.N != all.N {
		t.Fatalf("%s: %d captures + %d quiets != %d legal moves", fen, caps.N, quiets.N, all.N)
	}
	for _, m := range caps.Slice() {
		if !all.Contains(m) || quiets.Contains(m) {
			t.Fatalf("%s: capture %s not in legal list or also quiet", fen, m)
		}
		if !p.IsCapture(m) && !m.IsPromotion() {
			t.Fatalf("%s: %s in captures but not a capture or promotion", fen, m)
		}
	}
	for _, m := range quiets.Slice() {
		if p.IsCapture(m) || m.IsPromotion() {
			t.Fatalf("%s: %s in quiets but a capture or promotion", fen, m)
		}
	}
	var child Position
	for _, m := range all.Slice() {
		if !p.IsLegal(m) {
			t.Fatalf("%s: IsLegal(%s) = false for a generated move", fen, m)
		}
		p.MakeMove(m, &child)
		if got := p.GivesCheck(m); got != child.InCheck() {
			t.Fatalf("%s: GivesCheck(%s) = %v, child in check %v", fen, m, got, child.InCheck())
		}
	}
	// Random move values: IsLegal must agree with the generator.
	for i := 0; i < 64; i++ {
		m := Move(rng.Uint32() & (1<<17 - 1))
		if i%2 == 0 {
			// Nudge towards plausible moves: origin on an own piece.
			own := p.ByColor(p.SideToMove())
			for n := rng.IntN(own.Count()); n > 0; n-- {
				own &= own - 1
			}
			m = m&^63 | Move(own.LSB())
		}
		if got, want := p.IsLegal(m), m != NullMove && all.Contains(m); got != want {
			t.Fatalf("%s: IsLegal(%s [%#x]) = %v, want %v", fen, m, uint32(m), got, want)
		}
	}
	if p.IsLegal(NoMove) || p.IsLegal(NullMove) {
		t.Fatalf("%s: NoMove or NullMove legal", fen)
	}
}

func walk(t *testing.T, p *Position, depth int, rng *rand.Rand) {
	checkInvariants(t, p, rng)
	if depth == 0 {
		return
	}
	forEachChild(p, func(child *Position) { walk(t, child, depth-1, rng) })
}

// forEachChild calls f with the position after each legal move of p.
func forEachChild(p *Position, f func(child *Position)) {
	var l MoveList
	p.GenerateLegal(&l)
	var child Position
	for _, m := range l.Slice() {
		p.MakeMove(m, &child)
		f(&child)
	}
}

func TestConsistencyAlongTree(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	depth := 2
	if raceEnabled || testing.Short() {
		depth = 1
	}
	for _, file := range []string{"testdata/perft.epd", "testdata/perft960.epd"} {
		cases := readPerftEPD(t, file)
		if file == "testdata/perft960.epd" && !longTests() {
			cases = append(cases[:40:40], cases[len(cases)-5:]...) // a sample plus the X-FEN rows
		}
		for _, c := range cases {
			p := mustFEN(t, c.fen)
			if file == "testdata/perft960.epd" {
				p.Chess960 = true
			}
			d := depth
			if c.counts[0] > 40 || len(c.counts) > 1 && c.counts[1] > 1500 {
				d = min(d, 1)
			}
			walk(t, &p, d, rng)
		}
	}
}

func TestNullMove(t *testing.T) {
	p := mustFEN(t, "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
	var child Position
	p.MakeNullMove(&child)
	q := mustFEN(t, "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR b KQkq - 1 3")
	if child != q {
		t.Errorf("null move gave %s (key %x), want %s (key %x)", child.FEN(), child.Key(), q.FEN(), q.Key())
	}
	if NullMove == NoMove || NullMove.String() != "null" || p.UCI(NullMove) != "0000" {
		t.Error("NullMove is not distinct or prints wrongly")
	}
}

func TestAttackers(t *testing.T) {
	p := mustFEN(t, "3qk3/2n5/8/3p4/4PN2/8/B7/3RK3 w - - 0 1")
	got := p.AttackersTo(D5, p.Occupied())
	want := SquareBB(E4) | SquareBB(F4) | SquareBB(A2) | SquareBB(D1) | SquareBB(C7) | SquareBB(D8)
	if got != want {
		t.Errorf("AttackersTo(d5) =\n%v want\n%v", got, want)
	}
	if got := p.AttackersTo(D4, p.Occupied()); got != SquareBB(D1) {
		t.Errorf("AttackersTo(d4) =\n%v want the d1 rook only", got)
	}
	// With d5 taken out of the occupancy (as SEE does) the queen behind it
	// joins.
	if got := p.AttackersTo(D4, p.Occupied()&^SquareBB(D5)); got != SquareBB(D1)|SquareBB(D8) {
		t.Errorf("AttackersTo(d4) without d5 =\n%v want d1 and d8", got)
	}
	if !p.HasNonPawnMaterial(White) || !p.HasNonPawnMaterial(Black) {
		t.Error("HasNonPawnMaterial")
	}
	if q := mustFEN(t, "4k3/pppp4/8/8/8/8/8/4K3 w - - 0 1"); q.HasNonPawnMaterial(Black) {
		t.Error("HasNonPawnMaterial counts pawns")
	}
	if Between(A1, H8) != SquareBB(B2)|SquareBB(C3)|SquareBB(D4)|SquareBB(E5)|SquareBB(F6)|SquareBB(G7) {
		t.Error("Between(a1, h8)")
	}
	if Between(A1, B3) != 0 || Line(A1, B3) != 0 || Line(A1, C1) != rank1 {
		t.Error("Between/Line of unaligned or rank squares")
	}
}

// checkIsLegalExhaustive tries every move value an own piece could have
// (every destination, every kind, every promotion piece) and compares
// IsLegal with the generated list.
func checkIsLegalExhaustive(t *testing.T, p *Position) {
	var l MoveList
	p.GenerateLegal(&l)
	legal := make(map[Move]bool, l.N)
	for _, m := range l.Slice() {
		legal[m] = true
	}
	for own := p.ByColor(p.SideToMove()); own != 0; {
		from := own.PopLSB()
		for to := Square(0); to < 64; to++ {
			cands := [...]Move{
				NewMove(from, to), NewEnPassant(from, to), NewCastling(from, to),
				NewPromotion(from, to, Queen), NewPromotion(from, to, Rook),
				NewPromotion(from, to, Bishop), NewPromotion(from, to, Knight),
				NewPromotion(from, to, King), NewPromotion(from, to, Pawn),
				NewMove(from, to) | Move(Queen)<<12,
			}
			for _, m := range cands {
				if got := p.IsLegal(m); got != legal[m] {
					t.Fatalf("%s: IsLegal(%s [%#x]) = %v, want %v", p.FEN(), m, uint32(m), got, legal[m])
				}
			}
		}
	}
}

func TestIsLegalExhaustive(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"testdata/perft.epd", "testdata/perft960.epd"} {
		cases := readPerftEPD(t, file)
		if raceEnabled || testing.Short() {
			cases = cases[:30]
		} else if !longTests() && len(cases) > 200 {
			cases = append(cases[:100:100], cases[len(cases)-5:]...)
		}
		for _, c := range cases {
			p := mustFEN(t, c.fen)
			checkIsLegalExhaustive(t, &p)
			if raceEnabled {
				continue
			}
			forEachChild(&p, func(child *Position) { checkIsLegalExhaustive(t, child) })
		}
	}
}

func TestEnPassantSquareOnlyWhenLegal(t *testing.T) {
	tests := []struct {
		fen  string
		move Move
		ep   Square
	}{
		// Black's d4 pawn could take e3 only by exposing its king on a4.
		{"8/8/8/8/k2p3Q/8/4P3/3K4 w - - 0 1", NewMove(E2, E4), NoSquare},
		// Without the queen it may.
		{"8/8/8/8/k2p4/8/4P3/3K4 w - - 0 1", NewMove(E2, E4), E3},
		// No pawn beside: no square.
		{StartFEN, NewMove(E2, E4), NoSquare},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		var child Position
		p.MakeMove(tc.move, &child)
		if child.EnPassant() != tc.ep {
			t.Errorf("%s after %s: EnPassant() = %s, want %s", tc.fen, tc.move, child.EnPassant(), tc.ep)
		}
		q := mustFEN(t, child.FEN())
		if q.Key() != child.Key() {
			t.Errorf("%s after %s: key differs from the parsed FEN's", tc.fen, tc.move)
		}
	}
	// A FEN naming an en passant square that cannot be used keeps it, but
	// the key is the one without it.
	a := mustFEN(t, "8/8/8/8/k2pP2Q/8/8/3K4 b - e3 0 1")
	b := mustFEN(t, "8/8/8/8/k2pP2Q/8/8/3K4 b - - 0 1")
	if a.EnPassant() != E3 || a.Key() != b.Key() {
		t.Errorf("unusable e.p. square: EnPassant() = %s, keys equal %v", a.EnPassant(), a.Key() == b.Key())
	}
}

// TestRandomGames plays random games (which reach promotions, under-
// promotions, late castling and bare-king endings the perft trees do not)
// and checks every position's invariants along the way, plus the Game's
// bookkeeping.
func TestRandomGames(t *testing.T) {
	t.Parallel()
	games := 60
	if raceEnabled || testing.Short() {
		games = 8
	} else if longTests() {
		games = 2000
	}
	starts := []string{StartFEN, kiwipete, "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
		"r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1", "4k3/1P4p1/8/8/8/8/1p4P1/4K3 w - - 0 1"}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < games; i++ {
		g := NewGame(mustFEN(t, starts[i%len(starts)]))
		for ply := 0; ply < 300; ply++ {
			p := g.Position()
			checkInvariants(t, &p, rng)
			if g.Outcome().Result != Ongoing {
				break
			}
			var l MoveList
			p.GenerateLegal(&l)
			m := l.Moves[rng.IntN(l.N)]
			san := p.SAN(m)
			if err := g.PlaySAN(san); err != nil {
				t.Fatalf("%s: PlaySAN(%q): %v", p.FEN(), san, err)
			}
			if got := g.Moves()[len(g.Moves())-1]; got != m {
				t.Fatalf("%s: PlaySAN(%q) played %s, want %s", p.FEN(), san, got, m)
			}
		}
		if len(g.Keys()) != len(g.Moves())+1 {
			t.Fatalf("game %d: %d keys for %d moves", i, len(g.Keys()), len(g.Moves()))
		}
	}
}
