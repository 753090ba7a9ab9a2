package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/joho/godotenv"

	"github.com/ponderosa-chess/ponderosa/bot"
	"github.com/ponderosa-chess/ponderosa/bot/store"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// cmdBot runs the Lichess bot service (or, with --sandbox, the whole
// service against an in-process fake Lichess).
func cmdBot(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bot", "[--env FILE] [--engine CMD [--engine-protocol uci|xboard]] [--upgrade [--yes]] [--join ID]... [--sandbox [--games N]]", env)
	envFile := fs.String("env", ".env", "optional file of settings (KEY=value lines); real environment variables win")
	upgrade := fs.Bool("upgrade", false, "upgrade the token's account to a BOT account (IRREVERSIBLE) and exit")
	yes := fs.Bool("yes", false, "with --upgrade: do not ask for confirmation")
	sandbox := fs.Bool("sandbox", false, "play a few scripted games against an in-process fake Lichess (no token, no network)")
	games := fs.Int("games", 2, "with --sandbox: number of games to play")
	clock := fs.Duration("clock", time.Minute, "with --sandbox: initial clock of the games")
	inc := fs.Duration("increment", time.Second, "with --sandbox: increment of the games")
	engineCmd := fs.String("engine", "", "engine behind the bot: builtin or a command line (overrides PONDEROSA_ENGINE)")
	engineProto := fs.String("engine-protocol", "", "protocol of --engine: uci or xboard (overrides PONDEROSA_ENGINE_PROTOCOL)")
	settings := fs.Bool("settings", false, "list every setting with its default and exit")
	var join joinFlags
	fs.Var(&join, "join", "join this tournament too (repeatable): arena:ID, swiss:ID or a bare ID (an arena), optionally :team=T and :password=P, as in PONDEROSA_TOURNAMENTS")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *settings {
		for _, s := range config.Settings() {
			fmt.Fprintf(env.Stdout, "%s=%s\n    %s\n", s.Name, s.Default, s.Doc)
		}
		fmt.Fprint(env.Stdout, "\n"+bot.LimitsNote)
		return nil
	}
	getenv, err := withDotEnv(env.Getenv, *envFile, isFlagSet(fs, "env"))
	if err != nil {
		return err
	}
	getenv = withOverrides(getenv, map[string]string{"PONDEROSA_ENGINE": *engineCmd, "PONDEROSA_ENGINE_PROTOCOL": *engineProto})
	cfg, err := config.Load(getenv)
	if err != nil {
		return fmt.Errorf("invalid settings:\n%w", err)
	}
	if join.err != nil {
		return join.err
	}
	cfg.Tournaments = mergeTournaments(cfg.Tournaments, join.list)
	log := newLogger(env.Stderr, cfg)
	version := "ponderosa " + versionString()

	if *sandbox {
		if getenv("PONDEROSA_PGN_DIR") == "" {
			dir, err := os.MkdirTemp("", "ponderosa-sandbox-")
			if err != nil {
				return err
			}
			cfg.PGNDir = dir
		}
		_, err := runSandbox(ctx, cfg, sandboxOptions{Games: *games, Clock: *clock, Increment: *inc,
			StatusAddr: cfg.StatusAddr, Out: env.Stdout, Logger: log, Version: version})
		if err != nil && getenv("PONDEROSA_PGN_DIR") == "" {
			os.Remove(cfg.PGNDir) // only if still empty
		}
		return err
	}

	if err := cfg.RequireToken(); err != nil {
		return err
	}
	client := lichess.New(lichess.Options{BaseURL: cfg.URL, Token: cfg.Token.Reveal(), Logger: log,
		UserAgent: strings.ReplaceAll(version, " ", "/")})
	defer client.Close()
	info, err := client.TokenInfo(ctx)
	if err != nil {
		return fmt.Errorf("LICHESS_TOKEN: %w", err)
	}
	if !info.HasScope("bot:play") {
		return fmt.Errorf("LICHESS_TOKEN: the token lacks the bot:play scope (it has %q); create one at %s/account/oauth/token", info.Scopes, cfg.URL)
	}
	if *upgrade {
		return upgradeAccount(ctx, client, env, *yes)
	}
	if _, err := bot.CheckAccount(ctx, client); err != nil {
		return err
	}
	mem, closeMem := openStore(cfg, log)
	defer closeMem()
	svc := bot.New(cfg, client, bot.Options{Logger: log, Version: version, Store: mem})
	return svc.Run(ctx)
}

