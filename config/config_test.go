package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/joho/godotenv"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaults(t *testing.T) {
	c, err := Load(env(map[string]string{"LICHESS_TOKEN": "lip_abc123"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != "https://lichess.org" {
		t.Errorf("URL = %q", c.URL)
	}
	if c.Token.Reveal() != "lip_abc123" {
		t.Errorf("token not kept")
	}
	p := c.Policy
	if !slices.Equal(p.Variants, []string{"standard", "chess960", "fromPosition"}) {
		t.Errorf("variants = %v", p.Variants)
	}
	if !slices.Equal(p.Speeds, []string{"bullet", "blitz", "rapid", "classical"}) {
		t.Errorf("speeds = %v", p.Speeds)
	}
	if !p.Rated || !p.Casual || !p.Bots || !p.Humans || p.Correspondence || p.Unlimited {
		t.Errorf("policy flags = %+v", p)
	}
	if p.MaxGames < 2 || p.MaxGames > 8 {
		t.Errorf("max games = %d, want a few", p.MaxGames)
	}
	if p.MaxCorrespondence != 50 || c.Game.CorrespondenceCheckin != 10*time.Minute || c.Game.CorrespondenceDisconnect != 150*time.Second {
		t.Errorf("correspondence: %d games, check-in %v, disconnect %v", p.MaxCorrespondence, c.Game.CorrespondenceCheckin, c.Game.CorrespondenceDisconnect)
	}
	if c.Game.Resign || c.Game.Takebacks || !c.Game.AcceptDraws {
		t.Errorf("game = %+v", c.Game)
	}
	if c.StatusAddr != "" || c.LogFormat != "text" || c.LogLevel != slog.LevelInfo {
		t.Errorf("ops = %q %q %v", c.StatusAddr, c.LogFormat, c.LogLevel)
	}
	if c.Shutdown.Mode != ShutdownWait || c.Shutdown.DrainTimeout != 2*time.Minute {
		t.Errorf("shutdown = %+v", c.Shutdown)
	}
	if err := c.RequireToken(); err != nil {
		t.Error(err)
	}
}

// TestEveryDefaultLoads checks that the documented defaults are valid and
// that Load with nothing set uses exactly them.
func TestEveryDefaultLoads(t *testing.T) {
	empty, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, s := range Settings() {
		m[s.Name] = s.Default
	}
	explicit, err := Load(env(m))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", empty) != fmt.Sprintf("%+v", explicit) {
		t.Errorf("defaults differ:\n%+v\n%+v", empty, explicit)
	}
	if err := empty.RequireToken(); err == nil || !strings.HasPrefix(err.Error(), "LICHESS_TOKEN: ") {
		t.Errorf("RequireToken with no token = %v", err)
	}
}

func TestSettingsDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Settings() {
		if seen[s.Name] {
			t.Errorf("duplicate setting %s", s.Name)
		}
		seen[s.Name] = true
		if s.Doc == "" {
			t.Errorf("%s has no doc", s.Name)
		}
		if s.Name != "LICHESS_TOKEN" && s.Name != "LICHESS_URL" && !strings.HasPrefix(s.Name, "PONDEROSA_") {
			t.Errorf("%s: unexpected prefix", s.Name)
		}
	}
}

