package fakelichess

// The JSON shapes of games: gameFull, gameState, the event stream's game
// objects, variants and perfs, as the Bot API spells them.

import (
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

var variantNames = map[string][2]string{
	"standard": {"Standard", "Std"}, "chess960": {"Chess960", "960"}, "fromPosition": {"From Position", "FEN"},
	"crazyhouse": {"Crazyhouse", "Crazy"}, "antichess": {"Antichess", "Anti"}, "atomic": {"Atomic", "Atom"},
	"horde": {"Horde", "Horde"}, "kingOfTheHill": {"King of the Hill", "KotH"}, "racingKings": {"Racing Kings", "Racing"},
	"threeCheck": {"Three-check", "3check"},
}

// playable reports whether the fake can play a variant by the rules.
func playable(variant string) bool {
	return variant == "standard" || variant == "chess960" || variant == "fromPosition"
}

func variantJSON(key string, short bool) map[string]string {
	n, ok := variantNames[key]
	if !ok {
		n = [2]string{key, key}
	}
	m := map[string]string{"key": key, "name": n[0]}
	if short {
		m["short"] = n[1]
	}
	return m
}

func perfName(key string) string {
	if n, ok := variantNames[key]; ok {
		return n[0]
	}
	if key == "ultraBullet" {
		return "UltraBullet"
	}
	return strings.ToUpper(key[:1]) + key[1:]
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

// stateJSON is the gameState object.
func (g *game) stateJSON(s *Server, now time.Time) map[string]any {
	m := map[string]any{"type": "gameState", "moves": strings.Join(g.moves, " "), "status": g.status}
	if g.hasClock {
		m["wtime"], m["btime"] = ms(g.remaining(board.White, now)), ms(g.remaining(board.Black, now))
		m["winc"], m["binc"] = ms(g.inc), ms(g.inc)
	} else if g.days > 0 {
		m["wtime"], m["btime"] = ms(g.corresLeft(board.White, now)), ms(g.corresLeft(board.Black, now))
		m["winc"], m["binc"] = 0, 0
	} else {
		m["wtime"], m["btime"], m["winc"], m["binc"] = unlimitedMillis, unlimitedMillis, 0, 0
	}
	if g.winner != "" {
		m["winner"] = g.winner
	}
	if g.draw[board.White] {
		m["wdraw"] = true
	}
	if g.draw[board.Black] {
		m["bdraw"] = true
	}
	if g.takeback[board.White] {
		m["wtakeback"] = true
	}
	if g.takeback[board.Black] {
		m["btakeback"] = true
	}
	if g.status == statusStarted && len(g.moves) < 2 && g.hasClock { // only a clock's game expires
		m["expiration"] = map[string]int64{"idleMillis": ms(now.Sub(g.lastMoveAt)), "millisToMove": ms(s.opts.FirstMoveTimeout)}
	}
	return m
}

func (g *game) playerJSON(s *Server, c board.Color) map[string]any {
	p := g.opp
	if c == g.botColor {
		p = s.bot
	} else if g.anonymous {
		return map[string]any{} // lila adds only what it knows: nothing
	}
	m := map[string]any{"id": p.ID, "name": p.Name, "rating": p.Rating, "title": nil}
	if p.Title != "" {
		m["title"] = p.Title
	}
	return m
}

func (g *game) fullJSON(s *Server) map[string]any {
	state := g.stateJSON(s, time.Now())
	m := map[string]any{
		"type": "gameFull", "id": g.id, "variant": variantJSON(g.variant, true),
		"speed": g.speed(), "perf": map[string]string{"name": perfName(g.perfKey())},
		"rated": g.rated, "createdAt": g.createdAt.UnixMilli(),
		"white": g.playerJSON(s, board.White), "black": g.playerJSON(s, board.Black),
		"initialFen": g.initialFEN, "state": state,
	}
	if g.tournament != "" {
		m["tournamentId"] = g.tournament
	}
	if g.hasClock {
		m["clock"] = map[string]int64{"initial": ms(g.initial), "increment": ms(g.inc)}
	} else if g.days > 0 {
		m["daysPerTurn"] = g.days
	}
	return m
}

// eventInfo is the GameEventInfo of gameStart/gameFinish and nowPlaying.
func (g *game) eventInfo(s *Server, finish bool) map[string]any {
	pos := g.g.Position()
	last := ""
	if len(g.moves) > 0 {
		last = g.moves[len(g.moves)-1]
	}
	m := map[string]any{
		"fullId": g.fullID, "gameId": g.id, "id": g.id, "color": colorName(g.botColor),
		"fen": pos.FEN(), "lastMove": last, "source": g.source,
		"status":  map[string]any{"id": statusIDs[g.status], "name": g.status},
		"variant": variantJSON(g.variant, false), "speed": g.speed(), "perf": g.perfKey(),
		"rated": g.rated, "hasMoved": g.botMoved(),
		"opponent": g.opponentJSON(),
		"isMyTurn": g.status == statusStarted && pos.SideToMove() == g.botColor,
		"rating":   s.bot.Rating, "compat": map[string]bool{"bot": true, "board": false},
	}
	if g.hasClock {
		m["secondsLeft"] = int(g.remaining(g.botColor, time.Now()).Seconds())
	} else if g.days > 0 {
		m["secondsLeft"] = int(g.corresLeft(g.botColor, time.Now()).Seconds())
	}
	if g.tournament != "" {
		m["tournamentId"] = g.tournament
	}
	if finish {
		if g.winner != "" {
			m["winner"] = g.winner
		}
		if g.rated {
			m["ratingDiff"] = 0
		}
	}
	return m
}

// opponentJSON is the opponent object of gameStart/gameFinish/nowPlaying;
// an anonymous one is {"id": null, "username": "Anon."} as in the API's
// account-playing-anon example.
func (g *game) opponentJSON() map[string]any {
	if g.anonymous {
		return map[string]any{"id": nil, "username": "Anon."}
	}
	return map[string]any{"id": g.opp.ID, "username": g.opp.Name, "rating": g.opp.Rating}
}
