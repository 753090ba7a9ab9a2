package store

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The child processes of these tests run this test binary with
// STORE_TEST_CHILD set to what they should do.
func TestMain(m *testing.M) {
	switch os.Getenv("STORE_TEST_CHILD") {
	case "":
		os.Exit(m.Run())
	case "writer":
		childWriter(os.Getenv("STORE_TEST_DIR"))
	case "full":
		childFullDisk(os.Getenv("STORE_TEST_DIR"))
	case "readonly":
		childReadOnly(os.Getenv("STORE_TEST_DIR"))
	}
	os.Exit(0)
}

// childWriter writes games for ever, from several goroutines, and prints
// "committed N" each time the first N games are known to be committed.
func childWriter(dir string) {
	d, err := Open(dir, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	now := time.Now()
	for batch := 0; ; batch++ {
		for i := range 50 {
			n := batch*50 + i
			d.AddGame(testGame(fmt.Sprintf("k%06d", n), fmt.Sprintf("bot%d", n%7), Win, now.Add(time.Duration(n)*time.Millisecond)))
		}
		if err := d.Flush(context.Background()); err != nil {
			fmt.Println("flush:", err)
			os.Exit(1)
		}
		fmt.Printf("committed %d\n", (batch+1)*50)
	}
}

// TestKilledMidWrite kills a writing process with SIGKILL and reopens the
// file: the integrity check is ok and every game committed is there.
func TestKilledMidWrite(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STORE_TEST_CHILD=writer", "STORE_TEST_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	committed := 0
	for sc.Scan() && committed < 2000 {
		line := sc.Text()
		n, err := strconv.Atoi(strings.TrimPrefix(line, "committed "))
		if err != nil {
			t.Fatalf("child: %s", line)
		}
		committed = n
	}
	cmd.Process.Signal(syscall.SIGKILL) // in the middle of the next batches
	go func() {
		for sc.Scan() {
		}
	}()
	cmd.Wait()
	if committed < 2000 {
		t.Fatalf("the child stopped after %d games", committed)
	}

	raw := openIntact(t, filepath.Join(dir, FileName))
	var have int
	raw.QueryRow("SELECT COUNT(*) FROM games WHERE id <= ?", fmt.Sprintf("k%06d", committed-1)).Scan(&have)
	if have != committed {
		t.Errorf("%d of the %d committed games are there", have, committed)
	}
	var total int
	raw.QueryRow("SELECT COUNT(*) FROM games").Scan(&total)
	t.Logf("killed after %d committed games; %d on disk", committed, total)
	d, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("reopening after the kill: %v", err)
	}
	defer d.Close()
	if h := d.Health(); h.Degraded {
		t.Errorf("health after the kill: %+v", h)
	}
}

// childFullDisk fills the file-size limit while writing: the store must
// log once, degrade, and keep counting in memory.
func childFullDisk(dir string) {
	d, err := Open(dir, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	d.Flush(context.Background())
	// A write past the limit fails with EFBIG instead of killing us.
	signal.Ignore(syscall.SIGXFSZ)
	lim := syscall.Rlimit{Cur: 256 << 10, Max: 256 << 10}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(1)
	}
	now := time.Now()
	long := strings.Repeat("x", 2000)
	n := 0
	for ; n < 2000 && !d.Health().Degraded; n++ {
		g := testGame(fmt.Sprintf("f%d", n), "alice", Win, now.Add(time.Duration(n)*time.Millisecond))
		g.PGN = long
		d.AddGame(g)
		d.Flush(context.Background())
	}
	h := d.Health()
	fmt.Printf("degraded=%v after=%d counted=%d reason=%s\n", h.Degraded, n, d.GamesAgainst("alice", time.Time{}), h.Reason)
	d.AddGame(testGame("more", "alice", Win, now.Add(time.Hour)))
	fmt.Printf("then=%d\n", d.GamesAgainst("alice", time.Time{}))
	d.Close()
}

// TestFullDisk runs a process whose file-size limit makes the disk "full"
// mid-game: the store degrades, says why, and keeps counting in memory.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STORE_TEST_CHILD=full", "STORE_TEST_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child: %s", out)
	var degraded bool
	var after, counted, then int
	var reason string
	if _, err := fmt.Sscanf(string(out), "degraded=%t after=%d counted=%d reason=", &degraded, &after, &counted); err != nil {
		t.Fatalf("child said: %s", out)
	}
	_, reason, _ = strings.Cut(string(out), "reason=")
	fmt.Sscanf(reason[strings.Index(reason, "then="):], "then=%d", &then)
	if !degraded || counted != after || then != after+1 {
		t.Errorf("child: %s", out)
	}
	if !strings.Contains(reason, "full") && !strings.Contains(reason, "I/O") {
		t.Errorf("reason: %s", reason)
	}
	// The file is still a good database with the games written before.
	openIntact(t, filepath.Join(dir, FileName))
}

// openIntact opens the SQLite file at path directly, fails the test unless
// SQLite's integrity check passes, and closes it when the test ends.
func openIntact(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	var check string
	if err := raw.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("%s: integrity_check %q %v", path, check, err)
	}
	return raw
}

// childReadOnly opens the database in a directory it may not write.
func childReadOnly(dir string) {
	_, err := Open(dir, Options{})
	fmt.Printf("open error: %v\n", err)
}

// TestReadOnlyDisk opens a database on a directory and file that cannot be
// written: Open fails with SQLite's reason (the bot then runs on
// Fallback), and the file is left as it was. Root may write anything, so
// as root the check runs in a child process as user nobody.
func TestReadOnlyDisk(t *testing.T) {
	dir := t.TempDir()
	d := openTest(t, dir)
	d.AddGame(testGame("kept", "alice", Win, time.Now()))
	d.Close()
	path := filepath.Join(dir, FileName)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o444)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })

	var out string
	if os.Geteuid() != 0 {
		_, err := Open(dir, Options{})
		out = fmt.Sprintf("open error: %v\n", err)
	} else {
		// The test binary and the directories above dir must be readable
		// by nobody.
		bin := filepath.Join(t.TempDir(), "store.test")
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		// Only the test's own directories: t.TempDir() is <root>/NNN, and
		// root's parent is the system's temporary directory (/tmp), whose
		// mode (1777) must never be touched.
		root := filepath.Dir(dir)
		for _, p := range []string{filepath.Dir(bin), root} {
			os.Chmod(p, 0o755)
		}
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), "STORE_TEST_CHILD=readonly", "STORE_TEST_DIR="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Skipf("cannot run a child as nobody here: %v %s", err, b)
		}
		out = string(b)
	}
	t.Log(strings.TrimSpace(out))
	if !strings.HasPrefix(out, "open error: ") || strings.Contains(out, "<nil>") ||
		!(strings.Contains(out, "readonly") || strings.Contains(out, "unable to open")) {
		t.Errorf("opening a read-only database: %s", out)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) {
		t.Error("the read-only file changed")
	}
	if aside, _ := filepath.Glob(path + ".corrupt-*"); len(aside) != 0 {
		t.Errorf("a read-only file was moved aside: %v", aside)
	}
}