func TestInvalidNamed(t *testing.T) {
	cases := []struct{ name, value, want string }{
		{"LICHESS_TOKEN", "abc def", "letters, digits and underscores"},
		{"LICHESS_URL", "ftp://x", "http"},
		{"LICHESS_URL", "lichess.org", "http"},
		{"LICHESS_URL", "http://lichess.org", "loopback"},
		{"LICHESS_URL", "http://192.168.1.5:8080", "loopback"},
		{"PONDEROSA_MAX_GAMES", "x", `PONDEROSA_MAX_GAMES: must be an integer from 1 to 64, got "x"`},
		{"PONDEROSA_MAX_GAMES", "0", "from 1 to 64"},
		{"PONDEROSA_MAX_GAMES", "65", "from 1 to 64"},
		{"PONDEROSA_HASH_MB", "-1", "from 1 to 4096"},
		{"PONDEROSA_PONDER", "maybe", "true or false"},
		{"PONDEROSA_MOVE_OVERHEAD", "50", "duration"},
		{"PONDEROSA_MOVE_OVERHEAD", "-1s", "duration"},
		{"PONDEROSA_VARIANTS", "standard,atomic", `unknown value "atomic"`},
		{"PONDEROSA_VARIANTS", ",", "at least one"},
		{"PONDEROSA_SPEEDS", "correspondence", "unknown value"},
		{"PONDEROSA_ALLOW", "ok_user,bad user", "invalid username"},
		{"PONDEROSA_EXPLORER_DB", "chessbase", "masters, lichess or player"},
		{"PONDEROSA_EXPLORER_PLAYER", "no such user!", "username"},
		{"PONDEROSA_EXPLORER_RATINGS", "1600,1700", `unknown value "1700"`},
		{"PONDEROSA_EXPLORER_SPEEDS", "blitz,fast", `unknown value "fast"`},
		{"PONDEROSA_EXPLORER_MODES", "rated,friendly", `unknown value "friendly"`},
		{"PONDEROSA_BLOCK", "x", "invalid username"},
		{"PONDEROSA_GREETING", strings.Repeat("a", 141), "140"},
		{"PONDEROSA_GOODBYE", "a\nb", "control"},
		{"PONDEROSA_LOG_FORMAT", "xml", "text or json"},
		{"PONDEROSA_LOG_LEVEL", "loud", "debug, info"},
		{"PONDEROSA_STATUS_ADDR", "8080", "host:port"},
		{"PONDEROSA_STATUS_ADDR", "localhost:99999", "port"},
		{"PONDEROSA_SHUTDOWN", "later", "wait or leave"},
		{"PONDEROSA_DRAIN_TIMEOUT", "4h", "duration"},
		{"PONDEROSA_ABORT_AFTER", "1s", "duration"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS", "3+2,7", "bad time control"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS", "0.4+0", "minutes must be"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS", "0.25+0", "UltraBullet"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS", "3+61", "bad time control"},
		{"PONDEROSA_MATCHMAKING_TIME_CONTROLS", " , ", "at least one"},
		{"PONDEROSA_MATCHMAKING_IDLE", "0s", "duration"},
		{"PONDEROSA_MAX_CORRESPONDENCE_GAMES", "0", "from 1 to 200"},
		{"PONDEROSA_MAX_CORRESPONDENCE_GAMES", "201", "from 1 to 200"},
		{"PONDEROSA_CORRESPONDENCE_CHECKIN", "500ms", "duration"},
		{"PONDEROSA_CORRESPONDENCE_CHECKIN", "25h", "duration"},
		{"PONDEROSA_CORRESPONDENCE_DISCONNECT", "-1s", "duration"},
		{"PONDEROSA_CORRESPONDENCE_DISCONNECT", "2h", "duration"},
		{"PONDEROSA_CORRESPONDENCE_MOVE_TIME", "5ms", "duration"},
	}
	for _, tc := range cases {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			_, err := Load(env(map[string]string{tc.name: tc.value}))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tc.name+": ") {
				t.Errorf("error does not start with the name: %q", msg)
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not mention %q", msg, tc.want)
			}
		})
	}
}

func TestErrorsJoined(t *testing.T) {
	_, err := Load(env(map[string]string{
		"PONDEROSA_MAX_GAMES":  "many",
		"PONDEROSA_LOG_FORMAT": "xml",
		"LICHESS_URL":          "nope",
	}))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 errors, got %q", lines)
	}
}

func TestCrossChecks(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"PONDEROSA_MIN_BASE": "10m", "PONDEROSA_MAX_BASE": "5m"}, "PONDEROSA_MIN_BASE: "},
		{map[string]string{"PONDEROSA_MIN_INCREMENT": "10s", "PONDEROSA_MAX_INCREMENT": "5s"}, "PONDEROSA_MIN_INCREMENT: "},
		{map[string]string{"PONDEROSA_ACCEPT_RATED": "false", "PONDEROSA_ACCEPT_CASUAL": "no"}, "PONDEROSA_ACCEPT_RATED: "},
		{map[string]string{"PONDEROSA_ACCEPT_BOTS": "0", "PONDEROSA_ACCEPT_HUMANS": "off"}, "PONDEROSA_ACCEPT_BOTS: "},
		{map[string]string{"PONDEROSA_ALLOW": "alice", "PONDEROSA_BLOCK": "Alice"}, "PONDEROSA_ALLOW: "},
	}
	for _, tc := range cases {
		_, err := Load(env(tc.env))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want prefix %q", tc.env, err, tc.want)
		}
	}
}

