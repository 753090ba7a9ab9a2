package lichess

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// TestTournamentExamples reads the spec's arena and Swiss examples through
// the client, and sends the join and withdraw forms lila expects.
func TestTournamentExamples(t *testing.T) {
	var mu sync.Mutex
	forms := map[string]url.Values{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "GET /api/tournament/may24lta":
			_, _ = w.Write(example(t, "arenas-getArenaById.json"))
		case "GET /api/swiss/YxwjQGYu":
			_, _ = w.Write(example(t, "swiss-getSwiss.json"))
		case "POST /api/tournament/open/join", "POST /api/tournament/open/withdraw",
			"POST /api/swiss/sw/join", "POST /api/swiss/sw/withdraw":
			_ = r.ParseForm()
			mu.Lock()
			forms[r.URL.Path] = r.PostForm
			mu.Unlock()
			_, _ = w.Write([]byte(`{"ok":true}`))
		case "POST /api/tournament/nobots/join":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(example(t, "lila-tournament-restrictions.json"))
		case "POST /api/tournament/secret/join":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(example(t, "lila-tournament-wrong-code.json"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := New(Options{BaseURL: srv.URL, Token: "lip_x", Retries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	a, err := c.Arena(ctx, "may24lta")
	if err != nil || a.FullName != "Titled Arena May 2024" || a.Clock.Limit != 60 || a.Minutes != 120 || !a.IsFinished ||
		a.StartsAt.Year() != 2024 || a.Verdicts == nil || !a.Verdicts.Accepted || len(a.Verdicts.Refused()) != 0 || a.System != "arena" {
		t.Fatalf("arena: %+v, %v", a, err)
	}
	sw, err := c.Swiss(ctx, "YxwjQGYu")
	if err != nil || sw.Name != "Classical Increment" || sw.Clock.Limit != 1500 || sw.NbRounds != 5 || !sw.Finished() || sw.StartsAt.Month() != time.September {
		t.Fatalf("swiss: %+v, %v", sw, err)
	}

	if err := c.JoinArena(ctx, "open", JoinArenaOptions{Password: "pw", Team: "t1", PairMeAsap: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.WithdrawArena(ctx, "open"); err != nil {
		t.Fatal(err)
	}
	if err := c.JoinSwiss(ctx, "sw", "pw2"); err != nil {
		t.Fatal(err)
	}
	if err := c.WithdrawSwiss(ctx, "sw"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if f := forms["/api/tournament/open/join"]; f.Get("password") != "pw" || f.Get("team") != "t1" || f.Get("pairMeAsap") != "true" {
		t.Errorf("arena join form = %v", f)
	}
	if f := forms["/api/swiss/sw/join"]; f.Get("password") != "pw2" || f.Has("team") {
		t.Errorf("swiss join form = %v", f)
	}
	if _, ok := forms["/api/tournament/open/withdraw"]; !ok {
		t.Error("no arena withdraw")
	}
	mu.Unlock()

	for _, tc := range []struct {
		id, msg string
	}{{"nobots", TournamentErrRestrictions}, {"secret", TournamentErrWrongCode}} {
		err := c.JoinArena(ctx, tc.id, JoinArenaOptions{})
		var ae *APIError
		if err == nil || !asAPIError(err, &ae) || ae.Status != 400 || ae.Message != tc.msg {
			t.Errorf("join %s: %v", tc.id, err)
		}
		if perm, _ := JoinRefusal(err); !perm {
			t.Errorf("join %s: %v not permanent", tc.id, err)
		}
	}
}

func asAPIError(err error, ae **APIError) bool {
	e, ok := err.(*APIError)
	if ok {
		*ae = e
	}
	return ok
}

// TestJoinRefusal classifies lila's join answers.
func TestJoinRefusal(t *testing.T) {
	c := New(Options{BaseURL: "https://lichess.org", Token: "lip_x"})
	defer c.Close()
	body := func(msg string) []byte { b, _ := json.Marshal(map[string]string{"error": msg}); return b }
	fam := "POST /api/tournament/{id}/join"
	for _, tc := range []struct {
		status    int
		msg       string
		permanent bool
		minWait   time.Duration
	}{
		{400, TournamentErrRestrictions, true, 0},
		{400, TournamentErrWrongCode, true, 0},
		{400, TournamentErrMissingTeam, true, 0},
		{400, TournamentErrNotFound, true, 0},
		{404, "Not found", true, 0},
		{400, TournamentErrPaused, false, 0},
		{400, TournamentErrTooMany, false, 10 * time.Minute},
		{500, "boom", false, 0},
		{429, "Too many requests. Try again later.", false, 50 * time.Second},
	} {
		err := c.check("POST", "/api/tournament/x/join", fam, tc.status, http.Header{}, body(tc.msg))
		perm, wait := JoinRefusal(err)
		if perm != tc.permanent || wait < tc.minWait {
			t.Errorf("%d %q: permanent %v wait %v", tc.status, tc.msg, perm, wait)
		}
	}
	if _, ok := c.Pauses()[fam]; !ok {
		t.Error("a 429 did not pause the join family")
	}
	var ts Timestamp
	for _, in := range []string{`"2024-05-25T18:00:00Z"`, `1522803600000`, `null`} {
		if err := json.Unmarshal([]byte(in), &ts); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	for _, in := range []string{`"yesterday"`, `true`, `"2024-13-99"`} {
		if err := json.Unmarshal([]byte(in), &ts); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}

// FuzzDecodeTournament: any answer decodes into Arena and Swiss or fails
// with an error (dates of either form included), never a panic.
func FuzzDecodeTournament(f *testing.F) {
	for _, b := range exampleSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"id":"a","startsAt":1522803600000,"verdicts":{"list":[{"condition":"x","verdict":"no"}],"accepted":false},"me":{"withdraw":true}}`))
	f.Add([]byte(`{"id":"a","startsAt":"2024-05-25T18:00:00Z","teamBattle":{"teams":{"t":["T",null]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a Arena
		if json.Unmarshal(b, &a) == nil && a.Verdicts != nil {
			refused := a.Verdicts.Refused()
			if len(refused) > len(a.Verdicts.List) || (a.Verdicts.Accepted && len(a.Verdicts.List) == 0 && len(refused) > 0) {
				t.Fatalf("refused %q of %+v", refused, a.Verdicts)
			}
		}
		var s Swiss
		if json.Unmarshal(b, &s) == nil {
			_ = s.Verdicts.Refused()
			_ = s.Finished()
		}
	})
}
