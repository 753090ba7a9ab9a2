package engine

import (
	"math/bits"
	"runtime/debug"
	"sync/atomic"
	"unsafe"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// The transposition table is shared by every search thread of one Engine
// without locks. Each entry is two atomic words: data, and check = data ^
// (key-low-32 << 32 | move). A reader recomputes check^data and accepts the
// entry only if the key half matches; a torn entry (words from two different
// writes) fails that test with probability about 1 - 2^-32. Moves read from
// the table are further verified with Position.IsLegal before use.
//
// data layout (low to high): score int16 (16) | eval int16 (16) | depth
// uint8 (8) | bound (2) | pv flag (1) | generation (5) | valid (1). The
// valid bit makes every stored data word non-zero, so zero means empty.

const (
	ttBucketSize = 4
	ttGenBits    = 5
	ttGenMask    = 1<<ttGenBits - 1
	ttValid      = 1 << 48
)

type ttEntry struct {
	check atomic.Uint64
	data  atomic.Uint64
}

type ttBucket [ttBucketSize]ttEntry

// ttHit is a decoded table entry.
type ttHit struct {
	move  board.Move
	score Score
	eval  Score
	depth int
	bound Bound
	pv    bool
}

// cuts reports whether the entry decides, without a search, a node searched
// to depth with the window (alpha, beta); s is its score adjusted to the
// node's ply.
func (h ttHit) cuts(s Score, depth int, alpha, beta Score) bool {
	return h.depth >= depth && s != NoScore &&
		(h.bound == BoundExact || (h.bound == BoundLower && s >= beta) || (h.bound == BoundUpper && s <= alpha))
}

type transTable struct {
	buckets []ttBucket
	gen     uint8
}

func newTransTable(mb int) *transTable {
	t := &transTable{}
	t.allocate(mb)
	return t
}

// tableBytes is the memory a table of mb MiB takes, with the slack
// allocBuckets may spend on aligning it to a huge page.
func tableBytes(mb int) uint64 {
	b := uint64(mb) << 20
	if b >= hugePage {
		b += hugePage
	}
	return b
}

// resize reallocates the table for mb MiB unless that does not fit in the
// memory left (counting the old table's as free again): then it keeps the
// old table and returns an error wrapping ErrNoMemory. Go cannot recover
// from a failed allocation, so the check comes first. It must not run
// during a search.
func (t *transTable) resize(mb int) error {
	old := uint64(len(t.buckets)) * uint64(unsafe.Sizeof(ttBucket{}))
	if err := checkMemory(tableBytes(mb), old); err != nil {
		return err
	}
	t.buckets = nil
	if old >= 256<<20 {
		// Hand the old table back before the new one is taken, so that the
		// two never need to fit at once.
		debug.FreeOSMemory()
	}
	t.allocate(mb)
	return nil
}

// allocate replaces the table with an empty one of mb MiB (at least one
// bucket), unchecked.
func (t *transTable) allocate(mb int) {
	n := uint64(mb) << 20 / 64 // a bucket is 4*16 = 64 bytes
	if n == 0 {
		n = 1
	}
	t.buckets = allocBuckets(n)
	t.gen = 0
}

// hugePage is the size of a transparent huge page (x86-64 and most arm64).
const hugePage = 2 << 20

// allocBuckets returns n zeroed buckets. Tables of a huge page or more start
// on a huge-page boundary and are offered to the kernel for huge pages
// (fewer TLB misses on the random accesses of a search); where that is not
// supported the advice is ignored.
func allocBuckets(n uint64) []ttBucket {
	size := n * uint64(unsafe.Sizeof(ttBucket{}))
	if size < hugePage {
		return make([]ttBucket, n)
	}
	per := uint64(hugePage / unsafe.Sizeof(ttBucket{}))
	raw := make([]ttBucket, n+per)
	skip := (hugePage - uint64(uintptr(unsafe.Pointer(&raw[0])))%hugePage) % hugePage / uint64(unsafe.Sizeof(ttBucket{}))
	b := raw[skip : skip+n : skip+n]
	adviseHuge(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), size))
	return b
}

// clear empties the table. It must not run during a search.
func (t *transTable) clear() {
	clear(t.buckets)
	t.gen = 0
}

