package bot

import (
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/engine/board"
)

func defaultConfig(t testing.TB, extra map[string]string) config.Config {
	t.Helper()
	c, err := config.Load(func(k string) string { return extra[k] })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func blitz() Offer {
	return Offer{Challenger: "alice", Variant: "standard", Speed: "blitz", Clock: "clock",
		Base: 3 * time.Minute, Increment: 2 * time.Second, Rated: true}
}

// TestDefaultPolicy covers what the issue asks of a deployment with only
// the token and URL set.
func TestDefaultPolicy(t *testing.T) {
	p := defaultConfig(t, nil).Policy
	mod := func(f func(*Offer)) Offer { o := blitz(); f(&o); return o }
	cases := []struct {
		name string
		o    Offer
		want Decision
	}{
		{"blitz rated human", blitz(), Decision{Verdict: Accept}},
		{"casual bot", mod(func(o *Offer) { o.Rated = false; o.ChallengerIsBot = true }), Decision{Verdict: Accept}},
		{"chess960", mod(func(o *Offer) { o.Variant = "chess960" }), Decision{Verdict: Accept}},
		{"fromPosition", mod(func(o *Offer) { o.Variant = "fromPosition"; o.Rated = false }), Decision{Verdict: Accept}},
		{"bullet 1+0", mod(func(o *Offer) { o.Speed = "bullet"; o.Base = time.Minute; o.Increment = 0 }), Decision{Verdict: Accept}},
		{"classical 90+30", mod(func(o *Offer) { o.Speed = "classical"; o.Base = 90 * time.Minute; o.Increment = 30 * time.Second }), Decision{Verdict: Accept}},
		{"atomic", mod(func(o *Offer) { o.Variant = "atomic" }), Decision{Decline, ReasonVariant}},
		// Issue 13: a start position the engine cannot set up is declined
		// with "standard"; odd set-ups that Lichess accepts are played.
		{"fromPosition too crowded", mod(func(o *Offer) {
			o.Variant, o.Rated, o.FEN = "fromPosition", false, "QQQQQQQQ/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/QQQQQQQQ/K6k b - - 0 1"
		}), Decision{Decline, ReasonStandard}},
		{"fromPosition garbage", mod(func(o *Offer) { o.Variant, o.Rated, o.FEN = "fromPosition", false, "not a fen" }), Decision{Decline, ReasonStandard}},
		{"fromPosition promoted pieces", mod(func(o *Offer) {
			o.Variant, o.Rated, o.FEN = "fromPosition", false, "4k3/8/8/8/8/QQ1Q4/PPPPPPPP/4K3 w KQkq - 0 1"
		}), Decision{Verdict: Accept}},
		{"crazyhouse", mod(func(o *Offer) { o.Variant = "crazyhouse" }), Decision{Decline, ReasonVariant}},
		{"ultraBullet", mod(func(o *Offer) { o.Speed = "ultraBullet"; o.Base = 15 * time.Second; o.Increment = 0 }), Decision{Decline, ReasonTooFast}},
		{"correspondence", mod(func(o *Offer) { o.Speed = "correspondence"; o.Clock = "correspondence"; o.Base = 0 }), Decision{Decline, ReasonTimeControl}},
		{"unlimited", mod(func(o *Offer) { o.Speed = "correspondence"; o.Clock = "unlimited"; o.Base = 0 }), Decision{Decline, ReasonTimeControl}},
		{"unknown clock", mod(func(o *Offer) { o.Clock = "sundial" }), Decision{Decline, ReasonTimeControl}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide(tc.o, &p, 0, 0); got != tc.want {
				t.Errorf("got %v %q, want %v %q", got.Verdict, got.Reason, tc.want.Verdict, tc.want.Reason)
			}
		})
	}
}

func TestPolicyReasons(t *testing.T) {
	mod := func(f func(*Offer)) Offer { o := blitz(); f(&o); return o }
	cases := []struct {
		name string
		env  map[string]string
		o    Offer
		want string
	}{
		{"blocked", map[string]string{"PONDEROSA_BLOCK": "Alice"}, blitz(), ReasonGeneric},
		{"not allowed", map[string]string{"PONDEROSA_ALLOW": "bob"}, blitz(), ReasonGeneric},
		{"no bots", map[string]string{"PONDEROSA_ACCEPT_BOTS": "false"}, mod(func(o *Offer) { o.ChallengerIsBot = true }), ReasonNoBot},
		{"only bots", map[string]string{"PONDEROSA_ACCEPT_HUMANS": "false"}, blitz(), ReasonOnlyBot},
		{"standard only", map[string]string{"PONDEROSA_VARIANTS": "standard"}, mod(func(o *Offer) { o.Variant = "chess960" }), ReasonStandard},
		{"960 only", map[string]string{"PONDEROSA_VARIANTS": "chess960"}, blitz(), ReasonVariant},
		{"casual only", map[string]string{"PONDEROSA_ACCEPT_RATED": "false"}, blitz(), ReasonCasual},
		{"rated only", map[string]string{"PONDEROSA_ACCEPT_CASUAL": "false"}, mod(func(o *Offer) { o.Rated = false }), ReasonRated},
		{"speed too fast", map[string]string{"PONDEROSA_SPEEDS": "rapid,classical"}, blitz(), ReasonTooFast},
		{"speed too slow", map[string]string{"PONDEROSA_SPEEDS": "bullet"}, blitz(), ReasonTooSlow},
		{"speed gap", map[string]string{"PONDEROSA_SPEEDS": "bullet,classical"}, blitz(), ReasonTimeControl},
		{"base too short", map[string]string{"PONDEROSA_MIN_BASE": "5m"}, blitz(), ReasonTooFast},
		{"base too long", map[string]string{"PONDEROSA_MAX_BASE": "2m"}, blitz(), ReasonTooSlow},
		{"increment too small", map[string]string{"PONDEROSA_MIN_INCREMENT": "3s"}, blitz(), ReasonTooFast},
		{"increment too large", map[string]string{"PONDEROSA_MAX_INCREMENT": "1s"}, blitz(), ReasonTooSlow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := defaultConfig(t, tc.env).Policy
			got := Decide(tc.o, &p, 0, 0)
			if got.Verdict != Decline || got.Reason != tc.want {
				t.Errorf("got %v %q, want decline %q", got.Verdict, got.Reason, tc.want)
			}
		})
	}
}

