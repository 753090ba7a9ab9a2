package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testGame returns a valid game against opp that ended at end.
func testGame(id, opp, result string, end time.Time) Game {
	return Game{ID: id, Started: end.Add(-5 * time.Minute), Ended: end, Speed: "blitz", Variant: "standard",
		Rated: true, Color: "white", Opponent: opp, OpponentName: strings.ToUpper(opp[:1]) + opp[1:],
		OpponentTitle: "BOT", OpponentRating: 2000, OpponentBot: true, OurRating: 2100, Result: result,
		Termination: "mate", Plies: 61, Sources: map[string]int{"book": 4, "engine": 27}, Flags: []string{"resumed"},
		ThinkTotal: 90 * time.Second, ThinkMax: 9 * time.Second, PGN: "pgn/" + id + ".pgn"}
}

func openTest(t *testing.T, dir string) *DB {
	t.Helper()
	d, err := Open(dir, Options{HistoryDays: 365})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// counters checks the opponent counters of any Store.
func counters(t *testing.T, s Store) {
	t.Helper()
	now := time.Now()
	s.AddGame(testGame("g1", "alice", Win, now.Add(-50*time.Hour)))
	s.AddGame(testGame("g2", "bob", Loss, now.Add(-3*time.Hour)))
	s.AddGame(testGame("g3", "Alice", Draw, now.Add(-2*time.Hour)))
	s.AddGame(testGame("g4", "alice", Aborted, now.Add(-90*time.Minute)))
	s.AddGame(testGame("g5", "alice", Win, now.Add(-time.Hour)))
	if n := s.GamesAgainst("ALICE", now.Add(-24*time.Hour)); n != 2 {
		t.Errorf("games against alice in a day = %d, want 2 (the aborted one left out)", n)
	}
	if n := s.GamesAgainst("alice", time.Time{}); n != 3 {
		t.Errorf("games against alice = %d, want 3", n)
	}
	if n := s.StreakAgainst("alice"); n != 2 {
		t.Errorf("alice in a row = %d, want 2", n)
	}
	if n := s.StreakAgainst("bob"); n != 0 {
		t.Errorf("bob in a row = %d, want 0", n)
	}
	s.AddGame(testGame("g6", "bob", Win, now.Add(-time.Minute)))
	if n := s.StreakAgainst("bob"); n != 1 {
		t.Errorf("bob in a row after a game = %d, want 1", n)
	}
	// Rematches in a row: g7 and g8 (aborted) were rematches, g6 was not;
	// bob's game between does not break alice's run.
	rematch := func(g Game) Game { g.Flags = append(g.Flags, FlagRematch); return g }
	if n := s.RematchStreak("alice"); n != 0 {
		t.Errorf("alice's rematches before any = %d, want 0", n)
	}
	s.AddGame(rematch(testGame("g7", "alice", Loss, now.Add(-50*time.Second))))
	s.AddGame(testGame("g7b", "bob", Loss, now.Add(-45*time.Second)))
	s.AddGame(rematch(testGame("g8", "alice", Aborted, now.Add(-40*time.Second))))
	if n := s.RematchStreak("ALICE"); n != 2 {
		t.Errorf("alice's rematches in a row = %d, want 2", n)
	}
	recent := s.RecentGames(4)
	if len(recent) != 4 || recent[3].ID != "g6" || recent[2].ID != "g7" {
		t.Errorf("recent games: %+v", recent)
	}
	// Out-of-order ends are sorted in.
	s.AddGame(testGame("g0", "carol", Win, now.Add(-100*time.Hour)))
	if r := s.RecentGames(10); r[len(r)-1].ID != "g0" {
		t.Errorf("the oldest game is %s, want g0", r[len(r)-1].ID)
	}
}

func TestMemoryCounters(t *testing.T) { counters(t, NewMemory()) }

func TestDBCounters(t *testing.T) {
	d := openTest(t, t.TempDir())
	defer d.Close()
	counters(t, d)
}

// TestRestart writes everything the bot remembers, closes, reopens, and
// reads it back: the counters, the quota window, the overhead, the
// opponents backed off; expired windows are gone.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	d := openTest(t, dir)
	now := time.Now()
	for i := range 5 {
		d.AddGame(testGame(fmt.Sprintf("r%d", i), "alice", Win, now.Add(time.Duration(i-10)*time.Minute)))
	}
	d.AddChallenge(Challenge{ID: "c1", At: now, Opponent: "Alice", Variant: "standard", Speed: "blitz", Decision: "decline", Reason: "later"})
	d.SetQuota(QuotaWindow{Key: "bot.vsBot.day", Until: now.Add(3 * time.Hour), Note: "bot games exhausted"})
	d.SetQuota(QuotaWindow{Key: "gone", Until: now.Add(time.Hour)})
	d.SetQuota(QuotaWindow{Key: "gone", Until: now.Add(-time.Second)}) // ended: removed
	samples := []time.Duration{30 * time.Millisecond, 45 * time.Millisecond}
	for i := range 100 { // coalesced by key; only the last one matters
		d.SetOverhead(Overhead{Estimate: time.Duration(60+i) * time.Millisecond, Samples: samples, At: now})
	}
	d.SetRefusal(Refusal{Opponent: "Bob", Reason: "later", Strikes: 3, Until: now.Add(time.Hour)})
	d.SetRefusal(Refusal{Opponent: "bob", Scope: "tc:3+0", Reason: "tooFast", Strikes: 1, Until: now.Add(time.Hour)})
	d.SetRefusal(Refusal{Opponent: "carol", Reason: "generic", Strikes: 1, Until: now.Add(-RefusalMemory - time.Hour)}) // forgotten
	d.SetRefusal(Refusal{Opponent: "dave", Reason: "later", Strikes: 2, Until: now.Add(-time.Hour)})                    // ended: its strikes remembered
	d.SetRefusal(Refusal{Opponent: "erin", Scope: "mode:rated", Reason: "casual", Strikes: 1, Until: now.Add(time.Hour)})
	d.SetRefusal(Refusal{Opponent: "erin", Scope: "mode:rated"})                     // forgotten: a zero Until
	d.SetRefusal(Refusal{Opponent: "frank", Strikes: 99, Until: now.Add(time.Hour)}) // out of range: not recorded
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	d = openTest(t, dir)
	defer d.Close()
	if n := d.GamesAgainst("alice", now.Add(-time.Hour)); n != 5 {
		t.Errorf("games against alice after a restart = %d, want 5", n)
	}
	if n := d.StreakAgainst("alice"); n != 5 {
		t.Errorf("streak after a restart = %d, want 5", n)
	}
	q := d.Quotas(time.Now())
	if len(q) != 1 || q[0].Key != "bot.vsBot.day" || q[0].Until.UnixMilli() != now.Add(3*time.Hour).UnixMilli() || q[0].Note != "bot games exhausted" {
		t.Errorf("quota windows after a restart: %+v", q)
	}
	o, ok := d.Overhead()
	if !ok || o.Estimate != 159*time.Millisecond || len(o.Samples) != 2 || o.Samples[1] != 45*time.Millisecond {
		t.Errorf("overhead after a restart: %+v %v", o, ok)
	}
	var got []string
	for _, r := range d.Refusals(time.Now()) {
		got = append(got, fmt.Sprintf("%s/%s/%s/%d/%v", r.Opponent, r.Scope, r.Reason, r.Strikes, r.Until.After(now)))
	}
	if want := "bob//later/3/true bob/tc:3+0/tooFast/1/true dave//later/2/false"; strings.Join(got, " ") != want {
		t.Errorf("refusals after a restart: %q, want %q", got, want)
	}
	g := d.RecentGames(1)[0]
	want := testGame("r4", "alice", Win, now.Add(-6*time.Minute))
	if g.ID != want.ID || g.Sources["engine"] != 27 || g.ThinkMax != want.ThinkMax || g.Flags[0] != "resumed" ||
		!g.Started.Equal(want.Started.Truncate(time.Millisecond)) || g.OpponentTitle != "BOT" || !g.Rated || !g.OpponentBot {
		t.Errorf("game read back: %+v\nwant %+v", g, want)
	}
	if h := d.Health(); h.Degraded {
		t.Errorf("health: %+v", h)
	}
	var decision string
	if err := d.db.QueryRow("SELECT decision || ':' || reason || ':' || opponent FROM challenges WHERE id = 'c1'").Scan(&decision); err != nil || decision != "decline:later:alice" {
		t.Errorf("challenge row: %q %v", decision, err)
	}
}

