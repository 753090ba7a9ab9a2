package board

import (
	"strings"
	"testing"
)

// FuzzParseFEN checks that ParseFEN never panics, and that any position it
// accepts writes a FEN that parses back to the same FEN and has a sane
// move list whose notation round-trips.
func FuzzParseFEN(f *testing.F) {
	f.Add(StartFEN)
	f.Add("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	f.Add("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
	f.Add("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
	// Issue 13: set-ups Lichess starts games from (promoted pieces beyond
	// the missing pawns, nine pawns, rights and en passant that do not fit)
	// and one too crowded for the move list.
	f.Add("4k3/8/8/8/8/QQ1Q4/PPPPPPPP/4K3 w - - 0 1")
	f.Add("4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1")
	f.Add("4k3/8/8/8/8/8/8/4K3 w KQkq e3 0 1")
	f.Add("3Q4/1Q3Q2/Q6Q/2QQQQ2/QQ4QQ/8/8/k3K3 b - - 0 1")
	f.Add("QQQQQQQQ/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/QQQQQQQQ/K6k b - - 0 1")
	f.Fuzz(func(t *testing.T, fen string) {
		p, err := ParseFEN(fen)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fen: ") {
				t.Fatalf("error %q lacks the fen: prefix", err)
			}
			return
		}
		out := p.FEN()
		q, err := ParseFEN(out)
		if err != nil {
			t.Fatalf("FEN() of %q wrote %q, which does not parse: %v", fen, out, err)
		}
		q.Chess960 = p.Chess960
		if q.FEN() != out || q.Key() != p.Key() {
			t.Fatalf("%q: FEN %q reparses to %q", fen, out, q.FEN())
		}
		var l MoveList
		p.GenerateLegal(&l)
		var child Position
		for _, m := range l.Slice() {
			if back, err := p.ParseUCIMove(p.UCI(m)); err != nil || back != m {
				t.Fatalf("%s: UCI round trip of %s: %s, %v", out, m, back, err)
			}
			if back, err := p.ParseSAN(p.SAN(m)); err != nil || back != m {
				t.Fatalf("%s: SAN round trip of %s: %s, %v", out, m, back, err)
			}
			p.MakeMove(m, &child)
			child.Perft(1)
		}
	})
}

// FuzzParseMove checks that the move parsers never panic and only return
// legal moves whose notation parses back to them.
func FuzzParseMove(f *testing.F) {
	f.Add(StartFEN, "e2e4")
	f.Add(StartFEN, "Nf3")
	f.Add("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1h1")
	f.Add("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O-O")
	f.Add("r1r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "bxa8=Q+")
	f.Add("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "Qa1b2")
	f.Fuzz(func(t *testing.T, fen, move string) {
		p, err := ParseFEN(fen)
		if err != nil {
			p = StartPosition()
		}
		for _, chess960 := range []bool{false, true} {
			p.Chess960 = chess960
			if m, err := p.ParseUCIMove(move); err == nil {
				if !p.IsLegal(m) {
					t.Fatalf("%s: ParseUCIMove(%q) = illegal %s", p.FEN(), move, m)
				}
				if back, err := p.ParseUCIMove(p.UCI(m)); err != nil || back != m {
					t.Fatalf("%s: UCI round trip of %s: %s, %v", p.FEN(), m, back, err)
				}
			}
			if m, err := p.ParseSAN(move); err == nil {
				if !p.IsLegal(m) {
					t.Fatalf("%s: ParseSAN(%q) = illegal %s", p.FEN(), move, m)
				}
				if back, err := p.ParseSAN(p.SAN(m)); err != nil || back != m {
					t.Fatalf("%s: SAN round trip of %s: %s, %v", p.FEN(), m, back, err)
				}
			}
		}
	})
}
