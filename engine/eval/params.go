package eval

// S is a tapered score: a middlegame and an endgame value packed in one
// int32 (endgame in the high half), so both are summed with one addition.
type S int32

// Pack returns the tapered score with middlegame mg and endgame eg.
func Pack(mg, eg int) S { return S(int32(uint32(eg)<<16) + int32(mg)) }

// MG returns the middlegame half of s.
func (s S) MG() int { return int(int16(uint16(uint32(s)))) }

// EG returns the endgame half of s.
func (s S) EG() int { return int(int16(uint16((uint32(s) + 0x8000) >> 16))) }

// Parameter layout: Params is one flat vector so the tuner can treat every
// term alike. Each constant is the index of the first entry of a term.
const (
	IdxMaterial       = 0                     // [6] pawn..king (king unused)
	IdxPST            = IdxMaterial + 6       // [6][64] by piece type-1, white's view (a1=0)
	IdxMobKnight      = IdxPST + 6*64         // [9]
	IdxMobBishop      = IdxMobKnight + 9      // [14]
	IdxMobRook        = IdxMobBishop + 14     // [15]
	IdxMobQueen       = IdxMobRook + 15       // [28]
	IdxDoubled        = IdxMobQueen + 28      // [1]
	IdxIsolated       = IdxDoubled + 1        // [1]
	IdxBackward       = IdxIsolated + 1       // [1]
	IdxPhalanx        = IdxBackward + 1       // [8] by relative rank
	IdxSupported      = IdxPhalanx + 8        // [8] by relative rank
	IdxPassed         = IdxSupported + 8      // [8] by relative rank
	IdxPassedFree     = IdxPassed + 8         // [8] by relative rank: path to promotion unblocked
	IdxPassedOwnKing  = IdxPassedFree + 8     // [8] by rank, × own king distance to the stop square
	IdxPassedThemKing = IdxPassedOwnKing + 8  // [8] by rank, × enemy king distance to the stop square
	IdxKingAttack     = IdxPassedThemKing + 8 // [4] knight..queen: per king-zone square attacked
	IdxSafeCheck      = IdxKingAttack + 4     // [4] knight..queen: per safe checking move
	IdxShield         = IdxSafeCheck + 4      // [3] own pawn in front of king, 1..3 ranks ahead
	IdxKingOpenFile   = IdxShield + 3         // [1] open or semi-open file at/near king (per file)
	IdxBishopPair     = IdxKingOpenFile + 1   // [1]
	IdxRookOpen       = IdxBishopPair + 1     // [1]
	IdxRookSemiOpen   = IdxRookOpen + 1       // [1]
	IdxRookSeventh    = IdxRookSemiOpen + 1   // [1]
	IdxOutpost        = IdxRookSeventh + 1    // [2] knight, bishop on a pawn-protected outpost
	IdxThreatPawn     = IdxOutpost + 2        // [1] pawn attacks a piece
	IdxThreatMinor    = IdxThreatPawn + 1     // [6] minor attacks piece of type (index by victim)
	IdxThreatRook     = IdxThreatMinor + 6    // [6] rook attacks piece of type
	IdxHanging        = IdxThreatRook + 6     // [1] piece attacked and not defended
	IdxTempo          = IdxHanging + 1        // [1]
	NumParams         = IdxTempo + 1
)

// Params is a complete set of evaluation weights.
type Params [NumParams]S

// playing holds the weights the engine plays with (see Default). It is
// written once, at package initialisation, and never after: it is
// unexported so that nothing outside can, and Default hands out copies.
var playing = tunedOrHandSet()

// Default returns a copy of the weights the engine plays with: the tuned
// table in tuned.go (written by the Texel tuner, cmd/texel) when there is
// one, else the hand-set starting values of HandSet.
func Default() *Params {
	p := *playing
	return &p
}

func tunedOrHandSet() *Params {
	if tunedTable == nil {
		return HandSet()
	}
	p := new(Params)
	for i, v := range tunedTable {
		p[i] = Pack(int(v[0]), int(v[1]))
	}
	return p
}

// HandSet returns the hand-set weights: starting points shaped by chess
// knowledge (centralisation, advancement, king shelter), before tuning.
func HandSet() *Params { return defaultParams() }