// TestRetention prunes games past the retention at open.
func TestRetention(t *testing.T) {
	dir := t.TempDir()
	d := openTest(t, dir)
	now := time.Now()
	d.AddGame(testGame("old", "alice", Win, now.AddDate(0, 0, -400)))
	d.AddGame(testGame("new", "alice", Win, now.AddDate(0, 0, -2)))
	d.Close()
	d, err := Open(dir, Options{HistoryDays: 365})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var ids []string
	rows, err := d.db.Query("SELECT id FROM games ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	d.Close()
	if strings.Join(ids, ",") != "new" {
		t.Errorf("after pruning: %v, want [new]", ids)
	}
}

// TestConcurrentWriters has many games end at once (run it with -race):
// every one is in memory at once and on disk after a flush.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	d := openTest(t, dir)
	const writers, each = 16, 40
	now := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			opp := fmt.Sprintf("bot%d", w)
			for i := range each {
				d.AddGame(testGame(fmt.Sprintf("w%d-%d", w, i), opp, Win, now.Add(time.Duration(i)*time.Millisecond)))
				d.SetOverhead(Overhead{Estimate: time.Duration(i) * time.Millisecond, At: now})
				d.AddChallenge(Challenge{ID: fmt.Sprintf("c%d-%d", w, i), At: now, Opponent: opp, Decision: "accept"})
				if n := d.GamesAgainst(opp, time.Time{}); n != i+1 {
					t.Errorf("%s: %d games after %d", opp, n, i+1)
				}
			}
		})
	}
	wg.Wait()
	if err := d.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var games, challenges int
	d.db.QueryRow("SELECT COUNT(*) FROM games").Scan(&games)
	d.db.QueryRow("SELECT COUNT(*) FROM challenges").Scan(&challenges)
	if games != writers*each || challenges != writers*each {
		t.Errorf("on disk: %d games, %d challenges, want %d each", games, challenges, writers*each)
	}
	d.Close()
}

