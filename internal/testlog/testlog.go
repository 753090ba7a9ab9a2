// Package testlog is a log sink for tests: a buffer that many goroutines
// (a service's, a client's, a fake server's) may write at once while the
// test reads it.
package testlog

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent writers and readers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Grep returns the lines that contain substr, joined by newlines: one
// game's or one request's share of a busy log.
func (s *Buffer) Grep(substr string) string {
	var out []string
	for _, l := range strings.Split(s.String(), "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