func defaultParams() *Params {
	p := new(Params)
	mat := [6][2]int{{82, 105}, {330, 290}, {350, 305}, {470, 540}, {1000, 960}, {0, 0}}
	for i, v := range mat {
		p[IdxMaterial+i] = Pack(v[0], v[1])
	}
	for sq := 0; sq < 64; sq++ {
		f, r := sq&7, sq>>3
		fc := centre(f) // 0 at the edge files .. 3 in the centre
		rc := centre(r)
		c := fc + rc
		// Pawns: advance in the endgame, occupy the centre in the middlegame.
		if r >= 1 && r <= 6 {
			mg := 0
			if fc >= 2 {
				mg = 4 * (r - 1) * (fc - 1)
			}
			if f >= 5 && r == 1 {
				mg += 5 // keep the kingside shield
			}
			p[IdxPST+0*64+sq] = Pack(mg, 6*(r-1)+sq0(r == 6)*20)
		}
		p[IdxPST+1*64+sq] = Pack(8*c-24+sq0(r >= 3 && r <= 5)*6, 6*c-18)
		p[IdxPST+2*64+sq] = Pack(4*c-12+diag(f, r)*4, 3*c-9)
		rk := 0
		if r == 6 {
			rk = 12
		}
		p[IdxPST+3*64+sq] = Pack(rk+2*fc-3, sq0(r == 6)*6)
		p[IdxPST+4*64+sq] = Pack(2*c-6-sq0(r == 0)*2, 5*c-15)
		// King: shelter in a corner of the back rank in the middlegame,
		// centralise in the endgame.
		kmg := -15 * r
		if r == 0 {
			kmg = [8]int{10, 25, 8, -10, -10, -5, 25, 12}[f]
		}
		p[IdxPST+5*64+sq] = Pack(kmg, 10*c-30)
	}
	for i := 0; i < 9; i++ {
		p[IdxMobKnight+i] = Pack(6*(i-4), 7*(i-4))
	}
	for i := 0; i < 14; i++ {
		p[IdxMobBishop+i] = Pack(6*(i-6), 6*(i-6))
	}
	for i := 0; i < 15; i++ {
		p[IdxMobRook+i] = Pack(3*(i-6), 6*(i-6))
	}
	for i := 0; i < 28; i++ {
		p[IdxMobQueen+i] = Pack(2*(i-12), 4*(i-12))
	}
	p[IdxDoubled] = Pack(-8, -22)
	p[IdxIsolated] = Pack(-10, -12)
	p[IdxBackward] = Pack(-8, -8)
	for r := 1; r < 7; r++ {
		p[IdxPhalanx+r] = Pack(3*r, 3*r)
		p[IdxSupported+r] = Pack(4+2*r, 4+3*r)
	}
	passedMG := [8]int{0, 0, 5, 10, 20, 40, 70, 0}
	passedEG := [8]int{0, 8, 12, 25, 45, 80, 130, 0}
	for r := 0; r < 8; r++ {
		p[IdxPassed+r] = Pack(passedMG[r], passedEG[r])
		p[IdxPassedFree+r] = Pack(passedMG[r]/4, passedEG[r]/2)
		w := max(0, r-2)
		p[IdxPassedOwnKing+r] = Pack(0, -3*w)
		p[IdxPassedThemKing+r] = Pack(0, 6*w)
	}
	p[IdxKingAttack+0] = Pack(-8, 0)
	p[IdxKingAttack+1] = Pack(-6, 0)
	p[IdxKingAttack+2] = Pack(-10, -2)
	p[IdxKingAttack+3] = Pack(-14, -4)
	p[IdxSafeCheck+0] = Pack(-40, -8)
	p[IdxSafeCheck+1] = Pack(-25, -8)
	p[IdxSafeCheck+2] = Pack(-40, -10)
	p[IdxSafeCheck+3] = Pack(-30, -10)
	p[IdxShield+0] = Pack(18, -2)
	p[IdxShield+1] = Pack(10, -2)
	p[IdxShield+2] = Pack(4, 0)
	p[IdxKingOpenFile] = Pack(-20, 0)
	p[IdxBishopPair] = Pack(30, 55)
	p[IdxRookOpen] = Pack(30, 10)
	p[IdxRookSemiOpen] = Pack(14, 8)
	p[IdxRookSeventh] = Pack(10, 20)
	p[IdxOutpost+0] = Pack(25, 15)
	p[IdxOutpost+1] = Pack(15, 10)
	p[IdxThreatPawn] = Pack(60, 45)
	for v, s := range [6]int{0, 30, 30, 50, 55, 0} {
		p[IdxThreatMinor+v] = Pack(s, s)
	}
	for v, s := range [6]int{0, 20, 30, 30, 10, 0} {
		p[IdxThreatRook+v] = Pack(s, s)
	}
	p[IdxThreatMinor+5] = Pack(0, 0)
	p[IdxHanging] = Pack(25, 15)
	p[IdxTempo] = Pack(20, 10)
	return p
}

func centre(x int) int {
	if x > 3 {
		x = 7 - x
	}
	return x
}

func sq0(b bool) int {
	if b {
		return 1
	}
	return 0
}

func diag(f, r int) int {
	if f == r || f == 7-r {
		return 1
	}
	return 0
}
