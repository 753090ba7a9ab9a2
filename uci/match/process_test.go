package match

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCloseKillsGrandchild runs a wrapper script whose child (the real
// "engine", here a hung sleep) inherits the pipes. Closing the player's
// process must end the grandchild too and return promptly: killing only the
// direct child left the grandchild running and close waiting on its pipes.
func TestCloseKillsGrandchild(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := "sleep 300 & echo $! > " + pidFile + "; wait"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := startProcess(ctx, "wrapper", []string{"sh", "-c", script}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, _ := os.ReadFile(pidFile)
		if s := strings.TrimSpace(string(b)); s != "" && strings.HasSuffix(string(b), "\n") {
			if pid, err = strconv.Atoi(s); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the wrapper never wrote its child's pid")
		}
		time.Sleep(10 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { p.Close("quit", 100*time.Millisecond); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("close still waiting 5 s after the kill: the grandchild holds the pipes")
	}
	for deadline := time.Now().Add(5 * time.Second); running(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still running after close", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