// newSearch ages the table: entries from older searches become preferred
// victims for replacement.
func (t *transTable) newSearch() { t.gen = (t.gen + 1) & ttGenMask }

func (t *transTable) bucket(key uint64) *ttBucket {
	hi, _ := bits.Mul64(key, uint64(len(t.buckets)))
	return &t.buckets[hi]
}

// prefetch starts loading key's bucket into the cache, so that a probe
// soon after does not wait for memory.
func (t *transTable) prefetch(key uint64) {
	prefetch(unsafe.Pointer(t.bucket(key)))
}

func packData(score, eval Score, depth int, bound Bound, pv bool, gen uint8) uint64 {
	d := uint64(uint16(int16(score))) | uint64(uint16(int16(eval)))<<16 |
		uint64(uint8(depth))<<32 | uint64(bound&3)<<40 | uint64(gen&ttGenMask)<<43 |
		ttValid
	if pv {
		d |= 1 << 42
	}
	return d
}

func dataGen(d uint64) uint8   { return uint8(d>>43) & ttGenMask }
func dataDepth(d uint64) int   { return int(uint8(d >> 32)) }
func dataBound(d uint64) Bound { return Bound(d>>40) & 3 }

// probe looks key up. ok is false on a miss.
func (t *transTable) probe(key uint64) (h ttHit, ok bool) {
	b := t.bucket(key)
	want := key << 32 >> 32 // low 32 bits
	for i := range b {
		e := &b[i]
		d := e.data.Load()
		c := e.check.Load() ^ d
		if c>>32 != want || d == 0 {
			continue
		}
		h.move = board.Move(uint32(c))
		h.score = Score(int16(uint16(d)))
		h.eval = Score(int16(uint16(d >> 16)))
		h.depth = dataDepth(d)
		h.bound = dataBound(d)
		h.pv = d&(1<<42) != 0
		return h, true
	}
	return h, false
}

// store writes an entry for key, choosing the slot with the same key, or else
// the least valuable one (shallow and old). A NoMove keeps the stored move of
// the same position.
func (t *transTable) store(key uint64, move board.Move, score, eval Score, depth int, bound Bound, pv bool) {
	b := t.bucket(key)
	want := key << 32 >> 32
	gen := t.gen
	if depth < 0 {
		depth = 0
	}
	if depth > 255 {
		depth = 255
	}
	victim := 0
	worst := 1 << 30
	for i := range b {
		e := &b[i]
		d := e.data.Load()
		c := e.check.Load() ^ d
		if d == 0 || c>>32 == want {
			if d != 0 {
				if move == board.NoMove {
					move = board.Move(uint32(c))
				}
				// Keep a deeper exact-ish entry from this search unless ours is exact.
				if bound != BoundExact && dataGen(d) == gen && dataDepth(d) > depth+3 {
					return
				}
			}
			victim = i
			break
		}
		age := int((gen - dataGen(d)) & ttGenMask)
		v := dataDepth(d) - 8*age
		if v < worst {
			worst, victim = v, i
		}
	}
	d := packData(score, eval, depth, bound, pv, gen)
	e := &b[victim]
	e.check.Store(d ^ (want<<32 | uint64(uint32(move))))
	e.data.Store(d)
}

// hashfull returns the per-mille occupancy by entries of the current search,
// sampled over the first 1000 entries.
func (t *transTable) hashfull() int {
	n, total := 0, 0
	for i := 0; i < len(t.buckets) && total < 1000; i++ {
		for j := range t.buckets[i] {
			d := t.buckets[i][j].data.Load()
			if d != 0 && dataGen(d) == t.gen {
				n++
			}
			total++
		}
	}
	if total == 0 {
		return 0
	}
	return n * 1000 / total
}

// scoreToTT converts a search score at ply to the ply-independent form stored
// in the table (mate distances counted from the stored node).
func scoreToTT(s Score, ply int) Score {
	switch {
	case s >= mateBound:
		return s + Score(ply)
	case s <= -mateBound:
		return s - Score(ply)
	}
	return s
}

// scoreFromTT is the inverse of scoreToTT.
func scoreFromTT(s Score, ply int) Score {
	switch {
	case s >= mateBound:
		return s - Score(ply)
	case s <= -mateBound:
		return s + Score(ply)
	}
	return s
}
