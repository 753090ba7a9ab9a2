package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Book is one Polyglot opening book (PONDEROSA_BOOKS, PONDEROSA_BOOK): the
// file, the games it serves and how it chooses (bot/movesource reads it).
type Book struct {
	Path string
	// Name shows where a move came from ("book:NAME"); letters, digits and
	// "._-" only. Empty: BookName(Path).
	Name string
	// Variants and Speeds the book serves (Lichess keys, see BookVariants
	// and BookSpeeds); empty Variants means standard only, empty Speeds
	// every speed.
	Variants, Speeds []string
	// Select is SelectWeighted (also when empty), SelectBest or
	// SelectUniform.
	Select string
	// MinWeight: moves of a smaller weight are never played (0 to 65535).
	MinWeight int
	// MaxPly: the book answers only in the game's first MaxPly plies (0:
	// no limit; in PONDEROSA_BOOKS, 0 means PONDEROSA_BOOK_MAX_PLY, which
	// BookList fills in).
	MaxPly int
}

// How a book chooses among its moves for a position.
const (
	// SelectWeighted picks a move at random in proportion to the weights
	// (evenly when every weight is 0).
	SelectWeighted = "weighted"
	// SelectBest plays the highest weight (the first in the file on a tie).
	SelectBest = "best"
	// SelectUniform picks any of the moves, each as likely.
	SelectUniform = "uniform"
)

// BookVariants are the variants a book may serve.
func BookVariants() []string { return []string{"standard", "chess960", "fromPosition"} }

// BookSpeeds are the speeds a book may serve.
func BookSpeeds() []string {
	return []string{"ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"}
}

// Check validates a book's fields (not its file).
func (b *Book) Check() error {
	if b.Name != "" {
		if err := CheckBookName(b.Name); err != nil {
			return err
		}
	}
	for _, v := range b.Variants {
		if !slices.Contains(BookVariants(), v) {
			return fmt.Errorf("variant %q: want one of %s", v, strings.Join(BookVariants(), ", "))
		}
	}
	for _, s := range b.Speeds {
		if !slices.Contains(BookSpeeds(), s) {
			return fmt.Errorf("speed %q: want one of %s", s, strings.Join(BookSpeeds(), ", "))
		}
	}
	if err := checkSelect(b.Select); err != nil {
		return fmt.Errorf("selection %q: %w", b.Select, err)
	}
	if b.MinWeight < 0 || b.MinWeight > 65535 || b.MaxPly < 0 {
		return fmt.Errorf("min weight %d (0 to 65535) or max ply %d (0 or more) out of range", b.MinWeight, b.MaxPly)
	}
	return nil
}

func checkSelect(s string) error {
	switch s {
	case "", SelectWeighted, SelectBest, SelectUniform:
		return nil
	}
	return errors.New("must be weighted, best or uniform")
}

// BookName is the default name of the book at path: the file's name
// without its extension, with any character a name may not hold as "_".
func BookName(path string) string {
	base := filepath.Base(path)
	if ext := filepath.Ext(base); ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	name := []byte(base)
	for i, c := range name {
		if !nameChar(c) {
			name[i] = '_'
		}
	}
	if len(name) > 40 {
		name = name[:40]
	}
	return string(name)
}

// CheckBookName checks a book's name: 1 to 40 letters, digits, ".", "_"
// or "-" (it is written into move counts as "book:NAME=4").
func CheckBookName(name string) error {
	if name == "" || len(name) > 40 {
		return fmt.Errorf("name %q: want 1 to 40 characters", name)
	}
	for i := 0; i < len(name); i++ {
		if !nameChar(name[i]) {
			return fmt.Errorf("name %q: only letters, digits, '.', '_' and '-'", name)
		}
	}
	return nil
}

func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// BookList returns every book in the order they are asked: those of
// PONDEROSA_BOOKS, then PONDEROSA_BOOK's (standard games only), each with
// the variable it comes from, with BookMaxPly where no max_ply is set and
// standard where no variants are.
func (e *Engine) BookList() (books []Book, from []string) {
	for _, b := range e.Books {
		if b.MaxPly == 0 {
			b.MaxPly = e.BookMaxPly
		}
		if len(b.Variants) == 0 {
			b.Variants = []string{"standard"}
		}
		books = append(books, b)
		from = append(from, "PONDEROSA_BOOKS")
	}
	if e.Book != "" {
		books = append(books, Book{Path: e.Book, Variants: []string{"standard"}, MaxPly: e.BookMaxPly})
		from = append(from, "PONDEROSA_BOOK")
	}
	return books, from
}

// checkBookNames refuses two books of one name.
func (c *Config) checkBookNames() []error {
	var errs []error
	books, from := c.Engine.BookList()
	names := map[string]int{}
	for i, b := range books {
		name := b.Name
		if name == "" {
			name = BookName(b.Path)
		}
		if j, dup := names[name]; dup {
			errs = append(errs, fmt.Errorf("%s: books %s and %s (%s) are both named %q: give one a name=", from[i], plain(books[j].Path), plain(b.Path), from[j], name))
		}
		names[name] = i
	}
	return errs
}

// parseBooks reads PONDEROSA_BOOKS: books separated by ";", each a file
// name followed by ":key=value" fields (a path holding ":" or ";" cannot be
// written). max_ply left out is 0 (PONDEROSA_BOOK_MAX_PLY applies).
func parseBooks(v string) ([]Book, error) {
	if t := strings.TrimSpace(v); t == "" || strings.EqualFold(t, "none") {
		return nil, nil
	}
	var books []Book
	for i, entry := range strings.Split(v, ";") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		b, err := parseBook(entry)
		if err != nil {
			return nil, fmt.Errorf("book %d: %w", i+1, err)
		}
		books = append(books, b)
	}
	if len(books) == 0 {
		return nil, errors.New(`no book: want FILE[:key=value...], ";"-separated, or none`)
	}
	return books, nil
}

func parseBook(entry string) (Book, error) {
	fields := strings.Split(entry, ":")
	b := Book{Path: strings.TrimSpace(fields[0])}
	if b.Path == "" || strings.ContainsRune(b.Path, 0) || strings.Contains(b.Path, "=") {
		return b, fmt.Errorf("%q: want the book's file first, then :key=value fields", clipWord(entry))
	}
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		k, val, ok := strings.Cut(f, "=")
		k, val = strings.TrimSpace(k), strings.TrimSpace(val)
		if !ok {
			return b, fmt.Errorf("%s: %q is not key=value (a path cannot hold \":\")", plain(b.Path), clipWord(f))
		}
		if seen[k] {
			return b, fmt.Errorf("%s: %s given twice", plain(b.Path), plain(k))
		}
		seen[k] = true
		var err error
		switch k {
		case "speeds":
			b.Speeds, err = parseEnumList(val, BookSpeeds())
		case "variants":
			b.Variants, err = parseEnumList(val, BookVariants())
		case "select":
			b.Select, err = val, checkSelect(val)
		case "min_weight":
			b.MinWeight, err = parseInt(val, 0, 65535)
		case "max_ply":
			b.MaxPly, err = parseInt(val, 1, 200)
		case "name":
			b.Name, err = val, CheckBookName(val)
		default:
			err = errors.New("unknown key: want speeds, variants, select, min_weight, max_ply or name")
		}
		if err != nil {
			return b, fmt.Errorf("%s: %s: %w, got %q", plain(b.Path), plain(clipWord(k)), err, clipWord(val))
		}
	}
	return b, nil
}

// plain is s for an error message: as it is when every character is
// printable, else quoted (a line break must not split the message).
func plain(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
