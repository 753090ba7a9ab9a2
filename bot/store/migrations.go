package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// migrations are the schema steps: migrations[i] takes a database from
// version i to version i+1 (PRAGMA user_version). Never edit one that has
// shipped: add the next. Each is tested by opening a database left at the
// version before it (migrations_test.go).
var migrations = []string{
	// 1: finished games and challenges.
	`CREATE TABLE games (
		id TEXT PRIMARY KEY NOT NULL,
		started INTEGER NOT NULL,          -- Unix milliseconds
		ended INTEGER NOT NULL,
		speed TEXT NOT NULL,
		variant TEXT NOT NULL,
		rated INTEGER NOT NULL,
		color TEXT NOT NULL,               -- ours
		opponent TEXT NOT NULL,            -- Lichess id, lower case
		opponent_name TEXT NOT NULL,
		opponent_title TEXT NOT NULL,
		opponent_rating INTEGER NOT NULL,  -- 0 = unknown
		opponent_bot INTEGER NOT NULL,
		our_rating INTEGER NOT NULL,
		result TEXT NOT NULL,              -- win, loss, draw, aborted
		termination TEXT NOT NULL,         -- Lichess status
		plies INTEGER NOT NULL,
		sources TEXT NOT NULL,             -- book=4,engine=38
		flags TEXT NOT NULL,
		think_total_ms INTEGER NOT NULL,
		think_max_ms INTEGER NOT NULL,
		pgn TEXT NOT NULL
	);
	-- Covers the history's scans of a time range.
	CREATE INDEX games_by_end ON games(ended, speed, opponent, result, opponent_rating);
	CREATE INDEX games_by_opponent ON games(opponent, ended);
	CREATE TABLE challenges (
		id TEXT PRIMARY KEY NOT NULL,
		at INTEGER NOT NULL,
		outgoing INTEGER NOT NULL,
		opponent TEXT NOT NULL,
		variant TEXT NOT NULL,
		speed TEXT NOT NULL,
		rated INTEGER NOT NULL,
		decision TEXT NOT NULL,
		reason TEXT NOT NULL
	);
	CREATE INDEX challenges_by_time ON challenges(at);`,

	// 2: what the service learns while it runs: quota windows, the move
	// overhead, matchmaking's memory of opponents.
	`CREATE TABLE quota_windows (
		key TEXT PRIMARY KEY NOT NULL,
		until INTEGER NOT NULL,
		note TEXT NOT NULL
	);
	CREATE TABLE overhead (
		id INTEGER PRIMARY KEY CHECK (id = 1),
		estimate_us INTEGER NOT NULL,
		samples TEXT NOT NULL,             -- microseconds, comma-separated
		at INTEGER NOT NULL
	);
	CREATE TABLE opponents (
		opponent TEXT PRIMARY KEY NOT NULL,
		reason TEXT NOT NULL,              -- the last decline reason
		until INTEGER NOT NULL             -- left alone until
	);`,

	// 3: running totals per speed and opponent, kept by triggers, so that
	// the history over a year of games reads a few thousand rows, not the
	// games. A game counts as a result (wins, draws, losses, with its
	// opponent's rating when known), as aborted, or, when this build cannot
	// read it (a result it does not know, a rating out of range), as other.
	`CREATE TABLE tallies (
		speed TEXT NOT NULL,
		opponent TEXT NOT NULL,
		name TEXT NOT NULL,                -- the opponent's latest name
		wins INTEGER NOT NULL DEFAULT 0,
		draws INTEGER NOT NULL DEFAULT 0,
		losses INTEGER NOT NULL DEFAULT 0,
		aborted INTEGER NOT NULL DEFAULT 0,
		other INTEGER NOT NULL DEFAULT 0,
		rated INTEGER NOT NULL DEFAULT 0,  -- results whose opponent rating is known
		rating_sum INTEGER NOT NULL DEFAULT 0,
		diff INTEGER NOT NULL DEFAULT 0,   -- their wins - losses
		PRIMARY KEY (speed, opponent)
	) WITHOUT ROWID;
	` + tallyTrigger("insert", "AFTER INSERT", "", "NEW") + tallyTrigger("delete", "AFTER DELETE", "OLD", "") +
		tallyTrigger("update", "AFTER UPDATE", "OLD", "NEW") + `
	INSERT INTO tallies (speed, opponent, name, wins, draws, losses, aborted, other, rated, rating_sum, diff)
		SELECT speed, opponent, MAX(opponent_name), ` + tallySums + ` FROM games GROUP BY speed, opponent;`,

	// 4: matchmaking's memory per opponent and scope: a decline backs off
	// what was declined (a time control, a variant, a mode) or the whole
	// opponent (scope ''), and counts the declines in a row for the
	// exponential pauses. The rows of opponents become whole-opponent rows.
	`CREATE TABLE refusals (
		opponent TEXT NOT NULL,
		scope TEXT NOT NULL,               -- '' = the opponent; tc:3+0, faster:3+0, slower:3+0, variant:chess960, mode:rated, ...
		reason TEXT NOT NULL,              -- the decline reason (or what else backed off)
		strikes INTEGER NOT NULL,          -- declines in a row of this scope
		until INTEGER NOT NULL,            -- left alone until
		PRIMARY KEY (opponent, scope)
	) WITHOUT ROWID;
	INSERT INTO refusals (opponent, scope, reason, strikes, until) SELECT opponent, '', reason, 1, until FROM opponents;
	DROP TABLE opponents;`,
}

