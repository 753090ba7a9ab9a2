package bot

// Allow and block lists loaded from URLs (PONDEROSA_ALLOW_URL,
// PONDEROSA_BLOCK_URL): fetched at start and every PONDEROSA_LIST_REFRESH;
// a failed fetch keeps that URL's last good list.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
)

// maxListBytes bounds a list's body; maxListUsers its entries.
const (
	maxListBytes = 1 << 20
	maxListUsers = 50000
	listTimeout  = 20 * time.Second
)

// ParseUserList reads one Lichess username a line; blank lines and lines
// starting with # are skipped, a "# comment" after a name is dropped, and
// names are lowercased. A line that is not a username is an error naming
// it.
func ParseUserList(data []byte) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxListBytes)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		name := strings.ToLower(strings.TrimSpace(line))
		if name == "" {
			continue
		}
		if !config.ValidUsername(name) {
			return nil, fmt.Errorf("line %d: %q is not a Lichess username", n, clip(name, 40))
		}
		if len(out) == maxListUsers {
			return nil, fmt.Errorf("more than %d usernames", maxListUsers)
		}
		out = append(out, name)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// clip shortens s to n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// userLists holds the last good list of every URL.
type userLists struct {
	allowURLs, blockURLs []string
	client               *http.Client

	mu    sync.Mutex
	lists map[string][]string // URL → its last good list
}

func newUserLists(p *config.Policy) *userLists {
	return &userLists{allowURLs: p.AllowURLs, blockURLs: p.BlockURLs,
		client: &http.Client{Timeout: listTimeout}, lists: map[string][]string{}}
}

// configured reports whether any list comes from a URL.
func (l *userLists) configured() bool { return len(l.allowURLs)+len(l.blockURLs) > 0 }

// refresh fetches every URL once; a failure keeps that URL's last list.
func (l *userLists) refresh(ctx context.Context, log *slog.Logger) {
	for _, u := range append(slices.Clone(l.allowURLs), l.blockURLs...) {
		names, err := l.fetch(ctx, u)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("user list not refreshed: keeping the last good one", "url", u, "err", err)
			}
			continue
		}
		l.mu.Lock()
		l.lists[u] = names
		l.mu.Unlock()
		log.Debug("user list loaded", "url", u, "users", len(names))
	}
}

func (l *userLists) fetch(ctx context.Context, u string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxListBytes {
		return nil, fmt.Errorf("list longer than %d bytes", maxListBytes)
	}
	return ParseUserList(body)
}

// run refreshes the lists every period until ctx ends.
func (l *userLists) run(ctx context.Context, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.refresh(ctx, log)
		}
	}
}

// policy returns p with the URL lists added to its allow and block lists,
// and whether nobody is allowed: allow URLs are configured, and neither
// they (none loaded yet, or empty) nor p's own allow list name anyone.
func (l *userLists) policy(p *config.Policy) (out *config.Policy, allowNone bool) {
	if l == nil || !l.configured() {
		return p, false
	}
	cp := *p
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range l.allowURLs {
		cp.Allow = append(slices.Clip(cp.Allow), l.lists[u]...)
	}
	for _, u := range l.blockURLs {
		cp.Block = append(slices.Clip(cp.Block), l.lists[u]...)
	}
	return &cp, len(l.allowURLs) > 0 && len(cp.Allow) == 0
}

// startUserLists loads the URL lists once (bounded by listTimeout) and
// refreshes them in a goroutine until the returned stop is called.
func (s *Service) startUserLists(ctx context.Context) (stop func()) {
	l := newUserLists(&s.cfg.Policy)
	if !l.configured() {
		return func() {}
	}
	first, cancel := context.WithTimeout(ctx, listTimeout)
	l.refresh(first, s.log)
	cancel()
	s.mu.Lock()
	s.lists = l
	s.mu.Unlock()
	rctx, cancelRun := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.run(rctx, s.cfg.Policy.ListRefresh, s.log)
	}()
	return func() { cancelRun(); <-done }
}
