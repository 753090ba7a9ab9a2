package board

// Attack tables. Leaper tables and the between/line tables are plain arrays;
// sliding pieces use "fancy" magic bitboards: for each square, the relevant
// occupancy (the ray squares minus the board edge) is multiplied by a magic
// number and shifted, giving an index into a shared attack table. The magic
// numbers (magics_table.go) were found by TestGenerateMagics; start-up only
// fills the tables (see BenchmarkInitAttacks).

var (
	pawnAttacks   [2][64]Bitboard
	knightAttacks [64]Bitboard
	kingAttacks   [64]Bitboard
	betweenBB     [64][64]Bitboard
	lineBB        [64][64]Bitboard

	rookMagics   [64]magic
	bishopMagics [64]magic
	rookTable    [0x19000]Bitboard // 102400 entries
	bishopTable  [0x1480]Bitboard  // 5248 entries
)

// magic holds the lookup data of one square for one slider type.
type magic struct {
	mask   Bitboard
	magic  uint64
	shift  uint8
	offset uint32
}

func (m *magic) index(occ Bitboard) uint32 {
	return m.offset + uint32((uint64(occ&m.mask)*m.magic)>>m.shift)
}

var (
	rookDirs   = [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	bishopDirs = [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
)

func init() {
	initLeapers()
	fillMagics(&rookMagics, &rookMagicNumbers, rookTable[:], rookDirs)
	fillMagics(&bishopMagics, &bishopMagicNumbers, bishopTable[:], bishopDirs)
	initLines()
}

func onBoard(f, r int) bool { return f >= 0 && f < 8 && r >= 0 && r < 8 }

func initLeapers() {
	knightSteps := [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}
	kingSteps := [8][2]int{{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}}
	for sq := Square(0); sq < 64; sq++ {
		f, r := sq.File(), sq.Rank()
		for _, d := range knightSteps {
			if onBoard(f+d[0], r+d[1]) {
				knightAttacks[sq] |= SquareBB(NewSquare(f+d[0], r+d[1]))
			}
		}
		for _, d := range kingSteps {
			if onBoard(f+d[0], r+d[1]) {
				kingAttacks[sq] |= SquareBB(NewSquare(f+d[0], r+d[1]))
			}
		}
		for _, df := range [2]int{-1, 1} {
			if onBoard(f+df, r+1) {
				pawnAttacks[White][sq] |= SquareBB(NewSquare(f+df, r+1))
			}
			if onBoard(f+df, r-1) {
				pawnAttacks[Black][sq] |= SquareBB(NewSquare(f+df, r-1))
			}
		}
	}
}

// slideAttacks computes sliding attacks the slow way, ray by ray.
func slideAttacks(sq Square, occ Bitboard, dirs [4][2]int) Bitboard {
	var att Bitboard
	for _, d := range dirs {
		f, r := sq.File()+d[0], sq.Rank()+d[1]
		for onBoard(f, r) {
			s := NewSquare(f, r)
			att |= SquareBB(s)
			if occ.Has(s) {
				break
			}
			f, r = f+d[0], r+d[1]
		}
	}
	return att
}

// fillMagics computes, for every square, the relevant-occupancy mask and
// the attacks of every occupancy subset, stored at the index the given
// magic number maps it to.
func fillMagics(magics *[64]magic, numbers *[64]uint64, table []Bitboard, dirs [4][2]int) {
	offset := uint32(0)
	for sq := Square(0); sq < 64; sq++ {
		m := &magics[sq]
		m.mask = relevantMask(sq, dirs)
		m.magic = numbers[sq]
		m.shift = uint8(64 - m.mask.Count())
		m.offset = offset
		n := uint32(0)
		for b := Bitboard(0); ; {
			table[m.index(b)] = slideAttacks(sq, b, dirs)
			n++
			b = (b - m.mask) & m.mask
			if b == 0 {
				break
			}
		}
		offset += n
	}
}

// relevantMask returns the squares whose occupancy matters for a slider on
// sq: its empty-board rays without the last square of each.
func relevantMask(sq Square, dirs [4][2]int) Bitboard {
	edges := ((rank1 | rank8) &^ rankBB(sq.Rank())) | ((fileA | fileH) &^ fileBB(sq.File()))
	return slideAttacks(sq, 0, dirs) &^ edges
}

func initLines() {
	for a := Square(0); a < 64; a++ {
		for b := Square(0); b < 64; b++ {
			if a == b {
				continue
			}
			for _, dirs := range [2][4][2]int{rookDirs, bishopDirs} {
				if slideAttacks(a, 0, dirs).Has(b) {
					lineBB[a][b] = (slideAttacks(a, 0, dirs) & slideAttacks(b, 0, dirs)) | SquareBB(a) | SquareBB(b)
					betweenBB[a][b] = slideAttacks(a, SquareBB(b), dirs) & slideAttacks(b, SquareBB(a), dirs)
				}
			}
		}
	}
}

// PawnAttacks returns the squares a pawn of colour c on sq attacks.
func PawnAttacks(c Color, sq Square) Bitboard { return pawnAttacks[c&1][sq&63] }

// KnightAttacks returns the squares a knight on sq attacks.
func KnightAttacks(sq Square) Bitboard { return knightAttacks[sq&63] }

// KingAttacks returns the squares a king on sq attacks.
func KingAttacks(sq Square) Bitboard { return kingAttacks[sq&63] }

// BishopAttacks returns the squares a bishop on sq attacks given the
// occupied squares occ (the first blocker on each ray is included).
func BishopAttacks(sq Square, occ Bitboard) Bitboard {
	m := &bishopMagics[sq&63]
	return bishopTable[m.index(occ)]
}

// RookAttacks returns the squares a rook on sq attacks given occ.
func RookAttacks(sq Square, occ Bitboard) Bitboard {
	m := &rookMagics[sq&63]
	return rookTable[m.index(occ)]
}

// QueenAttacks returns the squares a queen on sq attacks given occ.
func QueenAttacks(sq Square, occ Bitboard) Bitboard {
	return BishopAttacks(sq, occ) | RookAttacks(sq, occ)
}

// Between returns the squares strictly between a and b when they share a
// rank, file or diagonal, else the empty set.
func Between(a, b Square) Bitboard { return betweenBB[a&63][b&63] }

// Line returns the whole line (edge to edge) through a and b when they are
// aligned, else the empty set.
func Line(a, b Square) Bitboard { return lineBB[a&63][b&63] }
