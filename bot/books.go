package bot

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/ponderosa-chess/ponderosa/bot/movesource"
	"github.com/ponderosa-chess/ponderosa/config"
)

// openBooks opens the books of PONDEROSA_BOOKS and PONDEROSA_BOOK once, for
// every game; a missing file or one that is not a Polyglot book fails the
// start with the variable's name. It returns nil without books. The seed of
// the books' random choices is PONDEROSA_BOOK_SEED, or one drawn now and
// logged, so that an operator can replay a game's book choices.
func (s *Service) openBooks() (*movesource.Books, error) {
	opts, from := s.cfg.Engine.BookList()
	if len(opts) == 0 {
		return nil, nil
	}
	seed := s.cfg.Engine.BookSeed
	if !s.cfg.Engine.BookSeedFixed {
		seed = rand.Uint64()
	}
	books, err := movesource.OpenBooks(opts, seed)
	if err != nil {
		var be *movesource.BookError
		if errors.As(err, &be) {
			return nil, fmt.Errorf("%s: %w", from[be.Index], err)
		}
		return nil, fmt.Errorf("%s: %w", from[0], err)
	}
	for _, b := range opts {
		speeds := b.Speeds
		if len(speeds) == 0 {
			speeds = []string{"all"}
		}
		s.log.Info("book", "file", b.Path, "name", cmpOr(b.Name, config.BookName(b.Path)), "variants", b.Variants,
			"speeds", speeds, "select", cmpOr(b.Select, config.SelectWeighted), "min_weight", b.MinWeight, "max_ply", b.MaxPly)
	}
	s.log.Info("books open", "books", len(opts), "seed", seed, "replay", fmt.Sprintf("PONDEROSA_BOOK_SEED=%d", seed))
	return books, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
