package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/config"
)

func TestSandbox(t *testing.T) {
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"PONDEROSA_THREADS": "1", "PONDEROSA_HASH_MB": "4", "PONDEROSA_PGN_DIR": t.TempDir()}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer // written by runSandbox's goroutine only
	snap, err := runSandbox(context.Background(), cfg, sandboxOptions{Games: 1, Clock: 30 * time.Second, StatusAddr: "127.0.0.1:0", Out: &out, Version: "ponderosa test"})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.HasPrefix(s, "Status page: http://127.0.0.1:") {
		t.Errorf("the status page's URL is not the first line:\n%s", s)
	}
	for _, want := range []string{"Alice", "declined (variant)", "declined (tooFast)", "declined (timeControl)", "Moves posted"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if snap.Results["win"]+snap.Results["draw"]+snap.Results["loss"] != 1 || snap.FlagLosses != 0 {
		t.Errorf("sandbox results %v, flag losses %d\n%s", snap.Results, snap.FlagLosses, s)
	}
}

// TestSandboxStatusPort: when the default port is taken, the sandbox
// serves its page on another free port.
func TestSandboxStatusPort(t *testing.T) {
	if hold, err := net.Listen("tcp", defaultSandboxStatusAddr); err == nil {
		defer hold.Close()
	} // else something else holds it: the case under test all the same
	ln, err := listenSandboxStatus("")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ln.Addr().String() == defaultSandboxStatusAddr || !strings.HasPrefix(ln.Addr().String(), "127.0.0.1:") {
		t.Errorf("listening on %s", ln.Addr())
	}
}
