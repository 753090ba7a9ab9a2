package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// version is set at link time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

func cmdVersion(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("version", "", env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "ponderosa %s\n", versionString())
	net, err := nnue.Default()
	if err != nil {
		return fmt.Errorf("version: the built-in network: %w", err)
	}
	fmt.Fprintf(env.Stdout, "network: %s (%s, built in; Use NNUE=false plays the hand-crafted evaluation, EvalFile loads another)\n", net.ID(), net.Shape())
	return nil
}

// versionString is the version plus the VCS revision when the binary was
// built from a checkout with VCS stamping on.
func versionString() string {
	v := version
	if info, ok := debug.ReadBuildInfo(); ok {
		var rev, dirty string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "-dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			v += " (" + rev + dirty + ")"
		}
	}
	return fmt.Sprintf("%s %s/%s %s", v, runtime.GOOS, runtime.GOARCH, runtime.Version())
}
