package board

import (
	"strings"
	"testing"
)

func TestFENRoundTrip(t *testing.T) {
	t.Parallel()
	fens := []string{
		StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", // e.p. square no pawn can use is kept
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"4k3/8/8/8/8/8/8/4K2R w K - 99 170",
		"r3k3/8/8/8/8/8/8/4K3 b q - 5 40",
		// Chess960: outermost rooks are written KQkq, inner ones by file.
		"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
		"r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
		"1r2k1r1/8/8/8/8/8/8/RR2K1RR w GBkq - 0 1",
		"2r5/8/8/8/8/8/6PP/k2KR3 w K - 0 1",
	}
	for _, fen := range fens {
		p, err := ParseFEN(fen)
		if err != nil {
			t.Errorf("ParseFEN(%q): %v", fen, err)
			continue
		}
		if got := p.FEN(); got != fen {
			t.Errorf("FEN round trip:\n got %s\nwant %s", got, fen)
		}
	}
}

func TestFENVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, out  string
		chess960 bool
	}{
		// Shredder letters for the standard set-up name the same rights.
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", StartFEN, true},
		// Move counters may be left out.
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", StartFEN, false},
		// Extra white space is fine.
		{"  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w KQkq - 0   1 ", StartFEN, false},
		// X-FEN: K with two rooks on the king side means the outermost one.
		{"1r2k1r1/8/8/8/8/8/8/RR2K1RR w KQkq - 0 1", "1r2k1r1/8/8/8/8/8/8/RR2K1RR w KQkq - 0 1", true},
		// Shredder letters naming outermost rooks come back as KQkq.
		{"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9", true},
		{"1r2k1r1/8/8/8/8/8/8/RR2K1RR w GBgb - 0 1", "1r2k1r1/8/8/8/8/8/8/RR2K1RR w GBkq - 0 1", true},
		{"1r2k1r1/8/8/8/8/8/8/RR2K1RR w HAgb - 0 1", "1r2k1r1/8/8/8/8/8/8/RR2K1RR w KQkq - 0 1", true},
		// A king off e1 with castling rights is Chess960.
		{"r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1", "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1", true},
		// A move number of 0 becomes 1.
		{"4k3/8/8/8/8/8/8/4K3 w - - 0 0", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", false},
	}
	for _, tc := range tests {
		p, err := ParseFEN(tc.in)
		if err != nil {
			t.Errorf("ParseFEN(%q): %v", tc.in, err)
			continue
		}
		if got := p.FEN(); got != tc.out {
			t.Errorf("ParseFEN(%q).FEN() = %q, want %q", tc.in, got, tc.out)
		}
		if p.Chess960 != tc.chess960 {
			t.Errorf("ParseFEN(%q).Chess960 = %v, want %v", tc.in, p.Chess960, tc.chess960)
		}
	}
}

func TestFENErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ fen, want string }{
		{"", "fen: want 6"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "fen: want 6"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "fen: board has 7 ranks"},
		{"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "fen: rank 6 has 9 files"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "fen: rank 1 has 7 files"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1", "fen: rank 1 has 9 files"},
		{"rnbqkbnr/pppppppp/8/8/3X4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "fen: unknown piece letter 'X' in rank 4"},
		{"rnbqkbnr/pppppppp/8/0/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "fen: rank 5 has a 0"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "fen: white has no king"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "fen: want 6"},
		{"rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "fen: black has no king"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "fen: white has 2 kings"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNP w Qkq - 0 1", "fen: pawn on the first or last rank (h1)"},
		{"Pnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQkq - 0 1", "fen: pawn on the first or last rank (a8)"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "fen: side to move is \"x\""},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqX - 0 1", "fen: castling field \"KQkqX\" is too long"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KZ - 0 1", "fen: castling field \"KZ\" has bad letter 'Z'"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w Kkq - 0 1", "white has no king"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "fen: bad en passant field \"e9\""},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "fen: bad halfmove clock \"-1\""},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x", "fen: bad fullmove number \"x\""},
		{"4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "fen: side not to move is in check"},
		{"QQQQQQQQ/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/QQQQQQQQ/K6k b - - 0 1", "fen: white could have up to 265 moves"},
		{"4k3/8/8/8/8/8/8/4K3 " + strings.Repeat("x", 5000) + " - - 0 1", "side to move is \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"…, want"},
		{"4k3/8/8/8/8/8/8/4K3 w - - 0 1\x00", "fen: bad fullmove number"},
	}
	for _, tc := range tests {
		_, err := ParseFEN(tc.fen)
		if err == nil {
			t.Errorf("ParseFEN(%q) succeeded, want error %q", tc.fen, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFEN(%q) error = %q, want it to contain %q", tc.fen, err, tc.want)
		}
		if !strings.HasPrefix(err.Error(), "fen: ") {
			t.Errorf("ParseFEN(%q) error %q does not start with \"fen: \"", tc.fen, err)
		}
	}
}

func TestStartPosition(t *testing.T) {
	p := StartPosition()
	if p.FEN() != StartFEN || p.SideToMove() != White || p.InCheck() || p.Chess960 {
		t.Errorf("StartPosition() = %s", p.FEN())
	}
	if p.PieceAt(E1) != MakePiece(White, King) || p.PieceAt(D8) != MakePiece(Black, Queen) || p.PieceAt(E4) != NoPiece {
		t.Error("StartPosition pieces are wrong")
	}
	if p.Pieces(White, Pawn) != rank2 || p.Occupied().Count() != 32 || p.KingSquare(Black) != E8 {
		t.Error("StartPosition bitboards are wrong")
	}
	if p.EnPassant() != NoSquare || p.HalfmoveClock() != 0 || p.FullmoveNumber() != 1 {
		t.Error("StartPosition counters are wrong")
	}
}

func TestPositionString(t *testing.T) {
	p := StartPosition()
	s := p.String()
	if !strings.HasPrefix(s, "8 r n b q k b n r\n7 p p p p p p p p\n6 . . . . . . . .\n") ||
		!strings.Contains(s, "1 R N B Q K B N R\n  a b c d e f g h\n") || !strings.Contains(s, "Fen: "+StartFEN+"\n") {
		t.Errorf("String() =\n%s", s)
	}
}

// TestFENLichessAccepts: positions Lichess starts games from (its
// non-strict check) parse, with castling rights and en passant squares
// that do not fit dropped as Lichess drops them. The first used to leave a
// fromPosition game hanging (issue 13).
func TestFENLichessAccepts(t *testing.T) {
	for _, tc := range []struct{ fen, want string }{
		// More promoted pieces than missing pawns: 8 pawns and 3 queens.
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"},
		{"4k3/8/8/8/8/QQ1Q4/PPPPPPPP/4K3 w - - 0 1", "4k3/8/8/8/8/QQ1Q4/PPPPPPPP/4K3 w - - 0 1"},
		// Nine pawns, more than 16 pieces.
		{"4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1", "4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1"},
		{"rnbqkbnr/pppppppp/8/8/8/NNNNNNNN/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rnbqkbnr/pppppppp/8/8/8/NNNNNNNN/PPPPPPPP/RNBQKBNR w KQkq - 0 1"},
		// Castling rights without their rook or king; a right twice.
		{"4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"},
		{"r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1", "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1"},
		{"rnbqkbnr/pppppppp/8/8/8/4K3/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", "rnbqkbnr/pppppppp/8/8/8/4K3/PPPPPPPP/RNBQ1BNR w kq - 0 1"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KK - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w K - 0 1"},
		// En passant squares no double push left.
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"},
	} {
		p, err := ParseFEN(tc.fen)
		if err != nil {
			t.Errorf("ParseFEN(%q): %v", tc.fen, err)
			continue
		}
		if got := p.FEN(); got != tc.want {
			t.Errorf("ParseFEN(%q).FEN() = %q, want %q", tc.fen, got, tc.want)
		}
		var l MoveList
		p.GenerateLegal(&l)
		if l.N == 0 {
			t.Errorf("%q: no legal move", tc.fen)
		}
		p.Perft(3)
	}
}
