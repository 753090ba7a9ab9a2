package live

import (
	"sync"
)

// DefaultBuffer is the number of frames a subscriber may fall behind
// before it is dropped.
const DefaultBuffer = 16

// Hub fans encoded frames out to subscribers. Publish never blocks: each
// subscriber has a bounded buffer, and one whose buffer is full is dropped
// (its channel closed) instead of being waited for. A new subscriber first
// receives the latest frame. Hub is safe for concurrent use.
type Hub struct {
	buf int

	mu      sync.Mutex
	subs    map[*Sub]struct{}
	last    []byte
	dropped uint64
	closed  bool
}

// Sub is one subscriber. C delivers frames; it is closed when the
// subscriber is dropped for falling behind or when the hub is closed.
type Sub struct {
	C <-chan []byte
	c chan []byte
}

// NewHub returns a hub whose subscribers may fall buffer frames behind
// (DefaultBuffer when buffer <= 0).
func NewHub(buffer int) *Hub {
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	return &Hub{buf: buffer, subs: map[*Sub]struct{}{}}
}

// Subscribe adds a subscriber; call Unsubscribe when done with it.
func (h *Hub) Subscribe() *Sub {
	c := make(chan []byte, h.buf)
	s := &Sub{C: c, c: c}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(c)
		return s
	}
	if h.last != nil {
		c <- h.last
	}
	h.subs[s] = struct{}{}
	return s
}

// Unsubscribe removes s (a no-op when it was already dropped).
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.c)
	}
}

// Publish sends frame to every subscriber and keeps it for the next ones.
// The frame must not be modified afterwards: all subscribers share it.
func (h *Hub) Publish(frame []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = frame
	for s := range h.subs {
		select {
		case s.c <- frame:
		default:
			delete(h.subs, s)
			close(s.c)
			h.dropped++
		}
	}
}

// Subscribers returns the number of subscribers.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Dropped returns how many subscribers were dropped for falling behind.
func (h *Hub) Dropped() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped
}

// Close drops every subscriber; later subscribers get a closed channel.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		delete(h.subs, s)
		close(s.c)
	}
}
