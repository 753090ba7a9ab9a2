package board

// Zobrist keys, generated once from a fixed seed so keys are the same on
// every run (tests and opening books may rely on that).
var (
	zobristPiece    [16][64]uint64 // indexed by Piece
	zobristCastling [16]uint64     // indexed by the castling-rights mask
	zobristEP       [8]uint64      // indexed by file
	zobristSide     uint64         // xored in when Black is to move
)

func init() {
	rng := prng(0x9e3779b97f4a7c15)
	for p := 0; p < 16; p++ {
		for sq := 0; sq < 64; sq++ {
			zobristPiece[p][sq] = rng.next()
		}
	}
	var single [4]uint64
	for b := range single {
		single[b] = rng.next()
	}
	for i := range zobristCastling {
		for b := range single {
			if i&(1<<b) != 0 {
				zobristCastling[i] ^= single[b]
			}
		}
	}
	for i := range zobristEP {
		zobristEP[i] = rng.next()
	}
	zobristSide = rng.next()
}

// prng is a xorshift64* generator with a fixed seed, for Zobrist keys and the magic search.
type prng uint64

func (p *prng) next() uint64 {
	*p ^= *p >> 12
	*p ^= *p << 25
	*p ^= *p >> 27
	return uint64(*p) * 2685821657736338717
}
