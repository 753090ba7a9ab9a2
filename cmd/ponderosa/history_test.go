package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
)

// TestHistoryCommand fills a real database while it stays open (as with a
// running bot) and reads it with the command: the table, --json,
// --opponent, --since and --backup.
func TestHistoryCommand(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{HistoryDays: 365})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	add := func(id, opp, speed, result string, rating int, ago time.Duration) {
		db.AddGame(store.Game{ID: id, Started: now.Add(-ago - 5*time.Minute), Ended: now.Add(-ago), Speed: speed,
			Variant: "standard", Rated: true, Color: "white", Opponent: opp, OpponentName: strings.ToUpper(opp[:1]) + opp[1:],
			OpponentTitle: "BOT", OpponentRating: rating, OpponentBot: true, Result: result, Termination: "mate", Plies: 40})
	}
	add("a1", "alice", "blitz", store.Win, 2000, 50*time.Hour)
	add("a2", "alice", "blitz", store.Draw, 2000, 3*time.Hour)
	add("b1", "bob", "bullet", store.Loss, 1800, 2*time.Hour)
	add("b2", "bob", "bullet", store.Aborted, 1800, time.Hour)
	if err := db.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}

	out, errOut, err := runCmd(t, "", "history", "--data-dir", dir)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	t.Logf("ponderosa history:\n%s", out)
	for _, want := range []string{
		"all the games kept", "BOT Bob (1800)", "aborted",
		"blitz  ", "2      1  1  0  75.0%  2200", // alice: 1.5/2, perf 2000 + 400/2
		"total", "Alice", "Aborted games are listed but not counted",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("history output lacks %q:\n%s", want, out)
		}
	}

	out, _, err = runCmd(t, "", "history", "--db", filepath.Join(dir, store.FileName), "--json", "--opponent", "Alice", "--since", "1d")
	if err != nil {
		t.Fatal(err)
	}
	var rep store.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Total.Games != 1 || rep.Total.Draws != 1 || len(rep.Last) != 1 || rep.Last[0].ID != "a2" {
		t.Errorf("--opponent alice --since 1d: %+v", rep)
	}

	backup := filepath.Join(t.TempDir(), "copy.db")
	out, _, err = runCmd(t, "", "history", "--data-dir", dir, "--backup", backup)
	if err != nil || !strings.Contains(out, "backed up") {
		t.Fatalf("--backup: %v %s", err, out)
	}
	out, _, err = runCmd(t, "", "history", "--db", backup, "--json")
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil || rep.Total.Games != 3 {
		t.Errorf("the backup's history: %v %+v", err, rep.Total)
	}

	for _, bad := range [][]string{{"--since", "yesterday"}, {"--since", "-3d"}} {
		if _, errOut, err := runCmd(t, "", append([]string{"history", "--data-dir", dir}, bad...)...); err == nil || !strings.Contains(errOut, "--since") {
			t.Errorf("%v: %v %q", bad, err, errOut)
		}
	}
	if _, _, err := runCmd(t, "", "history", "--data-dir", t.TempDir()); err == nil || !strings.Contains(err.Error(), "no history") {
		t.Errorf("an empty data directory: %v", err)
	}
}

// FuzzParseSince: --since is a date, an RFC 3339 time or days; anything
// else is a clear error, and a time it accepts is never in the future of
// a days count. Seeds: testdata/fuzz/FuzzParseSince.
func FuzzParseSince(f *testing.F) {
	f.Add("30d")
	f.Add("2026-01-02")
	f.Fuzz(func(t *testing.T, v string) {
		now := time.Now()
		got, err := parseSince(v, now)
		if err == nil && strings.HasSuffix(v, "d") && got.After(now) {
			t.Errorf("%q: %v is after now", v, got)
		}
		if err != nil && !strings.Contains(err.Error(), "not a date") && !strings.Contains(err.Error(), "number of days") {
			t.Errorf("%q: unclear error %v", v, err)
		}
	})
}