func TestParsedValues(t *testing.T) {
	c, err := Load(env(map[string]string{
		"LICHESS_URL":                         "http://127.0.0.1:9999/",
		"PONDEROSA_VARIANTS":                  " Standard , CHESS960,standard",
		"PONDEROSA_SPEEDS":                    "ultrabullet,bullet",
		"PONDEROSA_ALLOW":                     "Alice, bob-2",
		"PONDEROSA_GREETING":                  "none",
		"PONDEROSA_PGN_DIR":                   "NONE",
		"PONDEROSA_STATUS_ADDR":               "127.0.0.1:0",
		"PONDEROSA_MOVE_OVERHEAD":             "120ms",
		"PONDEROSA_SHUTDOWN":                  "Leave",
		"PONDEROSA_LOG_LEVEL":                 "DEBUG",
		"PONDEROSA_LOG_FORMAT":                "json",
		"PONDEROSA_MAX_BASE":                  "10m",
		"PONDEROSA_CORRESPONDENCE":            "yes",
		"PONDEROSA_EXPLORER_DB":               "player",
		"PONDEROSA_EXPLORER_PLAYER":           "Alice",
		"PONDEROSA_EXPLORER_RATINGS":          "2500, 1600,0",
		"PONDEROSA_EXPLORER_SPEEDS":           "Blitz,rapid",
		"PONDEROSA_EXPLORER_MODES":            "rated",
		"PONDEROSA_MAX_CORRESPONDENCE_GAMES":  "200",
		"PONDEROSA_CORRESPONDENCE_CHECKIN":    "90s",
		"PONDEROSA_CORRESPONDENCE_DISCONNECT": "0",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if src := c.Sources; src.ExplorerDB != "player" || src.ExplorerPlayer != "alice" || !slices.Equal(src.ExplorerRatings, []int{0, 1600, 2500}) ||
		!slices.Equal(src.ExplorerSpeeds, []string{"blitz", "rapid"}) || !slices.Equal(src.ExplorerModes, []string{"rated"}) {
		t.Errorf("explorer settings %+v", src)
	}
	if c.URL != "http://127.0.0.1:9999" {
		t.Errorf("URL = %q", c.URL)
	}
	if !slices.Equal(c.Policy.Variants, []string{"standard", "chess960"}) {
		t.Errorf("variants = %v", c.Policy.Variants)
	}
	if !slices.Equal(c.Policy.Speeds, []string{"ultraBullet", "bullet"}) {
		t.Errorf("speeds = %v", c.Policy.Speeds)
	}
	if !slices.Equal(c.Policy.Allow, []string{"alice", "bob-2"}) {
		t.Errorf("allow = %v", c.Policy.Allow)
	}
	if c.Chat.Greeting != "" || c.PGNDir != "" || c.StatusAddr != "127.0.0.1:0" {
		t.Errorf("greeting %q pgn %q status %q", c.Chat.Greeting, c.PGNDir, c.StatusAddr)
	}
	if c.Engine.MoveOverhead != 120*time.Millisecond || c.Shutdown.Mode != ShutdownLeave ||
		c.LogLevel != slog.LevelDebug || c.LogFormat != "json" || c.Policy.MaxBase != 10*time.Minute ||
		!c.Policy.Correspondence {
		t.Errorf("parsed %+v", c)
	}
	if c.Policy.MaxCorrespondence != 200 || c.Game.CorrespondenceCheckin != 90*time.Second || c.Game.CorrespondenceDisconnect != 0 {
		t.Errorf("correspondence: %d games, check-in %v, disconnect %v", c.Policy.MaxCorrespondence, c.Game.CorrespondenceCheckin, c.Game.CorrespondenceDisconnect)
	}
}

// TestTokenNeverPrinted checks every printing path of the config.
func TestMatchmakingTimeControls(t *testing.T) {
	c, err := Load(env(map[string]string{"PONDEROSA_MATCHMAKING_TIME_CONTROLS": "0.5+1, 1+0,3+2,180+60"}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range c.Matchmaking.TimeControls {
		got = append(got, tc.String())
	}
	if strings.Join(got, ",") != "0.5+1,1+0,3+2,180+60" {
		t.Errorf("time controls %v", got)
	}
	if c.Matchmaking.Enabled || c.Matchmaking.Idle != 2*time.Minute {
		t.Errorf("matchmaking defaults %+v", c.Matchmaking)
	}
}

func TestTokenNeverPrinted(t *testing.T) {
	const tok = "lip_SuperSecretValue42"
	c, err := Load(env(map[string]string{"LICHESS_TOKEN": tok}))
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, f := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v"} {
		outs = append(outs, fmt.Sprintf(f, c), fmt.Sprintf(f, c.Token), fmt.Sprintf(f, &c))
	}
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(js), c.Token.String(), c.Token.GoString())
	var b strings.Builder
	log := slog.New(slog.NewJSONHandler(&b, nil))
	log.Info("x", "token", c.Token, "config", c)
	slog.New(slog.NewTextHandler(&b, nil)).Info("x", "token", c.Token)
	outs = append(outs, b.String())
	for _, o := range outs {
		if strings.Contains(o, tok) || strings.Contains(o, "SuperSecret") ||
			strings.Contains(strings.ToLower(o), strings.ToLower(fmt.Sprintf("%x", tok))) {
			t.Fatalf("token leaked: %s", o)
		}
	}
	if !strings.Contains(fmt.Sprint(c.Token), "***") {
		t.Errorf("redaction marker missing")
	}
	// An invalid token is not echoed in the error either.
	_, err = Load(env(map[string]string{"LICHESS_TOKEN": "lip_Secret Value"}))
	if err == nil || strings.Contains(err.Error(), "Secret") {
		t.Errorf("error leaks or missing: %v", err)
	}
}

func TestDotEnv(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/.env"
	content := "LICHESS_TOKEN=lip_fromfile\nPONDEROSA_MAX_GAMES=5\n# comment\nPONDEROSA_GREETING=\"Hello {opponent}!\"\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := godotenv.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	real := map[string]string{"PONDEROSA_MAX_GAMES": "2"}
	getenv := func(k string) string {
		if v, ok := real[k]; ok { // the real environment wins, like godotenv.Load
			return v
		}
		return m[k]
	}
	c, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if c.Token.Reveal() != "lip_fromfile" || c.Policy.MaxGames != 2 || c.Chat.Greeting != "Hello {opponent}!" {
		t.Errorf("got %v %d %q", c.Token.Reveal() == "lip_fromfile", c.Policy.MaxGames, c.Chat.Greeting)
	}
}

// FuzzLoad feeds arbitrary values to a few settings: Load must never panic,
// and every error line must start with a known setting name.
func FuzzLoad(f *testing.F) {
	f.Add("PONDEROSA_MAX_GAMES", "3", "x")
	f.Add("LICHESS_URL", "http://[::1]:80", "standard")
	f.Add("PONDEROSA_VARIANTS", "chess960,,", "1m")
	f.Add("PONDEROSA_STATUS_ADDR", ":0", "\x00")
	f.Add("PONDEROSA_ALLOW", "a,b,c", "-5s")
	f.Add("PONDEROSA_BOOKS", "a.bin:speeds=bullet:select=best;b.bin:name=b2:max_ply=3", "x.bin:min_weight=2")
	names := map[string]bool{}
	for _, s := range Settings() {
		names[s.Name] = true
	}
	f.Fuzz(func(t *testing.T, name, v1, v2 string) {
		m := map[string]string{name: v1}
		for i, s := range Settings() {
			if i%3 == len(v2)%3 {
				m[s.Name] = v2
			}
		}
		m[name] = v1
		c, err := Load(env(m))
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				n, _, ok := strings.Cut(line, ": ")
				if !ok || !names[n] {
					t.Fatalf("error line without a setting name: %q", line)
				}
			}
			var je interface{ Unwrap() []error }
			if !errors.As(err, &je) {
				t.Fatalf("error is not joined: %T", err)
			}
			return
		}
		if c.Policy.MaxGames < 1 || len(c.Policy.Variants) == 0 || len(c.Policy.Speeds) == 0 ||
			c.Policy.MinBase > c.Policy.MaxBase || c.Engine.HashMB < 1 {
			t.Fatalf("invalid config accepted: %+v", c)
		}
	})
}

func TestExternalEngine(t *testing.T) {
	c, err := Load(env(map[string]string{
		"PONDEROSA_ENGINE":          `/opt/lc0/lc0 --weights="/nets/t2 big.pb" --backend=cuda`,
		"PONDEROSA_ENGINE_PROTOCOL": "uci",
		"PONDEROSA_ENGINE_OPTIONS":  "Threads=2, Hash=128,SyzygyPath=/tb",
		"PONDEROSA_ENGINE_DIR":      "/opt/lc0",
	}))
	if err != nil {
		t.Fatal(err)
	}
	e := c.Engine
	if strings.Join(e.Command, "|") != "/opt/lc0/lc0|--weights=/nets/t2 big.pb|--backend=cuda" ||
		e.Protocol != "uci" || e.Dir != "/opt/lc0" || fmt.Sprint(e.Options) != "[{Threads 2} {Hash 128} {SyzygyPath /tb}]" {
		t.Errorf("%+v", e)
	}
	if c, err := Load(env(nil)); err != nil || c.Engine.Command != nil || c.Engine.Protocol != "uci" {
		t.Errorf("default: %+v, %v", c.Engine, err)
	}
	for _, bad := range []map[string]string{
		{"PONDEROSA_ENGINE": `stockfish "unterminated`},
		{"PONDEROSA_ENGINE": "stockfish", "PONDEROSA_ENGINE_PROTOCOL": "cecp"},
		{"PONDEROSA_ENGINE": "stockfish", "PONDEROSA_ENGINE_OPTIONS": "Hash"},
		{"PONDEROSA_ENGINE": "stockfish", "PONDEROSA_ENGINE_OPTIONS": "Move Overhead=100"},
		{"PONDEROSA_ENGINE_OPTIONS": "Hash=64"}, // builtin
		{"PONDEROSA_ENGINE_PROTOCOL": "xboard"}, // builtin
	} {
		_, err := Load(env(bad))
		if err == nil || !strings.Contains(err.Error(), "PONDEROSA_ENGINE") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
