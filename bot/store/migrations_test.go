package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// fixtures writes, in a database at version v, rows that the tables of
// that version hold.
var fixtures = map[int][]string{
	1: {
		`INSERT INTO games VALUES ('m1', 1700000000000, 1700000300000, 'blitz', 'standard', 1, 'white', 'alice',
			'Alice', 'BOT', 2000, 1, 2100, 'win', 'mate', 61, 'book=4,engine=27', '', 90000, 9000, '')`,
		`INSERT INTO challenges VALUES ('c1', 1700000000000, 0, 'alice', 'standard', 'blitz', 1, 'accept', '')`,
	},
	2: {
		`INSERT INTO quota_windows VALUES ('bot.vsBot.day', 4102444800000, 'until 2100')`,
		`INSERT INTO overhead VALUES (1, 61000, '30000,45000', 1700000000000)`,
		`INSERT INTO opponents VALUES ('bob', 'later', 4102444800000)`,
	},
	4: {
		`INSERT INTO refusals VALUES ('carol', 'tc:3+0', 'tooFast', 1, 4102444800000)`,
	},
}

// TestMigrations opens, for every version, a database left at the version
// before it with rows in it: Open migrates it to the current version and
// every row is still there.
func TestMigrations(t *testing.T) {
	ctx := context.Background()
	for from := range SchemaVersion() {
		t.Run(fmt.Sprintf("from%d", from), func(t *testing.T) {
			dir := t.TempDir()
			db, err := openWriter(ctx, filepath.Join(dir, FileName))
			if err != nil {
				t.Fatal(err)
			}
			if err := migrate(ctx, db, from); err != nil {
				t.Fatal(err)
			}
			for v := 1; v <= from; v++ {
				for _, q := range fixtures[v] {
					if _, err := db.Exec(q); err != nil {
						t.Fatalf("fixture of version %d: %v", v, err)
					}
				}
			}
			db.Close()

			d, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if v, _ := schemaVersion(ctx, d.db); v != SchemaVersion() {
				t.Errorf("version after Open: %d, want %d", v, SchemaVersion())
			}
			var games, challenges int
			d.db.QueryRow("SELECT COUNT(*) FROM games WHERE id = 'm1' AND sources = 'book=4,engine=27'").Scan(&games)
			d.db.QueryRow("SELECT COUNT(*) FROM challenges WHERE id = 'c1'").Scan(&challenges)
			if want := min(from, 1); games != want || challenges != want {
				t.Errorf("games %d, challenges %d after migrating from %d; want %d", games, challenges, from, want)
			}
			if from >= 2 {
				q := d.Quotas(time.Now())
				o, ok := d.Overhead()
				r := d.Refusals(time.Now())
				if len(q) != 1 || !ok || o.Estimate != 61*time.Millisecond || len(r) != 1 ||
					r[0] != (Refusal{Opponent: "bob", Reason: "later", Strikes: 1, Until: time.UnixMilli(4102444800000)}) {
					t.Errorf("after migrating from %d: quotas %+v overhead %+v %v refusals %+v", from, q, o, ok, r)
				}
			}
			// The history reads every version's rows.
			rd, err := OpenReadOnly(ctx, d.Path())
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			rep, err := rd.History(ctx, Query{})
			if err != nil || len(rep.Errors) > 0 || rep.Total.Games != min(from, 1) {
				t.Errorf("history after migrating from %d: %+v %v", from, rep, err)
			}
		})
	}
}
