package nnuedata

// The pack format keeps self-play data as games instead of positions: the
// position after the random opening, every move played, and for each
// position that became a record its score. Replaying the moves gives back
// the records exactly, at about a tenth of their size (a move is two bytes,
// a score one or two, and the gzip around it squeezes both) — small enough
// to keep a data run in the repository, which is all that outlives a
// session's machine. It works the way Stockfish's binpack does (a chain of
// positions linked by moves), in a format of our own.
//
// A pack file is a gzip stream (several members, one per writing run, may
// follow one another: files join with cat) of games, each:
//
//	byte     'G'
//	uvarint  n, then n bytes: the start position's FEN (n ≤ 128)
//	byte     result: 0 Black won, 1 draw, 2 White won
//	uvarint  plies (≤ MaxPackPlies)
//	per ply: byte, the move: its index among the position's legal moves
//	         ordered by code, origin | destination<<6 | promotion piece
//	         type<<12 (castling as king takes own rook) — an order of the
//	         rules, not of our move generator's; then, when the side to move
//	         is not in check and the move neither captures nor promotes, a
//	         uvarint: 0 if the position is not a record, else 1 +
//	         zigzag(score − the game's previous record's score, 0 for the
//	         first), White's point of view.
//
// The generator starts every game from the standard position and keeps its
// random opening moves as plies that are not records, which gzip stores in
// fewer bytes than the FEN they lead to.
//
// Which positions may be records is the generator's own rule (recordable),
// so the two cannot disagree without a test failing.

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/filelock"
)

// MaxPackPlies bounds a packed game's length (a reader refuses longer ones).
const MaxPackPlies = 2048

const (
	packMarker = 'G'
	maxFENLen  = 128
)

// PackedPly is one move of a packed game and whether the position before it
// is a training record.
type PackedPly struct {
	Move   board.Move
	Record bool  // the position before Move is a record
	Score  int16 // its score, White's point of view (when Record)
}

// PackedGame is one self-play game in the pack format.
type PackedGame struct {
	Start  string // FEN of the position the plies start from
	Result uint8  // BlackWin, DrawGame or WhiteWin
	Plies  []PackedPly
}

// Errors of the pack reader.
var (
	ErrBadPack       = errors.New("nnuedata: invalid pack data")
	ErrPackTruncated = errors.New("nnuedata: pack file cut off (its writer was killed)")
)

// recordable reports whether the position before m may become a training
// record: quiet (not in check, m neither captures nor promotes). A mate
// score keeps a recordable position out as well (the generator's choice).
func recordable(pos *board.Position, m board.Move) bool {
	return !pos.InCheck() && !pos.IsCapture(m) && !m.IsPromotion()
}

// Records replays the game and returns its records, each with the game's
// result.
func (g *PackedGame) Records() ([]Record, error) {
	var out []Record
	err := g.replay(func(pos *board.Position, p PackedPly) {
		if p.Record {
			out = append(out, FromPosition(pos, p.Score, g.Result))
		}
	})
	return out, err
}

// replay plays the game from its start, calling f with the position before
// each ply. It checks every move is legal and marks only recordable
// positions.
func (g *PackedGame) replay(f func(pos *board.Position, p PackedPly)) error {
	if g.Result > WhiteWin {
		return fmt.Errorf("%w: result %d", ErrBadPack, g.Result)
	}
	pos, err := board.ParseFEN(g.Start)
	if err != nil {
		return fmt.Errorf("%w: start: %v", ErrBadPack, err)
	}
	for i, p := range g.Plies {
		if !pos.IsLegal(p.Move) {
			return fmt.Errorf("%w: ply %d: illegal move %v in %s", ErrBadPack, i, p.Move, pos.FEN())
		}
		if p.Record && !recordable(&pos, p.Move) {
			return fmt.Errorf("%w: ply %d: a record before a capture, promotion or check evasion", ErrBadPack, i)
		}
		f(&pos, p)
		var next board.Position
		pos.MakeMove(p.Move, &next)
		pos = next
	}
	return nil
}

