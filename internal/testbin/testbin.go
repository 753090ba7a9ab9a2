// Package testbin builds the programs that a package's tests run as real
// processes (the ponderosa binary for the UCI and match tests, small helper
// engines), once per test binary, into a temporary directory that is
// removed when the tests end.
package testbin

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Build is one program to build: the package at Pkg (a path relative to
// the test's package directory, as `go build` takes it), with the race
// detector when Race is set. Its path is stored in *Out before the tests
// run.
type Build struct {
	Pkg  string
	Out  *string
	Race bool
}

// Main is a TestMain body: it builds every program, runs the tests and
// returns their exit code (for os.Exit). A failed build fails the run.
// Fuzz workers and the fuzzing coordinator build nothing: fuzz targets run
// no process.
func Main(m *testing.M, builds ...Build) int {
	flag.Parse()
	if fuzzing() {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "ponderosa-testbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbin:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// go test puts its own GOROOT/bin first on PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbin:", err)
		return 1
	}
	for i, b := range builds {
		// Each in a folder of its own, under its package's name (a CEGO
		// engine is named after its program).
		sub := filepath.Join(dir, fmt.Sprint(i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "testbin:", err)
			return 1
		}
		out := filepath.Join(sub, filepath.Base(b.Pkg))
		args := []string{"build", "-o", out}
		if b.Race {
			args = append(args, "-race")
		}
		cmd := exec.Command(goTool, append(args, b.Pkg)...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "testbin: building %s: %v\n", b.Pkg, err)
			return 1
		}
		*b.Out = out
	}
	return m.Run()
}

// fuzzing reports whether the test binary runs as a fuzzing coordinator or
// worker.
func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

// Need returns path, the program of a Debian package a test runs
// (/usr/games/stockfish, ...). When it is missing the test is skipped, or
// fails under CI=true, where .ci/run installs it.
func Need(t testing.TB, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing in CI (.ci/run installs it): %v", path, err)
		}
		t.Skipf("%s not installed", path)
	}
	return path
}
