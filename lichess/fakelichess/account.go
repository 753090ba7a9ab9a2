package fakelichess

// The account endpoints: the bot's profile, the upgrade to a bot account,
// token tests, online bots and the games in progress.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
)

func perfsJSON(rating int) map[string]any {
	p := func(games int) map[string]any {
		return map[string]any{"games": games, "rating": rating, "rd": 60, "prog": 0, "prov": games < 20}
	}
	return map[string]any{
		"bullet": p(120), "blitz": p(80), "rapid": p(10), "classical": p(0),
		"correspondence": p(0), "chess960": p(5),
	}
}

func userJSON(p Player) map[string]any {
	m := map[string]any{
		"id": p.ID, "username": p.Name, "perfs": perfsJSON(p.Rating),
		"createdAt": int64(1700000000000), "seenAt": time.Now().UnixMilli(),
		"playTime": map[string]int{"total": 3600, "tv": 0},
		"url":      "https://lichess.org/@/" + p.Name,
	}
	if p.Title != "" {
		m["title"] = p.Title
	}
	return m
}

func (s *Server) handleAccount(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p := s.bot
	if !s.isBot {
		p.Title = ""
	}
	n := len(s.games)
	s.mu.Unlock()
	u := userJSON(p)
	u["count"] = map[string]int{"all": n, "rated": 0}
	u["disabled"] = false
	writeJSON(w, http.StatusOK, u)
}

func (s *Server) handleUpgrade(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isBot {
		writeError(w, http.StatusBadRequest, "This account is already a bot account")
		return
	}
	if len(s.games) > 0 {
		writeError(w, http.StatusBadRequest, "This account has played games and cannot be upgraded")
		return
	}
	s.isBot = true
	s.notify()
	writeOK(w)
}

func (s *Server) handleTokenTest(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	out := map[string]any{}
	s.mu.Lock()
	ok := s.tokenOK
	s.mu.Unlock()
	for _, t := range strings.Split(string(body), ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if t == s.opts.Token && ok {
			out[t] = map[string]any{"userId": s.bot.ID, "scopes": "bot:play,challenge:read,challenge:write", "expires": nil}
		} else {
			out[t] = nil
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleOnline(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	nb := 100
	if v := r.URL.Query().Get("nb"); v != "" {
		_, _ = fmt.Sscan(v, &nb)
	}
	enc := json.NewEncoder(w)
	for i, p := range s.opts.OnlineBots {
		if i >= nb {
			break
		}
		_ = enc.Encode(userJSON(p))
	}
}

// handlePlaying lists the games in progress as lila does: the games where
// the bot is to move first, the most urgent (least time left) first, then
// the others; nb is 9 by default and at most 50.
func (s *Server) handlePlaying(w http.ResponseWriter, r *http.Request) {
	nb := 9
	if v := r.URL.Query().Get("nb"); v != "" {
		_, _ = fmt.Sscan(v, &nb)
	}
	nb = min(max(nb, 1), 50)
	type entry struct {
		info   map[string]any
		myTurn bool
		left   int
	}
	s.mu.Lock()
	var all []entry
	myTurn := 0
	for _, id := range s.order {
		g := s.games[id]
		if g.status != statusStarted {
			continue
		}
		info := g.eventInfo(s, false)
		e := entry{info: info, myTurn: info["isMyTurn"] == true, left: math.MaxInt}
		if sl, ok := info["secondsLeft"].(int); ok {
			e.left = sl
		}
		if e.myTurn {
			myTurn++
		}
		all = append(all, e)
	}
	s.mu.Unlock()
	slices.SortStableFunc(all, func(a, b entry) int {
		if a.myTurn != b.myTurn {
			if a.myTurn {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.left, b.left)
	})
	list := []any{}
	for _, e := range all[:min(nb, len(all))] {
		list = append(list, e.info)
	}
	writeJSON(w, http.StatusOK, map[string]any{"nowPlaying": list, "nbMyTurn": myTurn})
}
