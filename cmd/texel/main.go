// Command texel makes the evaluation's tuned weights (engine/eval/tuned.go)
// in two steps:
//
//	go run ./cmd/texel gen -engine './ponderosa uci' -openings book.pgn -games 2000 -nodes 6000 -out data.txt
//	go run ./cmd/texel tune -data data.txt -valid held-out.txt -iters 400 -out engine/eval/tuned.go
//
// gen plays the engine against itself through uci/match (its openings,
// adjudication and concurrency) and appends the quiet positions of every
// game, labelled with the result; tune fits the weights to them with the
// Texel tuner of engine/eval/tune.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: texel gen|tune [flags] (texel gen -h, texel tune -h)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "gen":
		err = cmdGen(ctx, os.Args[2:], os.Stdout)
	case "tune":
		err = cmdTune(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "texel: unknown command %q (want gen or tune)\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "texel:", err)
		os.Exit(1)
	}
}