// tallySums are the tallies' figures summed over a group of games rows.
var tallySums = strings.Join(tallyTerms(""), ", ")

// tallyTerms are the tallies' figures for one games row (prefix "NEW." or
// "OLD." in a trigger), or, with no prefix, summed over a group.
func tallyTerms(prefix string) []string {
	p := func(col string) string { return prefix + col }
	ok := "(" + p("opponent_rating") + " BETWEEN 0 AND 4000)"
	known := "(" + p("result") + " IN ('win', 'draw', 'loss') AND " + ok + ")"
	rated := "(" + known + " AND " + p("opponent_rating") + " > 0)"
	terms := []string{
		"(" + p("result") + " = 'win' AND " + ok + ")",
		"(" + p("result") + " = 'draw' AND " + ok + ")",
		"(" + p("result") + " = 'loss' AND " + ok + ")",
		"(" + p("result") + " = 'aborted' AND " + ok + ")",
		"NOT (" + p("result") + " IN ('win', 'draw', 'loss', 'aborted') AND " + ok + ")",
		rated,
		"(CASE WHEN " + rated + " THEN " + p("opponent_rating") + " ELSE 0 END)",
		"(CASE WHEN " + rated + " THEN (" + p("result") + " = 'win') - (" + p("result") + " = 'loss') ELSE 0 END)",
	}
	if prefix == "" {
		for i, t := range terms {
			terms[i] = "SUM(" + t + ")"
		}
	}
	return terms
}

// tallyColumns are the tallies' figures, in tallyTerms' order.
var tallyColumns = []string{"wins", "draws", "losses", "aborted", "other", "rated", "rating_sum", "diff"}

// tallyTrigger keeps the tallies as games rows come (add) and go (sub).
func tallyTrigger(name, when, sub, add string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TRIGGER games_tally_%s %s ON games BEGIN\n", name, when)
	change := func(row, sign string) {
		fmt.Fprintf(&b, "INSERT INTO tallies (speed, opponent, name) VALUES (%[1]s.speed, %[1]s.opponent, %[1]s.opponent_name) ON CONFLICT DO NOTHING;\n", row)
		var sets []string
		for i, t := range tallyTerms(row + ".") {
			sets = append(sets, fmt.Sprintf("%s = %s %s %s", tallyColumns[i], tallyColumns[i], sign, t))
		}
		if sign == "+" {
			sets = append(sets, "name = "+row+".opponent_name")
		}
		fmt.Fprintf(&b, "UPDATE tallies SET %s WHERE speed = %[2]s.speed AND opponent = %[2]s.opponent;\n", strings.Join(sets, ", "), row)
	}
	if sub != "" {
		change(sub, "-")
		fmt.Fprintf(&b, "DELETE FROM tallies WHERE speed = %[1]s.speed AND opponent = %[1]s.opponent AND wins + draws + losses + aborted + other = 0;\n", sub)
	}
	if add != "" {
		change(add, "+")
	}
	b.WriteString("END;\n")
	return b.String()
}

// SchemaVersion returns the schema version this build writes.
func SchemaVersion() int { return len(migrations) }

// ErrNewerSchema is returned for a database written by a newer build.
type ErrNewerSchema struct{ Have, Know int }

func (e *ErrNewerSchema) Error() string {
	return fmt.Sprintf("the database has schema version %d, newer than this build's %d: it was written by a newer ponderosa", e.Have, e.Know)
}

// schemaVersion reads PRAGMA user_version.
func schemaVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, err
	}
	return v, nil
}

// migrate brings db up to version target (len(migrations) in production),
// one transaction per step.
func migrate(ctx context.Context, db *sql.DB, target int) error {
	have, err := schemaVersion(ctx, db)
	if err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if have > len(migrations) {
		return &ErrNewerSchema{Have: have, Know: len(migrations)}
	}
	for v := have; v < target; v++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		// user_version lives in the database header, which the
		// transaction covers: the step and its number commit together.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	return nil
}
