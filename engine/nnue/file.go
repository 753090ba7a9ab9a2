package nnue

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
)

// The network file, little endian:
//
//	magic    8 bytes  "PNDRNNUE"
//	version  uint32   1 or 2 (FormatVersion)
//	hidden   uint32   N
//	qa, qb   uint16   must be QA, QB
//	scale    uint16   centipawns per logit unit
//	buckets  uint16   version 1: 0 (reserved), one output layer; version 2: B, 2..MaxBuckets
//	ftW      int16 × 768·N   (feature-major)
//	ftB      int16 × N
//	outW     int16 × B·2N    (bucket-major; in each, the side to move's half first)
//	outB     int32 × B
//	crc      uint32   CRC-32 (Castagnoli) of everything before it
//
// A network with one output layer is written as version 1, so the files
// (and ids) of the networks from before output buckets stay as they were.
const (
	magic         = "PNDRNNUE"
	FormatVersion = 2
	headerSize    = 8 + 4 + 4 + 2 + 2 + 2 + 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrFormat marks a file that is not a valid network of this format.
var ErrFormat = errors.New("nnue: invalid network file")

// fileSize returns the size of a file with hidden size h and b output buckets.
func fileSize(h, b int) int { return headerSize + 2*(Inputs*h+h+2*h*b) + 4*b + 4 }

// Parse reads a network file. It refuses, with an error wrapping
// ErrFormat, a file that is truncated, has the wrong magic or version, an
// unsupported size or quantisation, a bad checksum, or weights outside
// the range the integer arithmetic assumes.
func Parse(b []byte) (*Network, error) {
	if len(b) < headerSize {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrFormat, len(b), headerSize)
	}
	if string(b[:8]) != magic {
		return nil, fmt.Errorf("%w: bad magic %q (want %q)", ErrFormat, b[:8], magic)
	}
	le := binary.LittleEndian
	version := le.Uint32(b[8:])
	if version != 1 && version != 2 {
		return nil, fmt.Errorf("%w: format version %d, this build reads versions 1 and %d", ErrFormat, version, FormatVersion)
	}
	h64 := le.Uint32(b[12:])
	if h64 < MinHidden || h64 > MaxHidden || h64%HiddenStep != 0 {
		return nil, fmt.Errorf("%w: hidden size %d (want %d..%d, a multiple of %d)", ErrFormat, h64, MinHidden, MaxHidden, HiddenStep)
	}
	h := int(h64)
	if qa, qb := le.Uint16(b[16:]), le.Uint16(b[18:]); qa != QA || qb != QB {
		return nil, fmt.Errorf("%w: quantisation %d/%d (want %d/%d)", ErrFormat, qa, qb, QA, QB)
	}
	scale := le.Uint16(b[20:])
	if scale == 0 || scale > 2000 {
		return nil, fmt.Errorf("%w: scale %d (want 1..2000)", ErrFormat, scale)
	}
	buckets := 1
	if r := int(le.Uint16(b[22:])); version == 1 && r != 0 {
		return nil, fmt.Errorf("%w: reserved header field %d in a version 1 file", ErrFormat, r)
	} else if version == 2 {
		// One bucket is written as version 1 (encode): refusing it here
		// keeps one file, and so one id, per network.
		if r < 2 || r > MaxBuckets {
			return nil, fmt.Errorf("%w: %d output buckets in a version 2 file (want 2..%d)", ErrFormat, r, MaxBuckets)
		}
		buckets = r
	}
	if want := fileSize(h, buckets); len(b) != want {
		return nil, fmt.Errorf("%w: %d bytes, a network with %d hidden units and %d output buckets has %d (truncated or trailing data)", ErrFormat, len(b), h, buckets, want)
	}
	body := len(b) - 4
	if sum, want := crc32.Checksum(b[:body], castagnoli), le.Uint32(b[body:]); sum != want {
		return nil, fmt.Errorf("%w: checksum %08x, file says %08x (corrupted)", ErrFormat, sum, want)
	}
	n := &Network{hidden: h, scale: int32(scale), buckets: buckets}
	for pieces := range n.bucketOf {
		n.bucketOf[pieces] = uint8(OutputBucket(pieces, buckets))
	}
	off := headerSize
	read16 := func(count int) []int16 {
		out := make([]int16, count)
		for i := range out {
			out[i] = int16(le.Uint16(b[off:]))
			off += 2
		}
		return out
	}
	n.ftW = read16(Inputs * h)
	n.ftB = read16(h)
	n.outW = read16(2 * h * buckets)
	n.outB = make([]int32, buckets)
	for i := range n.outB {
		n.outB[i] = int32(le.Uint32(b[off:]))
		off += 4
	}
	// The integer arithmetic assumes bounded weights: an accumulator of
	// at most 32 features plus the bias must fit int16, a squared
	// activation times an output weight must fit comfortably.
	lim := int16(math.Round(MaxWeight * QA))
	for _, s := range [][]int16{n.ftW, n.ftB} {
		for _, v := range s {
			if v > lim || v < -lim {
				return nil, fmt.Errorf("%w: feature weight %d outside ±%d", ErrFormat, v, lim)
			}
		}
	}
	olim := int16(math.Round(MaxWeight * QB))
	for _, v := range n.outW {
		if v > olim || v < -olim {
			return nil, fmt.Errorf("%w: output weight %d outside ±%d", ErrFormat, v, olim)
		}
	}
	sum := sha256.Sum256(b)
	n.id = "nn-" + hex.EncodeToString(sum[:6])
	n.simd = hasAVX2
	return n, nil
}

// Load reads and parses the network file at path.
func Load(path string) (*Network, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	n, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// MarshalBinary returns the network's file.
func (n *Network) MarshalBinary() ([]byte, error) {
	return encode(n.hidden, int(n.scale), n.ftW, n.ftB, n.outW, n.outB), nil
}

// encode writes a network file; the number of output buckets is len(outB).
func encode(h, scale int, ftW, ftB, outW []int16, outB []int32) []byte {
	buckets := len(outB)
	b := make([]byte, fileSize(h, buckets))
	le := binary.LittleEndian
	copy(b, magic)
	le.PutUint32(b[8:], 1)
	if buckets > 1 {
		le.PutUint32(b[8:], FormatVersion)
		le.PutUint16(b[22:], uint16(buckets))
	}
	le.PutUint32(b[12:], uint32(h))
	le.PutUint16(b[16:], QA)
	le.PutUint16(b[18:], QB)
	le.PutUint16(b[20:], uint16(scale))
	off := headerSize
	for _, s := range [][]int16{ftW, ftB, outW} {
		for _, v := range s {
			le.PutUint16(b[off:], uint16(v))
			off += 2
		}
	}
	for _, v := range outB {
		le.PutUint32(b[off:], uint32(v))
		off += 4
	}
	le.PutUint32(b[off:], crc32.Checksum(b[:off], castagnoli))
	return b
}

func crc32Of(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