// TestCorruptFileMovedAside starts on a file that is not a database: it is
// moved aside (not deleted), a new database is started, and the store says
// it is degraded.
func TestCorruptFileMovedAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	junk := []byte(strings.Repeat("this is not an SQLite database\n", 300))
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	h := d.Health()
	if !h.Degraded || !strings.Contains(h.Reason, "corrupt") {
		t.Errorf("health: %+v", h)
	}
	aside, _ := filepath.Glob(path + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("moved-aside files: %v", aside)
	}
	if b, _ := os.ReadFile(aside[0]); string(b) != string(junk) {
		t.Error("the corrupt file's content was not kept")
	}
	d.AddGame(testGame("after", "alice", Win, time.Now()))
	if err := d.Flush(context.Background()); err != nil {
		t.Errorf("writing to the new database: %v", err)
	}
}

// TestCorruptPages damages the pages of a real database: quick_check finds
// it at the next open, and the file is moved aside.
func TestCorruptPages(t *testing.T) {
	dir := t.TempDir()
	d := openTest(t, dir)
	for i := range 300 {
		d.AddGame(testGame(fmt.Sprintf("g%d", i), "alice", Win, time.Now()))
	}
	d.Close()
	path := filepath.Join(dir, FileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096 + 100; i < len(b); i += 4096 { // leave the header page, scribble on every other
		copy(b[i:], "garbage garbage garbage garbage garbage garbage")
	}
	os.WriteFile(path, b, 0o600)
	d, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if h := d.Health(); !h.Degraded {
		t.Errorf("health after corruption: %+v", h)
	}
	if aside, _ := filepath.Glob(path + ".corrupt-*"); len(aside) != 1 {
		t.Errorf("moved-aside files: %v", aside)
	}
}

// TestOpenFails: a data directory that cannot exist is an error for Open,
// and Fallback is a degraded memory that keeps counting.
func TestOpenFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o600)
	_, err := Open(filepath.Join(file, "data"), Options{})
	if err == nil {
		t.Fatal("Open under a regular file succeeded")
	}
	m := Fallback(err)
	if h := m.Health(); !h.Degraded || !strings.Contains(h.Reason, "not a directory") {
		t.Errorf("fallback health: %+v", h)
	}
	counters(t, m)
}

