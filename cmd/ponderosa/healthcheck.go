package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// cmdHealthcheck asks a running bot's status endpoint whether it is healthy.
// It exists for container health checks: distroless images have no curl.
func cmdHealthcheck(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("healthcheck", "[--addr HOST:PORT]", env)
	addr := fs.String("addr", "127.0.0.1:8080", "address of the bot's status endpoint (PONDEROSA_STATUS_ADDR)")
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	url := "http://" + *addr + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s: %s", url, resp.Status, body)
	}
	fmt.Fprintf(env.Stdout, "ok %s\n", body)
	return nil
}
