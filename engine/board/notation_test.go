package board

import (
	"strings"
	"testing"
)

func mustFEN(t testing.TB, fen string) Position {
	t.Helper()
	p, err := ParseFEN(fen)
	if err != nil {
		t.Fatalf("ParseFEN(%q): %v", fen, err)
	}
	return p
}

func TestNotationCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fen      string
		chess960 bool
		move     Move
		uci, san string
	}{
		{"capture promotion to queen", "r1r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1", false, NewPromotion(B7, A8, Queen), "b7a8q", "bxa8=Q"},
		{"capture under-promotion", "r1r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1", false, NewPromotion(B7, C8, Knight), "b7c8n", "bxc8=N"},
		{"quiet promotion", "r1r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1", false, NewPromotion(B7, B8, Rook), "b7b8r", "b8=R"},
		{"black promotion", "4k3/8/8/8/8/8/p7/4K3 b - - 0 1", false, NewPromotion(A2, A1, Queen), "a2a1q", "a1=Q+"},
		{"castle short", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false, NewCastling(E1, H1), "e1g1", "O-O"},
		{"castle long", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false, NewCastling(E1, A1), "e1c1", "O-O-O"},
		{"black castle short", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", false, NewCastling(E8, H8), "e8g8", "O-O"},
		{"black castle long", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", false, NewCastling(E8, A8), "e8c8", "O-O-O"},
		{"castle short, 960 notation", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", true, NewCastling(E1, H1), "e1h1", "O-O"},
		{"castle long, 960 notation", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", true, NewCastling(E1, A1), "e1a1", "O-O-O"},
		{"960 long castle, king moves right", "4k3/8/8/8/8/8/8/RK5R w HA - 0 1", true, NewCastling(B1, A1), "b1a1", "O-O-O"},
		{"960 short castle, king stays", "4k3/8/8/8/8/8/8/R5KR w HA - 0 1", true, NewCastling(G1, H1), "g1h1", "O-O"},
		{"960 black castle", "1r2k1r1/8/8/8/8/8/8/R3K2R b KQkq - 0 1", true, NewCastling(E8, G8), "e8g8", "O-O"},
		{"en passant", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", false, NewEnPassant(E5, F6), "e5f6", "exf6"},
		{"en passant by black", "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1", false, NewEnPassant(D4, E3), "d4e3", "dxe3"},
		{"disambiguation by file", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", false, NewMove(B1, D2), "b1d2", "Nbd2"},
		{"disambiguation by file 2", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", false, NewMove(F1, D2), "f1d2", "Nfd2"},
		{"disambiguation by rank", "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", false, NewMove(A1, A3), "a1a3", "R1a3"},
		{"disambiguation by rank 2", "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", false, NewMove(A5, A3), "a5a3", "R5a3"},
		{"disambiguation by square", "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", false, NewMove(A1, B2), "a1b2", "Qa1b2"},
		{"disambiguation rank among three", "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", false, NewMove(A3, B2), "a3b2", "Q3b2"},
		{"disambiguation file among three", "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", false, NewMove(C1, B2), "c1b2", "Qcb2"},
		{"pinned twin needs no disambiguation", "4r1k1/8/1N6/8/8/4N3/8/4K3 w - - 0 1", false, NewMove(B6, D5), "b6d5", "Nd5"},
		{"capture with disambiguation", "4k3/8/8/3p4/8/2N1N3/8/4K3 w - - 0 1", false, NewMove(C3, D5), "c3d5", "Ncxd5"},
		{"mate", "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", false, NewMove(H5, F7), "h5f7", "Qxf7#"},
		{"check", "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", false, NewMove(C4, F7), "c4f7", "Bxf7+"},
		{"castling gives check", "5k2/8/8/8/8/8/8/4K2R w K - 0 1", false, NewCastling(E1, H1), "e1g1", "O-O+"},
		{"pawn push", StartFEN, false, NewMove(E2, E4), "e2e4", "e4"},
		{"knight", StartFEN, false, NewMove(G1, F3), "g1f3", "Nf3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustFEN(t, tc.fen)
			if tc.chess960 {
				p.Chess960 = true
			}
			if !p.IsLegal(tc.move) {
				t.Fatalf("%s is not legal in %s", tc.move, tc.fen)
			}
			if got := p.UCI(tc.move); got != tc.uci {
				t.Errorf("UCI(%s) = %q, want %q", tc.move, got, tc.uci)
			}
			if got := p.SAN(tc.move); got != tc.san {
				t.Errorf("SAN(%s) = %q, want %q", tc.move, got, tc.san)
			}
			if m, err := p.ParseUCIMove(tc.uci); err != nil || m != tc.move {
				t.Errorf("ParseUCIMove(%q) = %s, %v; want %s", tc.uci, m, err, tc.move)
			}
			if m, err := p.ParseSAN(tc.san); err != nil || m != tc.move {
				t.Errorf("ParseSAN(%q) = %s, %v; want %s", tc.san, m, err, tc.move)
			}
		})
	}
}

func TestParseUCIMoveCastlingForms(t *testing.T) {
	t.Parallel()
	p := mustFEN(t, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
	for _, s := range []string{"e1g1", "e1h1"} {
		if m, err := p.ParseUCIMove(s); err != nil || m != NewCastling(E1, H1) {
			t.Errorf("standard: ParseUCIMove(%q) = %s, %v", s, m, err)
		}
	}
	for _, s := range []string{"e1c1", "e1a1"} {
		if m, err := p.ParseUCIMove(s); err != nil || m != NewCastling(E1, A1) {
			t.Errorf("standard: ParseUCIMove(%q) = %s, %v", s, m, err)
		}
	}
	p.Chess960 = true
	for _, s := range []string{"e1h1", "e1g1"} { // e1g1 cannot be anything else
		if m, err := p.ParseUCIMove(s); err != nil || m != NewCastling(E1, H1) {
			t.Errorf("960: ParseUCIMove(%q) = %s, %v", s, m, err)
		}
	}
	// In Chess960 with the king on f1, f1g1 is an ordinary king move.
	q := mustFEN(t, "4k3/8/8/8/8/8/8/R4K1R w HA - 0 1")
	if m, err := q.ParseUCIMove("f1g1"); err != nil || m != NewMove(F1, G1) {
		t.Errorf("960: ParseUCIMove(f1g1) = %s, %v; want the king step", m, err)
	}
	if m, err := q.ParseUCIMove("f1h1"); err != nil || m != NewCastling(F1, H1) {
		t.Errorf("960: ParseUCIMove(f1h1) = %s, %v; want castling", m, err)
	}
}

func TestParseUCIMoveErrors(t *testing.T) {
	t.Parallel()
	p := StartPosition()
	for _, s := range []string{"", "e2", "e2e5", "e2e4q", "e7e5", "i2i4", "e2e4qq", "0000", "e1g1", "e2e4x", "E2E4"} {
		if m, err := p.ParseUCIMove(s); err == nil {
			t.Errorf("ParseUCIMove(%q) = %s, want an error", s, m)
		}
	}
	q := mustFEN(t, "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
	if _, err := q.ParseUCIMove("b7b8"); err == nil {
		t.Error("promotion without a piece letter was accepted")
	}
	if m, err := q.ParseUCIMove("b7b8Q"); err != nil || m != NewPromotion(B7, B8, Queen) {
		t.Errorf("ParseUCIMove(b7b8Q) = %s, %v", m, err)
	}
}

func TestParseSANTolerance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fen  string
		in   []string
		want Move
	}{
		{StartFEN, []string{"Nf3", "Ng1f3", "Ng1-f3", "Nf3!?", " Nf3 ", "Ngf3"}, NewMove(G1, F3)},
		{StartFEN, []string{"e4", "e2e4", "e2-e4"}, NewMove(E2, E4)},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", []string{"b8=Q+", "b8Q", "b8=q", "b8Q+"}, NewPromotion(B7, B8, Queen)},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", []string{"O-O", "0-0", "O-O+"}, NewCastling(E1, H1)},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", []string{"O-O-O", "0-0-0"}, NewCastling(E1, A1)},
		{"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", []string{"exf6", "exf6e.p.", "ef6", "e5f6"}, NewEnPassant(E5, F6)},
		{"4k3/8/8/3p4/8/2N1N3/8/4K3 w - - 0 1", []string{"Ncxd5", "Ncd5", "Nc3xd5"}, NewMove(C3, D5)},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		for _, s := range tc.in {
			if m, err := p.ParseSAN(s); err != nil || m != tc.want {
				t.Errorf("%s: ParseSAN(%q) = %s, %v; want %s", tc.fen, s, m, err, tc.want)
			}
		}
	}
}

func TestParseSANErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ fen, in, want string }{
		{StartFEN, "", "bad SAN"},
		{StartFEN, "Nf4", "illegal move"},
		{StartFEN, "O-O", "cannot castle"},
		{StartFEN, "e5", "illegal move"},
		{StartFEN, "Zf3", "bad SAN"},
		{StartFEN, "N", "bad SAN"},
		{"4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "Nd2", "ambiguous move"},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b8", "illegal move"},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b8=K", "bad promotion piece"},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b8=", "bad promotion"},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		m, err := p.ParseSAN(tc.in)
		if err == nil {
			t.Errorf("%s: ParseSAN(%q) = %s, want error", tc.fen, tc.in, m)
		} else if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseSAN(%q) error %q, want it to contain %q", tc.fen, tc.in, err, tc.want)
		}
	}
}

