package fakelichess

// The HTTP plumbing: the middleware (auth, faults, latency, the request
// log and limit) and the JSON answer helpers.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// middleware records the request, applies latency, faults and auth.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			_ = r.ParseForm()
		}
		authed := r.Header.Get("Authorization") == "Bearer "+s.opts.Token
		s.mu.Lock()
		idx := len(s.requests)
		s.requests = append(s.requests, Request{
			Time: s.opts.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(),
			Form: r.PostForm, UserAgent: r.UserAgent(), Authed: authed,
		})
		latency := s.latency
		var fault *Fault
		for i := range s.faults {
			f := &s.faults[i]
			if (f.Method == "" || f.Method == r.Method) && strings.HasPrefix(r.URL.Path, f.Path) {
				ff := *f
				fault = &ff
				if f.Count--; f.Count <= 0 {
					s.faults = append(s.faults[:i], s.faults[i+1:]...)
				}
				break
			}
		}
		tokenOK := s.tokenOK
		limited := false
		if lim := s.opts.MaxRequestsPerMinute; lim > 0 && fault == nil {
			n, since := 0, s.opts.Now().Add(-time.Minute)
			for i := len(s.requests) - 2; i >= 0 && s.requests[i].Time.After(since); i-- {
				if s.requests[i].Status != http.StatusTooManyRequests {
					n++
				}
			}
			limited = n >= lim
		}
		s.notify()
		s.mu.Unlock()

		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			s.mu.Lock()
			s.requests[idx].Status = sw.status
			s.notify()
			s.mu.Unlock()
		}()
		if !delay(latency, r.Context(), s.ctx) {
			return
		}
		if fault != nil {
			body := fault.Body
			if body == "" {
				body = fmt.Sprintf(`{"error":%q}`, http.StatusText(fault.Status))
			}
			sw.Header().Set("Content-Type", "application/json")
			if fault.RetryAfter > 0 {
				sw.Header().Set("Retry-After", fmt.Sprint(max(1, int((fault.RetryAfter+time.Second-1)/time.Second))))
			}
			if fault.Location != "" {
				sw.Header().Set("Location", fault.Location)
			}
			sw.WriteHeader(fault.Status)
			_, _ = sw.Write([]byte(body))
			return
		}
		if limited {
			writeError(sw, http.StatusTooManyRequests, "Too many requests. Try again later.")
			return
		}
		public := r.URL.Path == "/api/bot/online" || r.URL.Path == "/api/token/test"
		if !public && (!authed || !tokenOK) {
			writeError(sw, http.StatusUnauthorized, "No such token")
			return
		}
		next.ServeHTTP(sw, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeOK(w http.ResponseWriter) { writeJSON(w, http.StatusOK, map[string]bool{"ok": true}) }

// writeFormError writes a form error as lila does (jsonFormError): the
// "error" value is an object of field → messages.
func writeFormError(w http.ResponseWriter, field, msg string) {
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string][]string{field: {msg}}})
}

// delay waits d before an answer; false when the request or the server
// ends first (the handler then answers nothing).
func delay(d time.Duration, request, server context.Context) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-request.Done():
	case <-server.Done():
	}
	return false
}
