package config

import (
	"errors"
	"fmt"
	"strings"
)

// Tournament kinds.
const (
	Arena = "arena"
	Swiss = "swiss"
)

// Tournament is one tournament the bot joins (PONDEROSA_TOURNAMENTS, or
// `ponderosa bot --join`).
type Tournament struct {
	// Kind is Arena or Swiss.
	Kind string
	// ID is Lichess's tournament id (the last part of its URL).
	ID string
	// Team is the team to play for in an arena team battle.
	Team string
	// Password is the tournament's password or the bot's entry code. It
	// is never shown (String hides it).
	Password string
}

// String shows the tournament as it is written, the password hidden.
func (t Tournament) String() string {
	s := t.Kind + ":" + t.ID
	if t.Team != "" {
		s += ":team=" + t.Team
	}
	if t.Password != "" {
		s += ":password=" + redacted
	}
	return s
}

// Key is the kind and id, which identify a tournament.
func (t Tournament) Key() string { return t.Kind + ":" + t.ID }

// ParseTournament reads one tournament: "arena:ID" or "swiss:ID", or a
// bare "ID" (an arena), each optionally followed by ":team=T" (arenas
// only) and ":password=P". The password comes last and takes the rest of
// the entry, so it may contain ':' (but not ',' in a list). Errors never
// show the password.
func ParseTournament(s string) (Tournament, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Tournament{}, errors.New("empty tournament")
	}
	var t Tournament
	rest := s
	var pw string
	hasPW := false
	if i := strings.Index(rest, ":password="); i >= 0 {
		rest, pw, hasPW = rest[:i], rest[i+len(":password="):], true
	} else if strings.HasPrefix(rest, "password=") {
		return Tournament{}, errors.New("a tournament starts with arena:ID, swiss:ID or an id, not password=")
	}
	parts := strings.Split(rest, ":")
	switch strings.ToLower(parts[0]) {
	case Arena, Swiss:
		t.Kind = strings.ToLower(parts[0])
		parts = parts[1:]
		if len(parts) == 0 {
			return Tournament{}, fmt.Errorf("%s: missing the tournament id (%s:ID)", t.Kind, t.Kind)
		}
	default:
		t.Kind = Arena
	}
	t.ID = parts[0]
	if err := checkTournamentID(t.ID); err != nil {
		return Tournament{}, err
	}
	for _, opt := range parts[1:] {
		k, v, ok := strings.Cut(opt, "=")
		switch {
		case !ok:
			return Tournament{}, fmt.Errorf("%s: option %q is not team=T or password=P", t.Key(), clipText(opt))
		case k == "team":
			if t.Kind == Swiss {
				return Tournament{}, fmt.Errorf("%s: team= is for arena team battles (a Swiss tournament belongs to its team already)", t.Key())
			}
			if t.Team != "" {
				return Tournament{}, fmt.Errorf("%s: team= given twice", t.Key())
			}
			if err := checkTeamID(v); err != nil {
				return Tournament{}, fmt.Errorf("%s: %w", t.Key(), err)
			}
			t.Team = v
		default:
			return Tournament{}, fmt.Errorf("%s: unknown option %q (team=T or password=P)", t.Key(), clipText(k))
		}
	}
	if hasPW {
		if pw == "" {
			return Tournament{}, fmt.Errorf("%s: empty password", t.Key())
		}
		if len(pw) > 200 {
			return Tournament{}, fmt.Errorf("%s: password longer than 200 bytes", t.Key())
		}
		for _, r := range pw {
			if r < ' ' || r == 0x7f || r == ',' {
				return Tournament{}, fmt.Errorf("%s: the password has a comma or a control character", t.Key())
			}
		}
		t.Password = pw
	}
	return t, nil
}

// ParseTournaments reads a comma-separated list of tournaments (see
// ParseTournament); empty means none. A tournament listed twice is an
// error.
func ParseTournaments(v string) ([]Tournament, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []Tournament
	seen := map[string]bool{}
	for i, item := range strings.Split(v, ",") {
		t, err := ParseTournament(item)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		if seen[t.Key()] {
			return nil, fmt.Errorf("entry %d: %s listed twice", i+1, t.Key())
		}
		seen[t.Key()] = true
		out = append(out, t)
	}
	if len(out) > 20 {
		return nil, fmt.Errorf("%d tournaments: at most 20 (Lichess allows about 30 joins per 10 minutes)", len(out))
	}
	return out, nil
}

// checkTournamentID accepts Lichess's ids: 1 to 20 ASCII letters and digits
// (lila makes 8).
func checkTournamentID(id string) error {
	if id == "" {
		return errors.New("missing the tournament id")
	}
	if len(id) > 20 {
		return fmt.Errorf("tournament id %q is too long (Lichess ids have 8 letters and digits)", clipText(id))
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return fmt.Errorf("tournament id %q: only letters and digits (the last part of the tournament's URL)", clipText(id))
		}
	}
	return nil
}

// checkTeamID accepts a team id as in its URL: lowercase letters, digits
// and '-' (1 to 60).
func checkTeamID(team string) error {
	if team == "" || len(team) > 60 {
		return errors.New("team= needs the team's id (1 to 60 characters, as in its URL)")
	}
	for _, r := range team {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("team %q: only lowercase letters, digits, '-' and '_' (the team's id, as in its URL)", clipText(team))
		}
	}
	return nil
}

// clipText shortens s for an error message.
func clipText(s string) string {
	r := []rune(s)
	if len(r) > 30 {
		return string(r[:30]) + "…"
	}
	return s
}
