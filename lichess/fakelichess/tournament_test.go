package fakelichess_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

// TestArenaJoinRules: the join answers of lila for bots, passwords, teams
// and pauses, and the verdicts of GET /api/tournament/{id}.
func TestArenaJoinRules(t *testing.T) {
	srv := fakelichess.New(fakelichess.Options{Teams: []string{"our-team"}})
	defer srv.Close()
	r := raw{t: t, srv: srv, token: srv.Token()}
	nobots := srv.CreateArena(fakelichess.TournamentSpec{StartsIn: time.Hour})
	secret := srv.CreateArena(fakelichess.TournamentSpec{Bots: true, Password: "pw", StartsIn: time.Hour})
	battle := srv.CreateArena(fakelichess.TournamentSpec{Bots: true, Teams: []string{"our-team", "theirs"}, StartsIn: time.Hour})
	paused := srv.CreateArena(fakelichess.TournamentSpec{Bots: true, PauseDelay: time.Hour, PairDelay: time.Hour})
	for _, tc := range []struct {
		path, form string
		status     int
		msg        string
	}{
		{"/api/tournament/" + nobots + "/join", "", 400, "Tournament restrictions"},
		{"/api/tournament/" + secret + "/join", "password=nope", 400, "Wrong entry code"},
		{"/api/tournament/" + secret + "/join", "password=pw", 200, ""},
		{"/api/tournament/" + battle + "/join", "", 400, "Missing team"},
		{"/api/tournament/" + battle + "/join", "team=theirs", 400, "Missing team"},
		{"/api/tournament/" + battle + "/join", "team=our-team", 200, ""},
		{"/api/tournament/nosuch/join", "", 400, "This tournament no longer exists"},
		{"/api/tournament/" + paused + "/join", "", 200, ""},
		{"/api/tournament/" + paused + "/withdraw", "", 200, ""},
		{"/api/tournament/" + paused + "/join", "", 400, "Your pause is not over yet"},
	} {
		status, body := r.do("POST", tc.path, tc.form)
		if status != tc.status || (tc.msg != "" && !strings.Contains(string(body), tc.msg)) {
			t.Errorf("%s %s: %d %s", tc.path, tc.form, status, body)
		}
	}
	status, body := r.do("GET", "/api/tournament/"+nobots, "")
	var a struct {
		SecondsToStart int `json:"secondsToStart"`
		Verdicts       struct {
			List     []struct{ Condition, Verdict string }
			Accepted bool
		}
	}
	if err := json.Unmarshal(body, &a); status != 200 || err != nil || a.Verdicts.Accepted ||
		a.Verdicts.List[0].Condition != "Bot players are not allowed" || a.SecondsToStart < 3000 {
		t.Errorf("arena: %d %s", status, body)
	}
	if info, _ := srv.Tournament(battle); !info.Joined || info.Team != "our-team" || info.Started {
		t.Errorf("battle: %+v", info)
	}
	if info, _ := srv.Tournament(paused); info.Joined || info.Withdraws != 1 || len(info.Games) != 0 {
		t.Errorf("paused: %+v", info)
	}
}

// TestArenaPairsBackToBack: a joined bot gets a tournament game as soon as
// its last one ends; its games cannot be aborted; after a withdraw none
// comes; the Swiss pairs once per round.
func TestArenaPairsBackToBack(t *testing.T) {
	srv := fakelichess.New(fakelichess.Options{})
	defer srv.Close()
	r := raw{t: t, srv: srv, token: srv.Token()}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id := srv.CreateArena(fakelichess.TournamentSpec{Bots: true, Minutes: 10, Duration: 5 * time.Second, ClockLimit: 30 * time.Second})
	next := r.stream(ctx, "/api/stream/event")
	if status, body := r.do("POST", "/api/tournament/"+id+"/join", "pairMeAsap=true"); status != 200 {
		t.Fatalf("join: %d %s", status, body)
	}
	for i := range 3 {
		ev := next()
		game := ev["game"].(map[string]any)
		if ev["type"] != "gameStart" || game["tournamentId"] != id || game["source"] != "arena" {
			t.Fatalf("game %d: %v", i, ev)
		}
		gid := game["gameId"].(string)
		if status, _ := r.do("POST", "/api/bot/game/"+gid+"/abort", ""); status != 400 {
			t.Fatalf("a tournament game was aborted: %d", status)
		}
		if status, body := r.do("POST", "/api/bot/game/"+gid+"/resign", ""); status != 200 {
			t.Fatalf("resign: %d %s", status, body)
		}
		if gi, _ := srv.Game(gid); gi.Status != "resign" || gi.TournamentID != id {
			t.Fatalf("game %d: %+v", i, gi)
		}
		if ev := next(); ev["type"] != "gameFinish" {
			t.Fatalf("want gameFinish, got %v", ev)
		}
	}
	if status, _ := r.do("POST", "/api/tournament/"+id+"/withdraw", ""); status != 200 {
		t.Fatal("withdraw")
	}
	info, _ := srv.Tournament(id)
	if info.Playing != "" {
		// The pairing that came with the last gameFinish goes on.
		if status, _ := r.do("POST", "/api/bot/game/"+info.Playing+"/resign", ""); status != 200 {
			t.Fatal("resign")
		}
	}
	n := len(info.Games)
	// A pairing would come within PairDelay (50 ms): wait for the end of
	// the arena (its clock ticks the fake) and count.
	if err := srv.WaitUntil(ctx, func() bool { i, _ := srv.Tournament(id); return i.Finished || len(i.Games) > n }); err != nil {
		t.Fatal(err)
	}
	if info, _ := srv.Tournament(id); len(info.Games) != n || info.Joined || info.PairedAfterWithdraw != 0 {
		t.Fatalf("paired after withdraw: %+v", info)
	}

	sw := srv.CreateSwiss(fakelichess.TournamentSpec{Bots: true, Rounds: 3, Duration: 3 * time.Second, StartsIn: 200 * time.Millisecond})
	if status, body := r.do("POST", "/api/swiss/"+sw+"/join", ""); status != 200 {
		t.Fatalf("swiss join: %d %s", status, body)
	}
	for round := 1; round <= 2; round++ {
		var gid string
		for gid == "" {
			ev := next()
			if g, ok := ev["game"].(map[string]any); ok && ev["type"] == "gameStart" && g["tournamentId"] == sw {
				gid = g["gameId"].(string)
			}
		}
		if status, _ := r.do("POST", "/api/bot/game/"+gid+"/resign", ""); status != 200 {
			t.Fatal("resign")
		}
		if info, _ := srv.Tournament(sw); info.Round != round || len(info.Games) != round {
			t.Fatalf("round %d: %+v", round, info)
		}
	}
	status, body := r.do("GET", "/api/swiss/"+sw, "")
	if status != 200 || !strings.Contains(string(body), `"status":"started"`) {
		t.Fatalf("swiss: %d %s", status, body)
	}
}
