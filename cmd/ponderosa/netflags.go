package main

import (
	"flag"
	"fmt"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// netFlags are the --evalfile and --hce flags of the commands that play
// (bench, datagen): which evaluation they use, the built-in network unless
// told otherwise.
type netFlags struct {
	evalFile *string
	hce      *bool
}

func addNetFlags(fs *flag.FlagSet, verb string) netFlags {
	return netFlags{
		evalFile: fs.String("evalfile", "", verb+" with this NNUE file instead of the built-in network"),
		hce:      fs.Bool("hce", false, verb+" with the hand-crafted evaluation instead of the built-in network"),
	}
}

// network returns the network the flags choose (nil: the hand-crafted
// evaluation) and a description of it. Both flags at once is a usage error
// (printed on env.Stderr); a network file that does not load is an error.
func (f netFlags) network(cmd string, env *Env) (*nnue.Network, string, error) {
	switch {
	case *f.hce && *f.evalFile != "":
		fmt.Fprintf(env.Stderr, "ponderosa %s: --hce and --evalfile exclude each other\n", cmd)
		return nil, "", errUsage
	case *f.hce:
		return nil, "the hand-crafted evaluation", nil
	case *f.evalFile != "":
		net, err := nnue.Load(*f.evalFile)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", cmd, err)
		}
		return net, fmt.Sprintf("%s (%s)", *f.evalFile, net.ID()), nil
	}
	net, err := nnue.Default()
	if err != nil {
		return nil, "", fmt.Errorf("%s: the built-in network: %w", cmd, err)
	}
	return net, fmt.Sprintf("the built-in network (%s)", net.ID()), nil
}
