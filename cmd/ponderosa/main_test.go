package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// runCmd runs the command line args in-process and returns what it printed.
func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{
		Stdin:  strings.NewReader(stdin),
		Stdout: &out,
		Stderr: &errOut,
		Getenv: func(string) string { return "" },
	}
	err = run(context.Background(), args, env)
	return out.String(), errOut.String(), err
}

func TestVersion(t *testing.T) {
	out, _, err := runCmd(t, "", "version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "ponderosa ") || !strings.Contains(out, "go1.") {
		t.Errorf("version printed %q", out)
	}
	net, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	if want := "network: " + net.ID() + " ("; !strings.Contains(out, want) {
		t.Errorf("version printed %q, without %q", out, want)
	}
}

func TestUnknownCommand(t *testing.T) {
	_, errOut, err := runCmd(t, "", "frobnicate")
	if !errors.Is(err, errUsage) {
		t.Fatalf("err = %v, want errUsage", err)
	}
	if !strings.Contains(errOut, `unknown command "frobnicate"`) || !strings.Contains(errOut, "Commands:") {
		t.Errorf("stderr = %q", errOut)
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	out, _, err := runCmd(t, "", "help")
	if err != nil {
		t.Fatal(err)
	}
	for name := range commands {
		if !strings.Contains(out, "  "+name+" ") {
			t.Errorf("help does not list %q:\n%s", name, out)
		}
	}
}

func TestSubcommandHelpAndBadFlags(t *testing.T) {
	for name := range commands {
		_, errOut, err := runCmd(t, "", name, "--help")
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s --help: err = %v, want flag.ErrHelp", name, err)
		}
		if !strings.Contains(errOut, "Usage: ponderosa "+name) {
			t.Errorf("%s --help printed %q", name, errOut)
		}
		_, _, err = runCmd(t, "", name, "--no-such-flag")
		if !errors.Is(err, errUsage) {
			t.Errorf("%s --no-such-flag: err = %v, want errUsage", name, err)
		}
	}
}

func TestHealthcheckFailsWithoutServer(t *testing.T) {
	_, _, err := runCmd(t, "", "healthcheck", "--addr", "127.0.0.1:1", "--timeout", "500ms")
	if err == nil {
		t.Fatal("healthcheck succeeded with nothing listening")
	}
}
