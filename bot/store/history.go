package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// gameColumns are the games table's columns in scanGame's order.
const gameColumns = "id, started, ended, speed, variant, rated, color, opponent, opponent_name, opponent_title, " +
	"opponent_rating, opponent_bot, our_rating, result, termination, plies, sources, flags, think_total_ms, think_max_ms, pgn"

// scanGame reads one games row and checks it: a row this build cannot
// stand behind (a newer schema's value, a value out of range) is an error
// naming the row.
func scanGame(rows *sql.Rows) (Game, error) {
	var g Game
	var started, ended, thinkTotal, thinkMax, rated, bot int64
	var sources, flags string
	if err := rows.Scan(&g.ID, &started, &ended, &g.Speed, &g.Variant, &rated, &g.Color, &g.Opponent, &g.OpponentName,
		&g.OpponentTitle, &g.OpponentRating, &bot, &g.OurRating, &g.Result, &g.Termination, &g.Plies, &sources, &flags,
		&thinkTotal, &thinkMax, &g.PGN); err != nil {
		if g.ID != "" {
			return g, fmt.Errorf("game %q: %w", g.ID, err)
		}
		return g, fmt.Errorf("games row: %w", err)
	}
	if rated&^1 != 0 || bot&^1 != 0 {
		return g, fmt.Errorf("game %q: rated=%d opponent_bot=%d are not 0 or 1", g.ID, rated, bot)
	}
	g.Rated, g.OpponentBot = rated == 1, bot == 1
	g.Started, g.Ended = fromMS(started), fromMS(ended)
	g.ThinkTotal, g.ThinkMax = time.Duration(thinkTotal)*time.Millisecond, time.Duration(thinkMax)*time.Millisecond
	var err error
	if g.Sources, err = decodeSources(sources); err != nil {
		return g, fmt.Errorf("game %q: %w", g.ID, err)
	}
	g.Flags = decodeFlags(flags)
	return g, g.check()
}

func slicesSortByEnd(gs []Game) {
	slices.SortStableFunc(gs, func(a, b Game) int { return a.Ended.Compare(b.Ended) })
}

// Reader reads a database that a running bot may be writing: the history
// and the backup. It never writes.
type Reader struct {
	db   *sql.DB
	path string
}

// OpenReadOnly opens the database at path for reading only. It fails with
// a clear error when the file does not exist, is not a Ponderosa database,
// or has a schema this build does not know.
func OpenReadOnly(ctx context.Context, path string) (*Reader, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, err
	}
	v, err := schemaVersion(ctx, db)
	switch {
	case err != nil:
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	case v > len(migrations):
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, &ErrNewerSchema{Have: v, Know: len(migrations)})
	case v < len(migrations):
		db.Close()
		return nil, fmt.Errorf("%s: schema version %d, this build reads %d: start the bot once to migrate it", path, v, len(migrations))
	}
	return &Reader{db: db, path: path}, nil
}

// Close closes the database.
func (r *Reader) Close() error { return r.db.Close() }

// Backup writes a consistent copy of the database to the file to (which
// must not exist) with VACUUM INTO; it is safe while the bot writes.
func (r *Reader) Backup(ctx context.Context, to string) error {
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("%s already exists", to)
	}
	if _, err := r.db.ExecContext(ctx, "VACUUM INTO ?", to); err != nil {
		return fmt.Errorf("backup to %s: %w", to, err)
	}
	return nil
}

// Query selects the games a history covers.
type Query struct {
	// Opponent, when set, keeps the games against this Lichess id.
	Opponent string
	// Since, when set, keeps the games that ended at or after it.
	Since time.Time
	// Last is how many of the latest games to list (default 20).
	Last int
	// Opponents is how many opponents the table by opponent shows, those
	// with the most games first (default 20).
	Opponents int
}

// Tally is the results of a set of games (aborted ones left out).
type Tally struct {
	Key    string `json:"key"`            // the speed, or the opponent's id
	Name   string `json:"name,omitempty"` // the opponent's name
	Games  int    `json:"games"`
	Wins   int    `json:"wins"`
	Draws  int    `json:"draws"`
	Losses int    `json:"losses"`
	// Score is the points per game, 0 to 1.
	Score float64 `json:"score"`
	// Performance is the average rating of the opponents plus 400 times
	// (wins - losses) per game, over the games whose opponent's rating is
	// known; 0 when none is.
	Performance int `json:"performance"`
}

// Report is a history: the latest games and the results by speed and by
// opponent.
type Report struct {
	Total      Tally    `json:"total"`
	BySpeed    []Tally  `json:"by_speed"`
	ByOpponent []Tally  `json:"by_opponent"`
	Last       []Game   `json:"last_games"`
	Errors     []string `json:"errors,omitempty"` // bad rows, one line each
}

// tallyOf finishes a tally from sums: rated are the games whose opponent's
// rating is known, ratingSum their ratings, and diff their wins - losses.
func tallyOf(key string, w, d, l, rated, ratingSum, diff int) Tally {
	t := Tally{Key: key, Games: w + d + l, Wins: w, Draws: d, Losses: l}
	if t.Games > 0 {
		t.Score = (float64(w) + float64(d)/2) / float64(t.Games)
	}
	if rated > 0 {
		t.Performance = (ratingSum + 400*diff + rated/2) / rated
	}
	return t
}

