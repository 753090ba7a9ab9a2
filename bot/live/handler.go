package live

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// HandlerOptions configure Handler.
type HandlerOptions struct {
	// Snapshot returns the current snapshot, for the page itself.
	Snapshot func() Snapshot
	// Hub delivers the encoded updates to /events.
	Hub *Hub
	// Keepalive is the interval of comment lines on an idle stream
	// (default 15 s); WriteTimeout bounds each write to a stream's client
	// (default 10 s): a client that does not read is cut off.
	Keepalive, WriteTimeout time.Duration
	Logger                  *slog.Logger
}

// Handler serves the page at /, the update stream at /events and the
// embedded assets under /assets/. Everything is read-only.
func Handler(o HandlerOptions) http.Handler {
	if o.Keepalive <= 0 {
		o.Keepalive = 15 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.FileServerFS(static)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		if err := RenderPage(&b, o.Snapshot()); err != nil {
			o.Logger.Error("status page", "err", err)
			http.Error(w, "cannot render the page", http.StatusInternalServerError)
			return
		}
		secureHeaders(w)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b.Bytes())
	})
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
		serveEvents(w, r, o)
	})
	mux.HandleFunc("GET /assets/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".tmpl") || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		secureHeaders(w)
		w.Header().Set("Cache-Control", "max-age=300")
		http.StripPrefix("/assets", files).ServeHTTP(w, r)
	})
	return mux
}

func secureHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// serveEvents streams the hub's frames to one client until it goes away,
// falls behind (the hub drops it) or a write times out.
func serveEvents(w http.ResponseWriter, r *http.Request, o HandlerOptions) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	sub := o.Hub.Subscribe()
	defer o.Hub.Unsubscribe(sub)
	write := func(b []byte) bool {
		rc.SetWriteDeadline(time.Now().Add(o.WriteTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write([]byte("retry: 2000\n\n")) {
		return
	}
	tick := time.NewTicker(o.Keepalive)
	defer tick.Stop()
	for {
		select {
		case f, ok := <-sub.C:
			if !ok {
				return // dropped for falling behind: the browser reconnects
			}
			if !write(f) {
				return
			}
		case <-tick.C:
			if !write([]byte(": keepalive\n\n")) {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// BasicAuth requires user and password on every request except those for
// which open returns true.
func BasicAuth(next http.Handler, user, password string, open func(*http.Request) bool) http.Handler {
	wantU, wantP := sha256.Sum256([]byte(user)), sha256.Sum256([]byte(password))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if open != nil && open(r) {
			next.ServeHTTP(w, r)
			return
		}
		u, p, ok := r.BasicAuth()
		gotU, gotP := sha256.Sum256([]byte(u)), sha256.Sum256([]byte(p))
		if !ok || subtle.ConstantTimeCompare(gotU[:], wantU[:])&subtle.ConstantTimeCompare(gotP[:], wantP[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="ponderosa status", charset="UTF-8"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// IsLoopback reports whether the listen address addr (host:port) only
// accepts connections from this machine.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
