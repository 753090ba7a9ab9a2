package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/config"
)

// cmdHistory prints what the bot remembers: the last games and the results
// by speed and by opponent. It opens the database read-only, so it works
// while the bot runs; --backup copies the database.
func cmdHistory(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("history", "[--json] [--opponent ID] [--since DATE|DAYSd] [--last N] [--backup FILE] [--data-dir DIR | --db FILE]", env)
	envFile := fs.String("env", ".env", "optional file of settings (KEY=value lines) for PONDEROSA_DATA_DIR; real environment variables win")
	dataDir := fs.String("data-dir", "", "the bot's data directory (default PONDEROSA_DATA_DIR, else "+defaultDataDir()+")")
	dbFile := fs.String("db", "", "the database file itself (instead of DIR/"+store.FileName+")")
	asJSON := fs.Bool("json", false, "print JSON for machines")
	opponent := fs.String("opponent", "", "only the games against this Lichess user")
	since := fs.String("since", "", "only the games that ended since a date (2006-01-02, or an RFC 3339 time) or for a number of days (30d)")
	last := fs.Int("last", 20, "how many of the latest games to list")
	opponents := fs.Int("opponents", 20, "how many opponents to list (those with the most games)")
	backup := fs.String("backup", "", "copy the database to this new file (safe while the bot runs) and exit")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	path := *dbFile
	if path == "" {
		dir := *dataDir
		if dir == "" {
			getenv, err := withDotEnv(env.Getenv, *envFile, isFlagSet(fs, "env"))
			if err != nil {
				return err
			}
			dir = getenv("PONDEROSA_DATA_DIR")
			if dir == "" {
				dir = defaultDataDir()
			}
			if strings.EqualFold(dir, "none") {
				return errors.New("PONDEROSA_DATA_DIR is none: the bot keeps no history")
			}
		}
		path = filepath.Join(dir, store.FileName)
	}
	q := store.Query{Opponent: *opponent, Last: *last, Opponents: *opponents}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintf(env.Stderr, "ponderosa history: --since: %v\n", err)
			return errUsage
		}
		q.Since = t
	}

	r, err := store.OpenReadOnly(ctx, path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no history at %s (the bot has not run with this data directory yet)", path)
	}
	if err != nil {
		return err
	}
	defer r.Close()
	if *backup != "" {
		if err := r.Backup(ctx, *backup); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "backed up %s to %s\n", path, *backup)
		return nil
	}
	rep, err := r.History(ctx, q)
	if err != nil {
		return err
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(env.Stderr, "ponderosa history: skipped: %s\n", e)
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printHistory(env.Stdout, path, q, rep)
	return nil
}

// defaultDataDir is PONDEROSA_DATA_DIR's default.
func defaultDataDir() string {
	for _, s := range config.Settings() {
		if s.Name == "PONDEROSA_DATA_DIR" {
			return s.Default
		}
	}
	return "ponderosa-data"
}

// parseSince reads a date, an RFC 3339 time, or a number of days ("30d").
func parseSince(v string, now time.Time) (time.Time, error) {
	if d, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 || n > 36500 {
			return time.Time{}, fmt.Errorf("%q: a number of days is 0 to 36500 followed by d", v)
		}
		return now.AddDate(0, 0, -n), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", v, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2006-01-02), an RFC 3339 time or a number of days (30d)", v)
}

// printHistory writes the report as tables for a person.
func printHistory(w io.Writer, path string, q store.Query, rep *store.Report) {
	scope := "all the games kept"
	if !q.Since.IsZero() {
		scope = "games since " + q.Since.Local().Format("2006-01-02 15:04")
	}
	if q.Opponent != "" {
		scope += " against " + q.Opponent
	}
	fmt.Fprintf(w, "%s: %s\n", path, scope)
	if rep.Total.Games == 0 && len(rep.Last) == 0 {
		fmt.Fprintln(w, "\nNo games.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nLast games\nended\topponent\tspeed\tcolour\tresult\tplies\tend\t\n")
	for _, g := range rep.Last {
		opp := g.OpponentName
		if g.OpponentTitle != "" {
			opp = g.OpponentTitle + " " + opp
		}
		if g.OpponentRating > 0 {
			opp += fmt.Sprintf(" (%d)", g.OpponentRating)
		}
		rated := ""
		if g.Rated {
			rated = " rated"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s%s\t%s\t%s\t%d\t%s\t\n", g.Ended.Local().Format("2006-01-02 15:04"), opp,
			g.Speed, rated, g.Color, g.Result, g.Plies, g.Termination)
	}
	tally := func(title, key string, ts []store.Tally) {
		fmt.Fprintf(tw, "\n%s\n%s\tgames\tW\tD\tL\tscore\tperformance\t\n", title, key)
		for _, t := range ts {
			name := t.Key
			if t.Name != "" {
				name = t.Name
			}
			perf := "-"
			if t.Performance > 0 {
				perf = strconv.Itoa(t.Performance)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.1f%%\t%s\t\n", name, t.Games, t.Wins, t.Draws, t.Losses, 100*t.Score, perf)
		}
	}
	tally("By speed", "speed", append(rep.BySpeed, rep.Total))
	title := "By opponent"
	if len(rep.ByOpponent) == q.Opponents {
		title = fmt.Sprintf("By opponent (the %d with the most games)", q.Opponents)
	}
	tally(title, "opponent", rep.ByOpponent)
	tw.Flush()
	fmt.Fprintln(w, "\nAborted games are listed but not counted. Performance: the opponents' average rating + 400 x (wins - losses) / games.")
}
