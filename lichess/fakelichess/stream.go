package fakelichess

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// sub is one open ndjson stream. The server pushes encoded lines under s.mu;
// the handler goroutine writes them.
type sub struct {
	lines   chan []byte   // nil line: end the stream cleanly after what is queued
	done    chan struct{} // closed: end now (server close, replaced event stream)
	dropped chan struct{} // closed: abort the connection (fault)
	once    sync.Once
	dOnce   sync.Once
	stalled bool // guarded by Server.mu
}

func newSub() *sub {
	return &sub{lines: make(chan []byte, 1024), done: make(chan struct{}), dropped: make(chan struct{})}
}

func (sb *sub) kick() { sb.once.Do(func() { close(sb.done) }) }
func (sb *sub) drop() { sb.dOnce.Do(func() { close(sb.dropped) }) }
func (sb *sub) stall() {
	sb.stalled = true
	sb.lines = nil // nothing more is written; pushes are dropped
}

// push queues one JSON value (or nil to end). Call with s.mu held.
func (s *Server) push(sb *sub, v any) {
	if sb.lines == nil {
		return
	}
	var line []byte
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			s.opts.Logger.Error("fakelichess: encoding line", "err", err)
			return
		}
		line = b
	}
	select {
	case sb.lines <- line:
	default:
		s.opts.Logger.Warn("fakelichess: stream reader too slow, closing it")
		sb.kick()
	}
}

// pushEvent sends a line to the event stream, if one is open. Call with s.mu held.
func (s *Server) pushEvent(v any) {
	if s.eventSub != nil {
		s.push(s.eventSub, v)
	}
}

// pushGame sends a line to every stream of a game (nil ends them). Call with s.mu held.
func (s *Server) pushGame(id string, v any) {
	for sb := range s.gameSubs[id] {
		s.push(sb, v)
	}
}

// serveStream writes a sub's lines and keep-alives until it ends.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, sb *sub, unregister func()) {
	defer func() {
		s.mu.Lock()
		unregister()
		delete(s.subs, sb)
		s.notify()
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	flush := func() {
		if fl != nil {
			fl.Flush()
		}
	}
	flush()
	s.mu.Lock()
	lines := sb.lines
	s.mu.Unlock()
	tick := time.NewTicker(s.opts.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case line := <-lines:
			if line == nil {
				return
			}
			if isStalled(s, sb) {
				continue
			}
			if _, err := w.Write(append(line, '\n')); err != nil {
				return
			}
			flush()
		case <-tick.C:
			if isStalled(s, sb) {
				continue
			}
			if _, err := w.Write([]byte("\n")); err != nil {
				return
			}
			flush()
		case <-sb.dropped:
			panic(http.ErrAbortHandler) // cut the connection mid-stream
		case <-sb.done:
			return
		case <-r.Context().Done():
			return
		}
	}
}

func isStalled(s *Server, sb *sub) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sb.stalled
}

func (s *Server) handleEventStream(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "closed")
		return
	}
	// Only one event stream per token: a new one closes the previous one.
	if s.eventSub != nil {
		s.eventSub.kick()
	}
	sb := newSub()
	s.eventSub = sb
	s.subs[sb] = true
	for _, id := range s.order {
		if g := s.games[id]; g.status == statusStarted {
			s.push(sb, map[string]any{"type": "gameStart", "game": g.eventInfo(s, false)})
		}
	}
	for _, id := range s.chOrder {
		if c := s.challenges[id]; c != nil && c.status == "created" {
			s.push(sb, c.event("challenge", s))
		}
	}
	s.notify()
	s.mu.Unlock()
	s.serveStream(w, r, sb, func() {
		if s.eventSub == sb {
			s.eventSub = nil
		}
	})
}

func (s *Server) handleGameStream(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	g := s.games[id]
	switch {
	case s.closed:
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "closed")
		return
	case !s.isBot:
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, "This endpoint can only be used with a Bot account.")
		return
	case g == nil:
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "No such game")
		return
	}
	// One stream per game, as lila keeps it: a second stream of the same
	// game closes the first.
	for old := range s.gameSubs[id] {
		old.kick()
	}
	sb := newSub()
	s.subs[sb] = true
	if s.gameSubs[id] == nil {
		s.gameSubs[id] = map[*sub]bool{}
	}
	s.gameSubs[id][sb] = true
	s.push(sb, g.fullJSON(s))
	if g.status != statusStarted {
		s.push(sb, nil)
	}
	s.notify()
	s.mu.Unlock()
	s.serveStream(w, r, sb, func() { delete(s.gameSubs[id], sb) })
}