// withDotEnv returns a getenv that falls back to the variables of the file
// at path: the real environment wins, as with godotenv.Load, but the
// process environment is not modified. A missing file is an error only
// when it was named explicitly.
func withDotEnv(getenv func(string) string, path string, explicit bool) (func(string) string, error) {
	vals, err := godotenv.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return getenv, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return vals[k]
	}, nil
}

// withOverrides returns a getenv where the non-empty values of over win.
func withOverrides(getenv func(string) string, over map[string]string) func(string) string {
	return func(k string) string {
		if v := over[k]; v != "" {
			return v
		}
		return getenv(k)
	}
}

// isFlagSet reports whether the flag was given on the command line.
func isFlagSet(set *flag.FlagSet, name string) bool {
	found := false
	set.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}

// newLogger builds the slog logger the settings ask for.
func newLogger(w io.Writer, cfg config.Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// upgradeAccount turns the account into a BOT account after a warning.
func upgradeAccount(ctx context.Context, client *lichess.Client, env *Env, yes bool) error {
	me, err := client.Account(ctx)
	if err != nil {
		return err
	}
	if me.IsBot() {
		fmt.Fprintf(env.Stdout, "%s is already a BOT account.\n", me.Username)
		return nil
	}
	fmt.Fprintf(env.Stderr, "WARNING: upgrading %s to a BOT account is IRREVERSIBLE.\n"+
		"A BOT account can only play through the Bot API, and Lichess only upgrades accounts that have never played a game.\n", me.Username)
	if !yes {
		fmt.Fprintf(env.Stderr, "Type the account name (%s) to confirm: ", me.Username)
		line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		if !strings.EqualFold(strings.TrimSpace(line), me.Username) {
			return errors.New("upgrade cancelled")
		}
	}
	if err := client.UpgradeToBot(ctx); err != nil {
		return fmt.Errorf("upgrade: %w", err)
	}
	fmt.Fprintf(env.Stdout, "%s is now a BOT account. Start the bot with 'ponderosa bot'.\n", me.Username)
	return nil
}

// openStore opens the bot's memory in PONDEROSA_DATA_DIR. A database that
// cannot be opened (a read-only or full disk, a newer schema) never stops
// the bot: it is logged once and the bot runs in memory, degraded.
func openStore(cfg config.Config, log *slog.Logger) (store.Store, func()) {
	if cfg.DataDir == "" {
		return store.NewMemory(), func() {}
	}
	db, err := store.Open(cfg.DataDir, store.Options{Logger: log, HistoryDays: cfg.HistoryDays})
	if err != nil {
		log.Error("the bot's memory cannot be saved; playing on in memory", "data_dir", cfg.DataDir, "err", err)
		return store.Fallback(err), func() {}
	}
	log.Info("memory", "file", db.Path(), "history_days", cfg.HistoryDays)
	return db, func() {
		if err := db.Close(); err != nil {
			log.Warn("closing the database", "err", err)
		}
	}
}

// joinFlags collects the repeatable --join flag. A bad value is kept as
// err and reported after parsing: the flag package's own message would
// quote the value, password included.
type joinFlags struct {
	list []config.Tournament
	err  error
}

func (j *joinFlags) String() string {
	var s []string
	for _, t := range j.list {
		s = append(s, t.String())
	}
	return strings.Join(s, ",")
}

func (j *joinFlags) Set(v string) error {
	t, err := config.ParseTournament(v)
	if err != nil {
		j.err = errors.Join(j.err, fmt.Errorf("--join: %w", err))
		return nil
	}
	j.list = append(j.list, t)
	return nil
}

// mergeTournaments adds the --join tournaments to the configured ones; a
// tournament named in both is joined once, with the flag's team and
// password.
func mergeTournaments(cfg []config.Tournament, flags []config.Tournament) []config.Tournament {
	out := append([]config.Tournament(nil), cfg...)
	for _, t := range flags {
		replaced := false
		for i := range out {
			if out[i].Key() == t.Key() {
				out[i], replaced = t, true
			}
		}
		if !replaced {
			out = append(out, t)
		}
	}
	return out
}
