package match

import (
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/uci/client"
)

// TestNoteScore: the score kept for adjudication is the last exact score
// of the main line; mates count from ±100000 by plies.
func TestNoteScore(t *testing.T) {
	for _, c := range []struct {
		lines              []string
		has                bool
		score, mate, depth int
	}{
		{[]string{"depth 3 score cp 25 pv e2e4"}, true, 25, 0, 3},
		{[]string{"depth 9 score mate 2 pv a1a8"}, true, 100000 - 3, 2, 9},
		{[]string{"depth 9 score mate -3"}, true, -100000 + 6, -3, 9},
		{[]string{"depth 4 score cp 10", "depth 5 score cp 90 lowerbound"}, true, 10, 0, 4},
		{[]string{"depth 4 score cp 10", "depth 5 multipv 2 score cp -50"}, true, 10, 0, 4},
		{[]string{"depth 4 score cp 10", "score cp 12"}, true, 12, 0, 4},
		{[]string{"string hello", "depth x score cp 5"}, false, 0, 0, 0},
	} {
		var r moveReply
		for _, l := range c.lines {
			if in, err := client.ParseUCIInfo(strings.Fields(l)); err == nil {
				r.noteScore(in)
			}
		}
		if r.hasScore != c.has || r.score != c.score || r.mate != c.mate || r.depth != c.depth {
			t.Errorf("%q: has %v score %d mate %d depth %d; want %v %d %d %d", c.lines, r.hasScore, r.score, r.mate, r.depth, c.has, c.score, c.mate, c.depth)
		}
	}
}