// TestNotationRoundTripSuite checks, for every legal move of every perft
// suite position, that UCI and SAN notation parse back to the same move and
// that SAN strings are unique within a position.
func TestNotationRoundTripSuite(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"testdata/perft.epd", "testdata/perft960.epd"} {
		cases := readPerftEPD(t, file)
		if testing.Short() || raceEnabled {
			cases = cases[:min(len(cases), 200)]
		}
		for _, c := range cases {
			p := mustFEN(t, c.fen)
			for _, chess960 := range []bool{false, true} {
				p.Chess960 = chess960 || strings.Contains(file, "960")
				var l MoveList
				p.GenerateLegal(&l)
				seen := map[string]bool{}
				for _, m := range l.Slice() {
					u := p.UCI(m)
					if back, err := p.ParseUCIMove(u); err != nil || back != m {
						t.Errorf("%s: ParseUCIMove(UCI(%s) = %q) = %s, %v", c.fen, m, u, back, err)
					}
					s := p.SAN(m)
					if seen[s] {
						t.Errorf("%s: SAN %q written for two moves", c.fen, s)
					}
					seen[s] = true
					if back, err := p.ParseSAN(s); err != nil || back != m {
						t.Errorf("%s: ParseSAN(SAN(%s) = %q) = %s, %v", c.fen, m, s, back, err)
					}
				}
			}
		}
	}
}
