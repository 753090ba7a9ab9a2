package movesource

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"slices"

	"github.com/ponderosa-chess/ponderosa/config"
)

// Book is the source name of book moves; an answer's Source is
// "book:NAME", NAME the book's name.
const Book = "book"

// Books are the Polyglot books of a bot, opened once and read by every
// game at once (reads go through ReadAt on a file opened read-only). The
// books are asked in order: the first that serves the game's variant and
// speed and has a move for the position plays it.
type Books struct {
	books []*openBook
	seed  uint64
}

type openBook struct {
	config.Book
	f  *os.File
	pg *polyglot
}

// OpenBooks opens and checks every book (a missing file, or one that is not
// a Polyglot book, is an error naming its path). seed drives the random
// choices (see Lookup). It returns nil, nil without books.
func OpenBooks(opts []config.Book, seed uint64) (*Books, error) {
	if len(opts) == 0 {
		return nil, nil
	}
	b := &Books{seed: seed}
	for _, o := range opts {
		ob, err := openOne(o)
		for _, prev := range b.books {
			if err == nil && prev.Name == ob.Name {
				ob.f.Close()
				err = fmt.Errorf("name %q is also the name of book %s", ob.Name, prev.Path)
			}
		}
		if err != nil {
			b.Close()
			return nil, &BookError{Index: len(b.books), Path: o.Path, Err: err}
		}
		b.books = append(b.books, ob)
	}
	return b, nil
}

// BookError is OpenBooks' error: which book (the index in its options)
// failed and why.
type BookError struct {
	Index int
	Path  string
	Err   error
}

func (e *BookError) Error() string { return fmt.Sprintf("book %s: %v", e.Path, e.Err) }
func (e *BookError) Unwrap() error { return e.Err }

func openOne(o config.Book) (*openBook, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Name == "" {
		o.Name = config.BookName(o.Path)
	}
	if len(o.Variants) == 0 {
		o.Variants = []string{"standard"}
	}
	if o.Select == "" {
		o.Select = config.SelectWeighted
	}
	f, err := os.Open(o.Path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	var pg *polyglot
	if err == nil {
		pg, err = readPolyglot(f, st.Size())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &openBook{Book: o, f: f, pg: pg}, nil
}

// Close closes the book files.
func (b *Books) Close() error {
	if b == nil {
		return nil
	}
	var errs []error
	for _, ob := range b.books {
		errs = append(errs, ob.f.Close())
	}
	return errors.Join(errs...)
}

// Seed is the seed of the random choices.
func (b *Books) Seed() uint64 { return b.seed }

// serves reports whether the book is for the query's game and ply.
func (ob *openBook) serves(q *Query) bool {
	v := q.Variant
	if v == "" {
		v = "standard"
	}
	return slices.Contains(ob.Variants, v) && (len(ob.Speeds) == 0 || slices.Contains(ob.Speeds, q.Speed)) &&
		(ob.MaxPly == 0 || q.Ply < ob.MaxPly)
}

// Lookup returns a move from the first book that serves the query's game
// and has a move of at least its minimum weight for the position. The
// random choice of a weighted or uniform book depends only on the seed,
// the game's id and the ply (and the book's moves), so the same seed and
// game replay the same choices. err reports a failed read (the next books
// are still asked); ok is false when no book has a move.
func (b *Books) Lookup(q *Query) (a Answer, ok bool, err error) {
	if b == nil {
		return Answer{}, false, nil
	}
	var moves [maxBookEntries]bookMove
	var errs []error
	for _, ob := range b.books {
		if !ob.serves(q) {
			continue
		}
		n, err := ob.pg.probe(&q.Pos, &moves)
		if err != nil {
			errs = append(errs, fmt.Errorf("book %s: %w", ob.Name, err))
			continue
		}
		// Keep the moves of at least the minimum weight.
		kept := moves[:0]
		var total uint64
		for _, m := range moves[:n] {
			if m.weight >= uint32(ob.MinWeight) {
				kept = append(kept, m)
				total += uint64(m.weight)
			}
		}
		if len(kept) == 0 {
			continue
		}
		i := choose(kept, total, ob.Select, draw(b.seed, q.GameID, q.Ply))
		m := kept[i]
		note := fmt.Sprintf("%s, weight %d of %d, %d moves", q.Pos.SAN(m.move), m.weight, total, len(kept))
		return Answer{Move: m.move, Source: Book + ":" + ob.Name, Note: note}, true, errors.Join(errs...)
	}
	return Answer{}, false, errors.Join(errs...)
}

// choose returns the index of the move to play among moves (total is the
// sum of their weights) for the random number r.
func choose(moves []bookMove, total uint64, sel string, r uint64) int {
	switch {
	case sel == config.SelectBest:
		best := 0
		for i, m := range moves {
			if m.weight > moves[best].weight {
				best = i
			}
		}
		return best
	case sel == config.SelectUniform || total == 0:
		hi, _ := bits.Mul64(r, uint64(len(moves)))
		return int(hi)
	}
	x, _ := bits.Mul64(r, total) // uniform in [0, total)
	for i, m := range moves {
		if x < uint64(m.weight) {
			return i
		}
		x -= uint64(m.weight)
	}
	return len(moves) - 1
}

// draw is the random number of a book choice: a hash of the seed, the game
// and the ply.
func draw(seed uint64, game string, ply int) uint64 {
	h := uint64(14695981039346656037) // FNV-1a of the game id
	for i := 0; i < len(game); i++ {
		h ^= uint64(game[i])
		h *= 1099511628211
	}
	return mix64(mix64(seed^h) + uint64(ply))
}

// mix64 is SplitMix64's finaliser.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
