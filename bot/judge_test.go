package bot

import (
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/lichess"
)

func TestJudgeDraw(t *testing.T) {
	cfg := defaultConfig(t, map[string]string{"PONDEROSA_DRAW_MOVES": "3", "PONDEROSA_DRAW_SCORE": "20", "PONDEROSA_DRAW_MIN_MOVE": "30"}).Game
	j := judge{cfg: cfg}
	if j.AcceptDraw(40, false) {
		t.Error("accepted with no scores")
	}
	j.Record(150)
	j.Record(10)
	j.Record(-5)
	if j.AcceptDraw(40, false) {
		t.Error("accepted with a 150 among the last 3")
	}
	j.Record(0)
	if !j.AcceptDraw(40, false) {
		t.Error("declined a level game")
	}
	if j.AcceptDraw(29, false) {
		t.Error("accepted before the minimum move")
	}
	if !j.AcceptDraw(5, true) {
		t.Error("declined a dead position")
	}
	j.Record(-21)
	if j.AcceptDraw(40, false) {
		t.Error("accepted at -21 with a 20 window")
	}
	off := judge{cfg: defaultConfig(t, map[string]string{"PONDEROSA_ACCEPT_DRAWS": "false"}).Game}
	off.Record(0)
	if off.AcceptDraw(100, true) {
		t.Error("accepted with draws disabled")
	}
}

func TestJudgeResign(t *testing.T) {
	j := judge{cfg: defaultConfig(t, nil).Game}
	for range 20 {
		j.Record(-mateCP)
	}
	if j.Resign() {
		t.Error("resigned with resignation off (the default)")
	}
	j = judge{cfg: defaultConfig(t, map[string]string{"PONDEROSA_RESIGN": "true", "PONDEROSA_RESIGN_MOVES": "2", "PONDEROSA_RESIGN_SCORE": "500"}).Game}
	j.Record(-900)
	if j.Resign() {
		t.Error("resigned after one bad score")
	}
	j.Record(-499)
	if j.Resign() {
		t.Error("resigned at -499 with a 500 threshold")
	}
	j.Record(-500)
	j.Record(-mateCP)
	if !j.Resign() {
		t.Error("did not resign a hopeless game")
	}
}

func TestChatCommandReplies(t *testing.T) {
	v := chatView{Me: "PonderBot", Opponent: "alice", Version: "ponderosa dev", Eval: "+0.35 at depth 12"}
	if _, ok := chatReply(roomPlayer, "alice", "hello there", v); ok {
		t.Error("answered a plain line")
	}
	if _, ok := chatReply(roomSpectator, "ponderbot", "!help", v); ok {
		t.Error("answered itself")
	}
	r, ok := chatReply(roomSpectator, "bob", "  !HELP please", v)
	if !ok || !strings.Contains(r, "!eval") {
		t.Errorf("help: %q %v", r, ok)
	}
	r, _ = chatReply(roomSpectator, "bob", "!eval", v)
	if !strings.Contains(r, "+0.35") {
		t.Errorf("eval: %q", r)
	}
	r, _ = chatReply(roomPlayer, "alice", "!eval", v)
	if strings.Contains(r, "0.35") {
		t.Errorf("told the opponent the eval: %q", r)
	}
	r, _ = chatReply(roomPlayer, "alice", "!name", v)
	if !strings.Contains(r, "ponderosa dev") {
		t.Errorf("name: %q", r)
	}
	// With the setting on, the opponent may ask too.
	v.EvalToOpponent = true
	if r, _ = chatReply(roomPlayer, "alice", "!eval", v); !strings.Contains(r, "+0.35") {
		t.Errorf("eval to the opponent with the setting on: %q", r)
	}
	v.EvalToOpponent = false
	v.Eval = ""
	if r, _ = chatReply(roomSpectator, "bob", "!eval", v); !strings.Contains(r, "No evaluation") {
		t.Errorf("eval before search: %q", r)
	}
}

func TestExpandAndFormat(t *testing.T) {
	if got := expand("Hi {opponent}, I'm {me}.", "Bot", "alice"); got != "Hi alice, I'm Bot." {
		t.Errorf("expand = %q", got)
	}
	long := expand(strings.Repeat("é", 100)+"{opponent}", "x", strings.Repeat("y", 100))
	if n := len([]rune(long)); n != maxChat {
		t.Errorf("clipped to %d runes", n)
	}
	for _, tc := range []struct {
		cp, mate int
		want     string
	}{{35, 0, "+0.35"}, {-120, 0, "-1.20"}, {0, 0, "+0.00"}, {5, 0, "+0.05"}, {0, 3, "mate in 3"}, {0, -2, "mated in 2"}} {
		if got := formatCP(tc.cp, tc.mate); got != tc.want {
			t.Errorf("formatCP(%d,%d) = %q, want %q", tc.cp, tc.mate, got, tc.want)
		}
	}
}

// TestJudgeTablebase: the tablebase's verdict stands for the score rules:
// a draw (or a cursed win, a blessed loss) is offered and accepted at any
// move number, a loss accepts a draw and resigns, a win does neither, and
// each needs its setting.
func TestJudgeTablebase(t *testing.T) {
	on := defaultConfig(t, map[string]string{"PONDEROSA_OFFER_DRAWS": "true", "PONDEROSA_RESIGN": "true"}).Game
	for _, tc := range []struct {
		v                     lichess.TablebaseCategory
		accept, offer, resign bool
	}{
		{lichess.TBWin, false, false, false},
		{lichess.TBCursedWin, true, true, false},
		{lichess.TBDraw, true, true, false},
		{lichess.TBBlessedLoss, true, true, false},
		{lichess.TBLoss, true, false, true},
		{"", false, false, false},
	} {
		j := judge{cfg: on}
		j.Verdict(tc.v)
		if got := j.AcceptDraw(1, false); got != tc.accept {
			t.Errorf("%q: accept %v", tc.v, got)
		}
		if got := j.OfferDraw(1, 1); got != tc.offer {
			t.Errorf("%q: offer %v", tc.v, got)
		}
		if got := j.Resign(); got != tc.resign {
			t.Errorf("%q: resign %v", tc.v, got)
		}
	}
	// A blessed loss is no reason to resign, whatever the scores said.
	j := judge{cfg: on}
	for range 10 {
		j.Record(-mateCP)
	}
	j.Verdict(lichess.TBBlessedLoss)
	if j.Resign() {
		t.Error("resigned a blessed loss")
	}
	// The settings off: nothing.
	off := judge{cfg: defaultConfig(t, map[string]string{"PONDEROSA_ACCEPT_DRAWS": "false"}).Game}
	off.Verdict(lichess.TBDraw)
	if off.AcceptDraw(100, false) || off.OfferDraw(100, 1) {
		t.Error("a draw with draws off")
	}
	off.Verdict(lichess.TBLoss)
	if off.Resign() {
		t.Error("resigned with resignation off")
	}
	// Offers stay spaced.
	j = judge{cfg: on}
	j.Verdict(lichess.TBDraw)
	if !j.OfferDraw(1, 1) || j.OfferDraw(2, 2) {
		t.Error("tablebase draw offers not spaced by PONDEROSA_DRAW_OFFER_EVERY")
	}
}