// History answers q.
func (r *Reader) History(ctx context.Context, q Query) (*Report, error) {
	if q.Last <= 0 {
		q.Last = 20
	}
	if q.Opponents <= 0 {
		q.Opponents = 20
	}
	where := []string{"ended >= ?"}
	args := []any{ms(q.Since)}
	if q.Opponent != "" {
		where = append(where, "opponent = ?")
		args = append(args, strings.ToLower(q.Opponent))
	}
	cond := strings.Join(where, " AND ")
	rep := &Report{}

	// Without a start, the tallies have the sums; with one, the games in
	// the range are read through the covering index (no GROUP BY: its sort
	// cost more than the scan) and summed here as the tallies' triggers
	// would (tallyTerms).
	type sum [8]int
	bySpeed, byOpp := map[string]*sum{}, map[string]*sum{}
	var total sum
	add := func(speed, opp string, v *sum) {
		for _, m := range []struct {
			m map[string]*sum
			k string
		}{{bySpeed, speed}, {byOpp, opp}} {
			if m.m[m.k] == nil {
				m.m[m.k] = &sum{}
			}
			for i := range v {
				m.m[m.k][i] += v[i]
			}
		}
		for i := range v {
			total[i] += v[i]
		}
	}
	var rows *sql.Rows
	var err error
	tcond := "1"
	if q.Opponent != "" {
		tcond = "opponent = ?"
	}
	// A range holding most of the games is the tallies less the games
	// before it: whichever side has fewer games is read.
	useTallies, gcond, sign := q.Since.IsZero(), cond, 1
	if !useTallies {
		var before, all int
		err := r.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM games WHERE "+strings.Replace(cond, "ended >= ?", "ended < ?", 1), args...).Scan(&before)
		if err == nil {
			err = r.db.QueryRowContext(ctx, "SELECT COALESCE(SUM(wins + draws + losses + aborted + other), 0) FROM tallies WHERE "+tcond, args[1:]...).Scan(&all)
		}
		if err != nil {
			return nil, err
		}
		if before < all-before {
			useTallies, gcond, sign = true, strings.Replace(cond, "ended >= ?", "ended < ?", 1), -1
		}
	}
	if useTallies {
		query := "SELECT speed, opponent, " + strings.Join(tallyColumns, ", ") + " FROM tallies WHERE " + tcond
		rows, err = r.db.QueryContext(ctx, query, args[1:]...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var speed, opp string
			var v sum
			dest := []any{&speed, &opp}
			for i := range v {
				dest = append(dest, &v[i])
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return nil, err
			}
			add(speed, opp, &v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if !q.Since.IsZero() {
		rows, err = r.db.QueryContext(ctx, "SELECT speed, opponent, result, opponent_rating FROM games WHERE "+gcond, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var speed, opp, result string
			var rating int
			if err := rows.Scan(&speed, &opp, &result, &rating); err != nil {
				rows.Close()
				return nil, err
			}
			ok, positive, n, ratings := rating >= 0 && rating <= 4000, rating > 0, 1, rating
			var v sum
			i := slices.Index([]string{Win, Draw, Loss, Aborted}, result)
			if i < 0 || !ok {
				i = 4 // other
			}
			v[i] = n
			if i < 3 && positive {
				v[5], v[6] = n, ratings
				switch i {
				case 0:
					v[7] = n
				case 2:
					v[7] = -n
				}
			}
			for i := range v {
				v[i] *= sign
			}
			add(speed, opp, &v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	tally := func(key string, v *sum) Tally { return tallyOf(key, v[0], v[1], v[2], v[5], v[6], v[7]) }
	if total[4] > 0 {
		rep.Errors = append(rep.Errors, fmt.Sprintf("%d games with a result this build does not know or a rating out of range are left out of the tables", total[4]))
	}
	rep.Total = tally("total", &total)
	for k, v := range bySpeed {
		if t := tally(k, v); t.Games > 0 {
			rep.BySpeed = append(rep.BySpeed, t)
		}
	}
	for k, v := range byOpp {
		if t := tally(k, v); t.Games > 0 {
			rep.ByOpponent = append(rep.ByOpponent, t)
		}
	}
	order := func(ts []Tally) {
		slices.SortFunc(ts, func(a, b Tally) int {
			if a.Games != b.Games {
				return b.Games - a.Games
			}
			return strings.Compare(a.Key, b.Key)
		})
	}
	order(rep.BySpeed)
	order(rep.ByOpponent)
	if len(rep.ByOpponent) > q.Opponents {
		rep.ByOpponent = rep.ByOpponent[:q.Opponents]
	}
	for i := range rep.ByOpponent {
		t := &rep.ByOpponent[i]
		if err := r.db.QueryRowContext(ctx, "SELECT name FROM tallies WHERE opponent = ? LIMIT 1", t.Key).Scan(&t.Name); err != nil && err != sql.ErrNoRows {
			return nil, err
		}
	}

	rows, err = r.db.QueryContext(ctx, "SELECT "+gameColumns+" FROM games WHERE "+cond+
		" ORDER BY ended DESC LIMIT ?", append(slices.Clone(args), q.Last)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		g, err := scanGame(rows)
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
			continue
		}
		rep.Last = append(rep.Last, g)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return rep, nil
}
