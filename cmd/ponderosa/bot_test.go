package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/lichess/fakelichess"
)

func runBot(t *testing.T, getenv map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return getenv[k] }}
	err := run(context.Background(), append([]string{"bot"}, args...), env)
	return out.String(), errOut.String(), err
}

func TestBotSettingsList(t *testing.T) {
	out, _, err := runBot(t, nil, "--settings")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range config.Settings() {
		if !strings.Contains(out, s.Name+"="+s.Default+"\n") {
			t.Errorf("--settings does not show %s", s.Name)
		}
	}
	if !strings.Contains(out, "bot-vs-bot games exhausted until HH:MM") || !strings.Contains(out, "bot.vsBot.day") {
		t.Error("--settings does not explain the bot-vs-bot quota")
	}
}

func TestBotNeedsToken(t *testing.T) {
	dir := t.TempDir()
	_, _, err := runBot(t, nil, "--env", filepath.Join(dir, "none.env"))
	if err == nil || !strings.Contains(err.Error(), "none.env") {
		t.Errorf("explicit missing .env: %v", err)
	}
	t.Chdir(dir) // no .env here: the default path is optional
	_, _, err = runBot(t, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "LICHESS_TOKEN: required") {
		t.Errorf("no token: %v", err)
	}
}

func TestBotInvalidSettingNamed(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, "bot.env")
	if err := os.WriteFile(envFile, []byte("PONDEROSA_MAX_GAMES=lots\nPONDEROSA_LOG_FORMAT=json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The real environment wins over the file.
	_, _, err := runBot(t, map[string]string{"PONDEROSA_LOG_FORMAT": "yaml", "LICHESS_TOKEN": "lip_x"}, "--env", envFile)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, `PONDEROSA_MAX_GAMES: must be an integer from 1 to 64, got "lots"`) ||
		!strings.Contains(msg, `PONDEROSA_LOG_FORMAT: must be text or json, got "yaml"`) {
		t.Errorf("error: %v", err)
	}
}

func TestBotSandboxRejectsUltraBullet(t *testing.T) {
	_, _, err := runBot(t, nil, "--sandbox", "--clock", "10s", "--increment", "0s")
	if err == nil || !strings.Contains(err.Error(), "UltraBullet") {
		t.Errorf("err = %v", err)
	}
}

func TestBotUpgradeAgainstFake(t *testing.T) {
	srv := fakelichess.New(fakelichess.Options{NotBot: true})
	defer srv.Close()
	t.Chdir(t.TempDir())
	getenv := map[string]string{"LICHESS_URL": srv.URL(), "LICHESS_TOKEN": srv.Token()}
	// A non-BOT account: the bot refuses to start and points to --upgrade.
	_, _, err := runBot(t, getenv)
	if err == nil || !strings.Contains(err.Error(), "--upgrade") {
		t.Fatalf("non-BOT account: %v", err)
	}
	// --upgrade without confirmation is cancelled.
	_, errOut, err := runBot(t, getenv, "--upgrade")
	if err == nil || !strings.Contains(errOut, "IRREVERSIBLE") {
		t.Fatalf("unconfirmed upgrade: %v\n%s", err, errOut)
	}
	out, _, err := runBot(t, getenv, "--upgrade", "--yes")
	if err != nil || !strings.Contains(out, "is now a BOT account") {
		t.Fatalf("upgrade: %v\n%s", err, out)
	}
	if n := srv.CountRequests("POST", "/api/bot/account/upgrade"); n != 1 {
		t.Errorf("%d upgrade requests", n)
	}
	// A wrong token is reported against LICHESS_TOKEN, without the token.
	getenv["LICHESS_TOKEN"] = "lip_wrong_secret"
	_, _, err = runBot(t, getenv)
	if err == nil || !strings.HasPrefix(err.Error(), "LICHESS_TOKEN: ") || strings.Contains(err.Error(), "wrong_secret") {
		t.Errorf("wrong token: %v", err)
	}
}

// TestJoinFlag: --join is repeatable, takes PONDEROSA_TOURNAMENTS's syntax,
// never quotes a password in its error, and a tournament also in the
// setting is joined once with the flag's options.
func TestJoinFlag(t *testing.T) {
	var j joinFlags
	for _, v := range []string{"abc123", "swiss:Sw1:password=p:w", "arena:xyz:team=t1"} {
		if err := j.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Set("arena:bad-id:password=hunter22"); err != nil || j.err == nil || strings.Contains(j.err.Error(), "hunter22") {
		t.Fatalf("bad --join: %v", j.err)
	}
	if len(j.list) != 3 || j.list[0] != (config.Tournament{Kind: config.Arena, ID: "abc123"}) || j.list[1].Password != "p:w" {
		t.Fatalf("--join list = %+v", j.list)
	}
	got := mergeTournaments([]config.Tournament{{Kind: config.Arena, ID: "xyz"}, {Kind: config.Swiss, ID: "q"}}, j.list)
	if len(got) != 4 || got[0].Team != "t1" || got[1].ID != "q" || got[2].ID != "abc123" || got[3].Kind != config.Swiss {
		t.Fatalf("merged = %+v", got)
	}
}