func TestPolicyEnabledTimeControls(t *testing.T) {
	p := defaultConfig(t, map[string]string{"PONDEROSA_CORRESPONDENCE": "true", "PONDEROSA_UNLIMITED": "true",
		"PONDEROSA_SPEEDS": "ultraBullet,bullet"}).Policy
	for _, o := range []Offer{
		{Challenger: "a1", Variant: "standard", Speed: "correspondence", Clock: "correspondence"},
		{Challenger: "a1", Variant: "standard", Speed: "correspondence", Clock: "unlimited"},
		{Challenger: "a1", Variant: "standard", Speed: "ultraBullet", Clock: "clock", Base: 15 * time.Second},
	} {
		if got := Decide(o, &p, 0, 0); got.Verdict != Accept {
			t.Errorf("%+v: %v %s", o, got.Verdict, got.Reason)
		}
	}
}

func TestPolicyLoad(t *testing.T) {
	p := defaultConfig(t, map[string]string{"PONDEROSA_MAX_GAMES": "2", "PONDEROSA_QUEUE": "1"}).Policy
	o := blitz()
	for _, tc := range []struct {
		active, queued int
		want           Decision
	}{
		{0, 0, Decision{Verdict: Accept}},
		{1, 0, Decision{Verdict: Accept}},
		{2, 0, Decision{Verdict: Queue}},
		{1, 1, Decision{Decline, ReasonLater}}, // a slot is free but the queue goes first
		{2, 1, Decision{Decline, ReasonLater}},
	} {
		if got := Decide(o, &p, tc.active, tc.queued); got != tc.want {
			t.Errorf("active %d queued %d: got %+v, want %+v", tc.active, tc.queued, got, tc.want)
		}
	}
	// Unacceptable challenges are declined for their real reason, not "later".
	o.Variant = "horde"
	if got := Decide(o, &p, 2, 1); got.Reason != ReasonVariant {
		t.Errorf("busy + horde: %+v", got)
	}
}

// TestPolicyCorrespondenceLimit: correspondence and unlimited offers are
// counted against PONDEROSA_MAX_CORRESPONDENCE_GAMES, never queued, and
// the real-time queue does not hold them back.
func TestPolicyCorrespondenceLimit(t *testing.T) {
	p := defaultConfig(t, map[string]string{"PONDEROSA_CORRESPONDENCE": "true", "PONDEROSA_UNLIMITED": "true",
		"PONDEROSA_MAX_CORRESPONDENCE_GAMES": "3", "PONDEROSA_MAX_GAMES": "1", "PONDEROSA_QUEUE": "2"}).Policy
	corr := Offer{Challenger: "a1", Variant: "standard", Speed: "correspondence", Clock: "correspondence", Days: 3}
	unl := Offer{Challenger: "a1", Variant: "standard", Speed: "correspondence", Clock: "unlimited"}
	for _, tc := range []struct {
		o              Offer
		active, queued int
		want           Decision
	}{
		{corr, 0, 0, Decision{Verdict: Accept}},
		{corr, 2, 2, Decision{Verdict: Accept}}, // real-time challenges waiting: no matter
		{corr, 3, 0, Decision{Decline, ReasonLater}},
		{unl, 2, 0, Decision{Verdict: Accept}},
		{unl, 3, 1, Decision{Decline, ReasonLater}},
	} {
		if got := Decide(tc.o, &p, tc.active, tc.queued); got != tc.want {
			t.Errorf("%s, %d in progress, %d queued: got %+v, want %+v", tc.o.Clock, tc.active, tc.queued, got, tc.want)
		}
	}
	corr.Days = 30
	if got := Decide(corr, &p, 3, 0); got.Reason != ReasonTooSlow {
		t.Errorf("too slow and over the limit: %+v", got)
	}
}

// FuzzDecideFEN: the challenge policy reads a start position from the
// network; it never panics, and declines with "standard" exactly the
// positions the engine cannot set up.
func FuzzDecideFEN(f *testing.F) {
	for _, s := range []string{"", "startpos", board.StartFEN, "not a fen",
		"4k3/8/8/8/8/QQ1Q4/PPPPPPPP/4K3 w KQkq - 0 1",
		"QQQQQQQQ/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/QQQQQQQQ/K6k b - - 0 1"} {
		f.Add(s)
	}
	p := defaultConfig(f, nil).Policy
	f.Fuzz(func(t *testing.T, fen string) {
		o := blitz()
		o.Variant, o.Rated, o.FEN = "fromPosition", false, fen
		d := Decide(o, &p, 0, 0)
		_, err := board.ParseFEN(fen)
		unplayable := fen != "" && fen != "startpos" && err != nil
		if unplayable != (d == Decision{Decline, ReasonStandard}) {
			t.Fatalf("FEN %q (parse error %v): decision %v %q", fen, err, d.Verdict, d.Reason)
		}
	})
}
