package lichess

import (
	"sync"
	"time"
)

// StreamState is the event stream's health as the client sees it: whether
// a stream is open (its response arrived and it has not ended since), when
// that last changed, when the last line and the last event arrived, and why
// it last dropped. The zero value is a stream never opened.
type StreamState struct {
	// Connected is true while an event stream is open.
	Connected bool `json:"connected"`
	// Since is when Connected last changed: connected since, or down (and
	// reconnecting) since. Zero before the first attempt ends either way.
	Since time.Time `json:"since"`
	// LastData is when the last line arrived, keep-alives included.
	LastData time.Time `json:"last_data"`
	// LastEvent is when the last event arrived.
	LastEvent time.Time `json:"last_event"`
	// LastError is why the stream last dropped or failed to open ("" if
	// never); it never holds the token.
	LastError string `json:"last_error,omitempty"`
}

// streamTracker records a StreamState; nil records nothing.
type streamTracker struct {
	mu sync.Mutex
	st StreamState
}

func (t *streamTracker) up(now time.Time) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.st.Connected, t.st.Since, t.st.LastData = true, now, now
}

func (t *streamTracker) data(now time.Time, event bool) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.st.LastData = now
	if event {
		t.st.LastEvent = now
	}
}

func (t *streamTracker) down(now time.Time, err error) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.st.Connected || t.st.Since.IsZero() {
		t.st.Since = now
	}
	t.st.Connected = false
	if err != nil {
		t.st.LastError = err.Error()
	}
}

func (t *streamTracker) get() StreamState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.st
}

// EventStreamState returns the account event stream's state (see
// StreamEvents and WatchEvents, which keep it).
func (c *Client) EventStreamState() StreamState { return c.events.get() }
