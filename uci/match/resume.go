package match

import (
	"fmt"
	"io"
	"strconv"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/pgn"
)

// Resume is where a match recorded in a PGN file stopped: the tally of its
// games and the first pair not yet begun. Run starts from it.
//
// A game whose partner never finished (the match was stopped between the
// two games of a pair) counts in W/L/D, as it did in the stopped run's
// report, but not in the pentanomial counts, and its opening is not
// played again.
type Resume struct {
	Stats Stats
	// NextPair is the index of the first pair still to play: its games
	// are rounds 2·NextPair+1 and 2·NextPair+2, from opening NextPair.
	NextPair int
	// Terminations counts the games by their Termination tag.
	Terminations map[Termination]int
}

// ReadResume reads the PGN file (named name in messages) that Run wrote
// for a match between names[0], the first engine, and names[1] at time
// control tc from openings (as they will be given to Run again: same file,
// same order). Every game must fit that match: the two names with the
// colours its round gives them (odd rounds: the first engine has White),
// the time control, the opening of its pair, a finished result, a round
// not seen before. Anything else is an error that names the game, since
// counting it would make the statistics lie. An empty file resumes
// nothing.
func ReadResume(r io.Reader, name string, names [2]string, tc TimeControl, openings []Opening) (Resume, error) {
	if len(openings) == 0 {
		openings = []Opening{{Start: board.StartPosition(), Source: "startpos"}}
	}
	res := Resume{Terminations: map[Termination]int{}}
	seen := map[int]bool{}
	first := map[int]float64{} // pair → first engine's score in its first game
	second := map[int]float64{}
	err := pgn.Scan(r, name, func(g pgn.Game) error {
		where := fmt.Sprintf("%s:%d", name, g.Line)
		round, err := strconv.Atoi(g.Tags["Round"])
		if err != nil || round < 1 {
			return fmt.Errorf("%s: Round tag %q is not a round number of a match", where, g.Tags["Round"])
		}
		where = fmt.Sprintf("%s (round %d)", where, round)
		if seen[round] {
			return fmt.Errorf("%s: round %d appears twice: the file holds more than one match", where, round)
		}
		seen[round] = true
		pair, firstWhite := (round-1)/2, round%2 == 1
		want := [2]string{names[0], names[1]}
		if !firstWhite {
			want[0], want[1] = want[1], want[0]
		}
		if g.Tags["White"] != want[0] || g.Tags["Black"] != want[1] {
			return fmt.Errorf("%s: %s vs %s, but this match's round %d is %s vs %s", where, g.Tags["White"], g.Tags["Black"], round, want[0], want[1])
		}
		if got := g.Tags["TimeControl"]; got != tc.String() {
			return fmt.Errorf("%s: played at time control %q, this match's is %q", where, got, tc.String())
		}
		result := g.Tags["Result"]
		if result == "" {
			result = g.Result
		}
		var score float64
		switch result {
		case "1-0":
			score = 1
		case "0-1":
			score = 0
		case "1/2-1/2":
			score = 0.5
		default:
			return fmt.Errorf("%s: result %q is not a finished game's", where, result)
		}
		if !firstWhite {
			score = 1 - score
		}
		played, err := replay(g, name)
		if err != nil {
			return err
		}
		op := openings[pair%len(openings)]
		if !sameOpening(played, op) {
			return fmt.Errorf("%s: does not begin with opening %d (%s) of this match's book: resume with the same --openings, --shuffle and --seed", where, pair+1, op.Source)
		}
		res.Stats.AddGame(score)
		if t := g.Tags["Termination"]; t != "" {
			res.Terminations[Termination(t)]++
		}
		if firstWhite {
			first[pair] = score
		} else {
			second[pair] = score
		}
		res.NextPair = max(res.NextPair, pair+1)
		return nil
	})
	if err != nil {
		return Resume{}, fmt.Errorf("resume: %w", err)
	}
	for pair, a := range first {
		if b, ok := second[pair]; ok {
			res.Stats.AddPair(a, b)
		}
	}
	return res, nil
}

// sameOpening reports whether game starts where op does and begins with
// op's book moves.
func sameOpening(game, op Opening) bool {
	if game.Start.FEN() != op.Start.FEN() || len(game.Moves) < len(op.Moves) {
		return false
	}
	for i, m := range op.Moves {
		if game.Moves[i] != m {
			return false
		}
	}
	return true
}
