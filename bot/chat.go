package bot

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Chat rooms of a game.
const (
	roomPlayer    = "player"
	roomSpectator = "spectator"
)

// maxChat is the Lichess limit on a chat line, in characters.
const maxChat = 140

// chatView is what the chat commands may tell.
type chatView struct {
	Me, Opponent string
	// Version is the program's version ("ponderosa dev").
	Version string
	// Eval describes our latest search ("+0.35 at depth 12"); empty before
	// the first one.
	Eval string
	// EvalToOpponent lets !eval and !pv answer in the player room.
	EvalToOpponent bool
	// PV is the principal variation of our latest search, in SAN (nil
	// before the first); Pondering says it is a search on the opponent's
	// time.
	PV        []string
	Pondering bool
	// Source is where our last move came from (engine, book, ...).
	Source string
	// Queue describes the slots and the challenges waiting.
	Queue string
}

// expand replaces {me} and {opponent} in a configured message and clips it
// to the chat limit.
func expand(msg, me, opponent string) string {
	msg = strings.NewReplacer("{me}", me, "{opponent}", opponent).Replace(msg)
	return clipChat(msg)
}

// clipChat shortens s to maxChat characters.
func clipChat(s string) string {
	if utf8.RuneCountInString(s) <= maxChat {
		return s
	}
	r := []rune(s)
	return string(r[:maxChat-1]) + "…"
}

// chatReply answers a chat command. It returns ok=false for lines that are
// not commands, and for our own lines.
func chatReply(room, user, text string, v chatView) (reply string, ok bool) {
	if strings.EqualFold(user, v.Me) {
		return "", false
	}
	cmd, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	switch strings.ToLower(cmd) {
	case "!help", "!commands":
		if v.EvalToOpponent {
			return "Commands: !help, !eval, !pv, !name, !queue, !source", true
		}
		return "Commands: !help, !eval and !pv (spectators only), !name, !queue, !source", true
	case "!pv":
		if room == roomPlayer && !v.EvalToOpponent {
			return "I don't tell that to my opponent, sorry.", true
		}
		if len(v.PV) == 0 {
			return "No line yet.", true
		}
		prefix := "Line: "
		if v.Pondering {
			prefix = "Line (pondering): "
		}
		return clipChat(prefix + strings.Join(v.PV, " ")), true
	case "!queue":
		return clipChat(v.Queue), true
	case "!source":
		if v.Source == "" {
			return "I have not moved yet.", true
		}
		return clipChat("My last move came from: " + v.Source + "."), true
	case "!name":
		return clipChat(fmt.Sprintf("%s runs %s, with its own engine written in Go.", v.Me, v.Version)), true
	case "!eval":
		if room == roomPlayer && !v.EvalToOpponent {
			return "I don't tell that to my opponent, sorry.", true
		}
		if v.Eval == "" {
			return "No evaluation yet.", true
		}
		return clipChat("Evaluation: " + v.Eval), true
	}
	return "", false
}

// formatCP writes a centipawn score, from our point of view, the way chess
// sites show it: "+0.35", "-1.20", or "mate in 3" / "mated in 2".
func formatCP(cp int, mateIn int) string {
	if mateIn > 0 {
		return fmt.Sprintf("mate in %d", mateIn)
	}
	if mateIn < 0 {
		return fmt.Sprintf("mated in %d", -mateIn)
	}
	sign := "+"
	if cp < 0 {
		sign, cp = "-", -cp
	}
	return fmt.Sprintf("%s%d.%02d", sign, cp/100, cp%100)
}
