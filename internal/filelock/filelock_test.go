//go:build unix

package filelock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestSecondLockRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "record.pgn")
	a, err := OpenLocked(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenLocked(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second OpenLocked: got %v, %v; want ErrLocked", b, err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err = OpenLocked(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	b.Close()
}

func TestLockFollowsReplacedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.pack.gz")
	old, err := OpenLocked(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	// A repair writes a new file and renames it over the old one: path
	// now names a file nobody has locked.
	tmp := filepath.Join(dir, "tmp")
	if err := os.WriteFile(tmp, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	f, err := OpenLocked(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("the new file at path: %v", err)
	}
	f.Close()
}

func TestMissingFile(t *testing.T) {
	_, err := OpenLocked(filepath.Join(t.TempDir(), "absent"), os.O_RDONLY, 0)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v, want ErrNotExist", err)
	}
}

// TestLockHeldByAnotherProcess locks a file in a child process (this test
// binary run again) and checks that the lock is refused here while the
// child lives and free once it has ended, without the child unlocking.
func TestLockHeldByAnotherProcess(t *testing.T) {
	if path := os.Getenv("FILELOCK_HOLD"); path != "" {
		f, err := OpenLocked(path, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
		runtime.KeepAlive(f)                       // the lock is held until here
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "selfplay.bin")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHeldByAnotherProcess$")
	cmd.Env = append(os.Environ(), "FILELOCK_HOLD="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("child: %q, %v", line, err)
	}
	if f, err := OpenLocked(path, os.O_WRONLY, 0); !errors.Is(err, ErrLocked) {
		if f != nil {
			f.Close()
		}
		t.Errorf("while the child holds the lock: got %v, want ErrLocked", err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	f, err := OpenLocked(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("after the child ended: %v", err)
	}
	f.Close()
}