// appendPacked encodes g (checked by replaying it) onto b.
func appendPacked(b []byte, g *PackedGame) ([]byte, error) {
	if len(g.Start) > maxFENLen {
		return b, fmt.Errorf("%w: start FEN longer than %d bytes", ErrBadPack, maxFENLen)
	}
	if len(g.Plies) > MaxPackPlies {
		return b, fmt.Errorf("%w: %d plies (at most %d)", ErrBadPack, len(g.Plies), MaxPackPlies)
	}
	b = append(b, packMarker)
	b = binary.AppendUvarint(b, uint64(len(g.Start)))
	b = append(b, g.Start...)
	b = append(b, g.Result)
	b = binary.AppendUvarint(b, uint64(len(g.Plies)))
	prev := 0
	var ml board.MoveList
	err := g.replay(func(pos *board.Position, p PackedPly) {
		m := p.Move
		ml.N = 0
		pos.GenerateLegal(&ml)
		code, idx := moveCode(m), 0
		for _, o := range ml.Slice() {
			if moveCode(o) < code {
				idx++
			}
		}
		b = append(b, byte(idx))
		if !recordable(pos, m) {
			return
		}
		if !p.Record {
			b = append(b, 0)
			return
		}
		d := int64(p.Score) - int64(prev)
		b = binary.AppendUvarint(b, 1+uint64(d<<1^d>>63))
		prev = int(p.Score)
	})
	return b, err
}

// PackReader reads packed games one after the other.
type PackReader struct {
	br *bufio.Reader
	zr *gzip.Reader
	n  int64
	ml board.MoveList
}

// NewPackReader reads a pack stream (gzip) from r.
func NewPackReader(r io.Reader) (*PackReader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: empty or cut off before its header", ErrBadPack)
		}
		return nil, fmt.Errorf("%w: %v", ErrBadPack, err)
	}
	return &PackReader{zr: zr, br: bufio.NewReaderSize(zr, 64<<10)}, nil
}

// Games returns the number of games read so far.
func (r *PackReader) Games() int64 { return r.n }

// Read decodes the next game into g. It returns io.EOF at a clean end,
// ErrPackTruncated (wrapped) when the stream stops inside a game or a gzip
// member, and ErrBadPack (wrapped, naming the game) for invalid data.
func (r *PackReader) Read(g *PackedGame) error {
	err := r.read(g)
	switch {
	case err == nil:
		r.n++
		return nil
	case err == io.EOF:
		return io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("nnuedata: pack game %d: %w", r.n, ErrPackTruncated)
	case errors.Is(err, ErrBadPack):
		return fmt.Errorf("nnuedata: pack game %d: %w", r.n, err)
	}
	return fmt.Errorf("nnuedata: pack game %d: %w: %v", r.n, ErrBadPack, err)
}

func (r *PackReader) read(g *PackedGame) error {
	c, err := r.br.ReadByte()
	if err != nil {
		return err // io.EOF here is a clean end
	}
	if c != packMarker {
		return fmt.Errorf("%w: game marker %#x", ErrBadPack, c)
	}
	n, err := r.uvarint()
	if err != nil {
		return err
	}
	if n > maxFENLen {
		return fmt.Errorf("%w: FEN of %d bytes", ErrBadPack, n)
	}
	fen := make([]byte, n)
	if _, err := io.ReadFull(r.br, fen); err != nil {
		return eofInside(err)
	}
	res, err := r.br.ReadByte()
	if err != nil {
		return eofInside(err)
	}
	plies, err := r.uvarint()
	if err != nil {
		return err
	}
	if plies > MaxPackPlies {
		return fmt.Errorf("%w: %d plies", ErrBadPack, plies)
	}
	*g = PackedGame{Start: string(fen), Result: res, Plies: g.Plies[:0]}
	if res > WhiteWin {
		return fmt.Errorf("%w: result %d", ErrBadPack, res)
	}
	pos, err := board.ParseFEN(g.Start)
	if err != nil {
		return fmt.Errorf("%w: start: %v", ErrBadPack, err)
	}
	prev := int64(0)
	for i := range int(plies) {
		idx, err := r.br.ReadByte()
		if err != nil {
			return eofInside(err)
		}
		m, ok := r.findMove(&pos, int(idx))
		if !ok {
			return fmt.Errorf("%w: ply %d: no legal move %d in %s", ErrBadPack, i, idx, pos.FEN())
		}
		p := PackedPly{Move: m}
		if recordable(&pos, m) {
			v, err := r.uvarint()
			if err != nil {
				return err
			}
			if v > 0 {
				z := v - 1
				s := prev + (int64(z>>1) ^ -int64(z&1))
				if s < -32768 || s > 32767 {
					return fmt.Errorf("%w: ply %d: score %d", ErrBadPack, i, s)
				}
				p.Record, p.Score, prev = true, int16(s), s
			}
		}
		g.Plies = append(g.Plies, p)
		var next board.Position
		pos.MakeMove(m, &next)
		pos = next
	}
	return nil
}