// TestNewerSchema refuses a database from a newer build, clearly.
func TestNewerSchema(t *testing.T) {
	dir := t.TempDir()
	d := openTest(t, dir)
	d.Close()
	raw, err := sql.Open("sqlite", filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion()+1))
	raw.Close()
	_, err = Open(dir, Options{})
	var newer *ErrNewerSchema
	if !errors.As(err, &newer) || !strings.Contains(err.Error(), "newer ponderosa") {
		t.Errorf("Open: %v", err)
	}
	if _, err := OpenReadOnly(context.Background(), filepath.Join(dir, FileName)); !errors.As(err, &newer) {
		t.Errorf("OpenReadOnly: %v", err)
	}
	// The file is not moved aside: it is not corrupt.
	if aside, _ := filepath.Glob(filepath.Join(dir, "*.corrupt-*")); len(aside) != 0 {
		t.Errorf("moved aside: %v", aside)
	}
}

// TestBadRows: rows this build cannot stand behind are a clear error for
// that row only; the others are read.
func TestBadRows(t *testing.T) {
	dir := t.TempDir()
	d := openTest(t, dir)
	now := time.Now()
	d.AddGame(testGame("good", "alice", Win, now.Add(-time.Hour)))
	d.Flush(context.Background())
	bad := map[string]string{
		"newres":  "UPDATE games SET result = 'forfeit' WHERE id = 'newres'",
		"rating":  "UPDATE games SET opponent_rating = 99999 WHERE id = 'rating'",
		"sources": "UPDATE games SET sources = 'book:4' WHERE id = 'sources'",
		"colour":  "UPDATE games SET color = 'green' WHERE id = 'colour'",
	}
	for id, q := range bad {
		d.AddGame(testGame(id, "alice", Win, now))
		d.Flush(context.Background())
		if _, err := d.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	d.db.Exec("UPDATE overhead SET samples = '5,x' WHERE id = 1")
	d.Close()

	d = openTest(t, dir)
	defer d.Close()
	if got := d.RecentGames(10); len(got) != 1 || got[0].ID != "good" {
		t.Errorf("games read back: %d, want only the good one", len(got))
	}
	r := openReader(t, d.Path())
	rep := history(t, r, Query{})
	text := strings.Join(rep.Errors, "\n")
	for _, want := range []string{`game "newres": result "forfeit"`, `game "rating": opponent rating 99999`,
		`game "sources": move sources "book:4"`, `game "colour": colour "green"`, "2 games with a result this build does not know or a rating out of range"} {
		if !strings.Contains(text, want) {
			t.Errorf("history errors lack %q:\n%s", want, text)
		}
	}
	if len(rep.Last) != 1 || rep.Last[0].ID != "good" || rep.Total.Games != 3 {
		t.Errorf("history: %d last games, %d in total; want the good one listed and the three with a known result and rating counted", len(rep.Last), rep.Total.Games)
	}
}