// moveCode orders the legal moves of a position for the pack format.
func moveCode(m board.Move) uint16 {
	return uint16(m.From()) | uint16(m.To())<<6 | uint16(m.Promotion())<<12
}

// findMove returns the legal move of pos at index idx in code order.
func (r *PackReader) findMove(pos *board.Position, idx int) (board.Move, bool) {
	r.ml.N = 0
	pos.GenerateLegal(&r.ml)
	moves := r.ml.Slice()
	if idx >= len(moves) {
		return board.NoMove, false
	}
	slices.SortFunc(moves, func(a, b board.Move) int { return int(moveCode(a)) - int(moveCode(b)) })
	return moves[idx], true
}

func (r *PackReader) uvarint() (uint64, error) {
	v, err := binary.ReadUvarint(r.br)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, io.ErrUnexpectedEOF
		}
		return 0, fmt.Errorf("%w: %v", ErrBadPack, err)
	}
	return v, nil
}

// eofInside turns an end of data inside a game into io.ErrUnexpectedEOF.
func eofInside(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// PackWriter appends games to a pack file, one gzip member per writer.
type PackWriter struct {
	f     *os.File
	zw    *gzip.Writer
	buf   []byte
	games int64
}

// OpenPackAppend opens (or creates) the pack file at path for appending.
// A file whose last run was killed ends in a cut-off gzip member, after
// which nothing appended could be read; such a file is first rewritten
// with its complete games (kept says how many; the cut-off game is lost).
// The file stays locked until the PackWriter is closed, as OpenAppend's.
func OpenPackAppend(path string) (w *PackWriter, kept int64, err error) {
	const flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	f, err := filelock.OpenLocked(path, flag, 0o644)
	if err != nil {
		return nil, 0, err
	}
	kept, rewritten, err := repairPack(path)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if rewritten {
		// The repair renamed a new file over the locked one: lock that.
		f.Close()
		if f, err = filelock.OpenLocked(path, flag, 0o644); err != nil {
			return nil, 0, err
		}
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return &PackWriter{f: f, zw: zw}, kept, nil
}

// repairPack checks the pack file at path and, when it ends cut off,
// rewrites it with its complete games: it reports whether it did and how
// many games the new file keeps. Invalid data is an error: the file is
// left as it is.
func repairPack(path string) (kept int64, rewritten bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() == 0 {
		return 0, false, err
	}
	var games []PackedGame
	var perr error
	if r, err := NewPackReader(f); err != nil {
		perr = err
	} else {
		for {
			var g PackedGame
			if perr = r.Read(&g); perr != nil {
				break
			}
			games = append(games, g)
		}
	}
	if perr == io.EOF {
		return 0, false, nil
	}
	if !errors.Is(perr, ErrPackTruncated) {
		return 0, false, fmt.Errorf("%s: %w", path, perr)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".repair-*")
	if err != nil {
		return 0, false, err
	}
	defer os.Remove(tmp.Name())
	w := &PackWriter{f: tmp}
	if w.zw, err = gzip.NewWriterLevel(tmp, gzip.BestCompression); err != nil {
		tmp.Close()
		return 0, false, err
	}
	for i := range games {
		if err := w.Write(&games[i]); err != nil {
			w.Close()
			return 0, false, err
		}
	}
	if err := w.Close(); err != nil {
		return 0, false, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return 0, false, err
	}
	return int64(len(games)), true, nil
}

// Write appends one game and flushes it, so a run killed after it keeps it
// (OpenPackAppend recovers such a file).
func (w *PackWriter) Write(g *PackedGame) error {
	var err error
	if w.buf, err = appendPacked(w.buf[:0], g); err != nil {
		return err
	}
	if _, err := w.zw.Write(w.buf); err != nil {
		return err
	}
	if err := w.zw.Flush(); err != nil {
		return err
	}
	w.games++
	return nil
}

// Games returns the number of games this writer appended.
func (w *PackWriter) Games() int64 { return w.games }

// Close ends the gzip member and closes the file.
func (w *PackWriter) Close() error {
	err := w.zw.Close()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}
