package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

func TestDatagenTrainBench(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.bin")
	out, _, err := runCmd(t, "", "datagen", "--out", data, "--games", "2", "--workers", "2", "--nodes", "64")
	if err != nil {
		t.Fatalf("datagen: %v\n%s", err, out)
	}
	builtIn, err := nnue.Default()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "datagen: done: games 2") || !strings.Contains(out, "playing with the built-in network ("+builtIn.ID()+")") {
		t.Fatalf("datagen printed %q", out)
	}
	out, _, err = runCmd(t, "", "datagen", "--out", data, "--games", "1", "--nodes", "64", "--hce")
	if err != nil || !strings.Contains(out, "playing with the hand-crafted evaluation") || !strings.Contains(out, "datagen: done: games 1") {
		t.Fatalf("datagen --hce: %v\n%s", err, out)
	}
	if _, _, err := runCmd(t, "", "datagen", "--out", data, "--hce", "--evalfile", data); err == nil {
		t.Error("datagen --hce --evalfile succeeded")
	}
	netPath := filepath.Join(dir, "n.nnue")
	out, _, err = runCmd(t, "", "train", "--data", data, "--out", netPath, "--hidden", "16", "--epochs", "2",
		"--batch", "32", "--val-every", "5", "--threads", "2")
	if err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	if !strings.Contains(out, "epoch 2: train loss") || !strings.Contains(out, "train: wrote "+netPath) {
		t.Fatalf("train printed %q", out)
	}
	if _, err := nnue.Load(netPath); err != nil {
		t.Fatal(err)
	}
	n, err := nnue.Load(netPath)
	if err != nil {
		t.Fatal(err)
	}
	// --init goes on from that network: N and the scale follow it, a flag
	// that contradicts it is refused.
	tuned := filepath.Join(dir, "tuned.nnue")
	out, _, err = runCmd(t, "", "train", "--data", data, "--out", tuned, "--init", netPath, "--epochs", "1",
		"--batch", "32", "--val-every", "5", "--threads", "2", "--lr", "0.0001")
	if err != nil || !strings.Contains(out, "16 hidden units)") || !strings.Contains(out, "train: wrote "+tuned) {
		t.Fatalf("train --init: %v\n%s", err, out)
	}
	if _, _, err := runCmd(t, "", "train", "--data", data, "--out", tuned, "--init", netPath, "--hidden", "32"); err == nil {
		t.Error("train --init with another --hidden succeeded")
	}
	// --buckets: a one-bucket network starts a bucketed run; a bucketed
	// network's count follows it when --buckets is left out and cannot be
	// changed.
	bucketed := filepath.Join(dir, "bucketed.nnue")
	out, _, err = runCmd(t, "", "train", "--data", data, "--out", bucketed, "--init", netPath, "--buckets", "4", "--epochs", "1",
		"--batch", "32", "--val-every", "5", "--threads", "2", "--lr", "0.0001")
	if err != nil || !strings.Contains(out, "16 hidden units, 4 output buckets)") {
		t.Fatalf("train --init --buckets 4: %v\n%s", err, out)
	}
	out, _, err = runCmd(t, "", "train", "--data", data, "--out", tuned, "--init", bucketed, "--epochs", "1",
		"--batch", "32", "--val-every", "5", "--threads", "2", "--lr", "0.0001")
	if err != nil || !strings.Contains(out, "4 output buckets)") {
		t.Fatalf("train --init from a bucketed network: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"--init", bucketed, "--buckets", "2"}, {"--buckets", "0"}, {"--buckets", "17"}} {
		if _, _, err := runCmd(t, "", append([]string{"train", "--data", data, "--out", tuned}, args...)...); err == nil {
			t.Errorf("train %q succeeded", args)
		}
	}
	if _, _, err := runCmd(t, "", "train", "--data", data, "--out", tuned, "--init", data); err == nil {
		t.Error("train --init with a data file as network succeeded")
	}
	out, _, err = runCmd(t, "", "nnuecheck", "--data", data, "--evalfile", netPath, "--every", "1", "--depth", "1")
	if err != nil {
		t.Fatalf("nnuecheck: %v\n%s", err, out)
	}
	for _, want := range []string{"\nhce ", "\n" + n.ID() + " N=16 ", "\nhce depth 1 ", "\n" + n.ID() + " N=16 depth 1 ", " MAE ", " sign "} {
		if !strings.Contains(out, want) {
			t.Errorf("nnuecheck printed no %q:\n%s", want, out)
		}
	}
	if _, _, err := runCmd(t, "", "nnuecheck", "--data", data, "--evalfile", data); err == nil {
		t.Error("nnuecheck with a data file as network succeeded")
	}
	if _, _, err := runCmd(t, "", "nnuecheck", "--data", data, "--every", "0"); err == nil {
		t.Error("nnuecheck --every 0 succeeded")
	}
	out, _, err = runCmd(t, "", "bench", "--depth", "3", "--evalfile", netPath)
	if err != nil || !strings.Contains(out, " nodes ") {
		t.Fatalf("bench --evalfile: %v\n%s", err, out)
	}
	// bench searches with the built-in network unless told otherwise: its
	// node count differs from the hand-crafted evaluation's.
	nodesLine := func(args ...string) string {
		out, _, err := runCmd(t, "", append([]string{"bench", "--depth", "4"}, args...)...)
		if err != nil {
			t.Fatalf("bench %q: %v\n%s", args, err, out)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return strings.Fields(lines[len(lines)-1])[0]
	}
	if def, hce := nodesLine(), nodesLine("--hce"); def == hce {
		t.Errorf("bench and bench --hce both searched %s nodes", def)
	}
	if _, _, err := runCmd(t, "", "bench", "--hce", "--evalfile", netPath); err == nil {
		t.Error("bench --hce --evalfile succeeded")
	}
	if _, errOut, err := runCmd(t, "", "bench", "--evalfile", data); err == nil {
		t.Errorf("bench with a data file as network succeeded: %s", errOut)
	}
	if _, _, err := runCmd(t, "", "train", "--data", data); err == nil {
		t.Error("train without --out succeeded")
	}
}

// TestPGNData: pgndata reads match PGNs, plain or gzipped, appends their
// scored quiet positions to a data file that train reads, keeps only the
// players named, and refuses a bad file or no file. testdata/scored3.pgn
// is the first three games of engine/tm-sprt-seed42.pgn.gz (tm and base,
// 10+0.1).
func TestPGNData(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join("testdata", "scored3.pgn")
	text, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "scored3.pgn.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(text)
	zw.Close()
	if err := os.WriteFile(gz, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "d.bin")
	out, _, err := runCmd(t, "", "pgndata", "--out", data, "--pgn", plain, "--pgn", gz)
	if err != nil {
		t.Fatalf("pgndata: %v\n%s", err, out)
	}
	// 252 positions: the scored, quiet positions before the games' moves.
	if strings.Count(out, ": 3 games (0 unfinished skipped), 252 positions") != 2 || !strings.Contains(out, "504 records (504 new)") {
		t.Fatalf("pgndata printed %q", out)
	}
	if st, err := os.Stat(data); err != nil || st.Size() != 504*nnuedata.RecordSize {
		t.Fatalf("data file: %v, %v", st, err)
	}
	// Each player's share, and tm's deeper searches only.
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--player", "tm"}, 126},
		{[]string{"--player", "base", "--player", "someone"}, 126},
		{[]string{"--player", "tm", "--min-depth", "18"}, 45},
		{[]string{"--player", "nobody"}, 0},
	} {
		out, _, err := runCmd(t, "", append([]string{"pgndata", "--out", filepath.Join(dir, "p.bin"), "--pgn", plain}, c.args...)...)
		if want := fmt.Sprintf(": 3 games (0 unfinished skipped), %d positions", c.want); err != nil || !strings.Contains(out, want) {
			t.Errorf("pgndata %q: %v, want %q in\n%s", c.args, err, want, out)
		}
		os.Remove(filepath.Join(dir, "p.bin"))
	}
	out, _, err = runCmd(t, "", "train", "--data", data, "--out", filepath.Join(dir, "n.nnue"), "--hidden", "16", "--epochs", "1",
		"--batch", "32", "--val-every", "5", "--threads", "1")
	if err != nil || !strings.Contains(out, "504 records") {
		t.Fatalf("train on pgndata's data: %v\n%s", err, out)
	}
	bad := filepath.Join(dir, "bad.pgn")
	if err := os.WriteFile(bad, []byte("[White \"x\"]\n\n1. e4 {+0.1/9} e4 1-0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--pgn", bad}, {"--pgn", filepath.Join(dir, "missing.pgn")}, {}, {"--pgn", plain, "--min-depth", "-1"}, {"--pgn", plain + ".gz"}} {
		if out, _, err := runCmd(t, "", append([]string{"pgndata", "--out", filepath.Join(dir, "x.bin")}, args...)...); err == nil {
			t.Errorf("pgndata %q succeeded:\n%s", args, out)
		}
	}
}

// TestDatagenPackUnpack: datagen --pack keeps the games beside the records;
// unpack turns the pack back into the same records, byte for byte, and
// says so when a pack was cut off or is not one.
func TestDatagenPackUnpack(t *testing.T) {
	dir := t.TempDir()
	data, pack := filepath.Join(dir, "d.bin"), filepath.Join(dir, "sub", "d.pack.gz")
	out, _, err := runCmd(t, "", "datagen", "--out", data, "--pack", pack, "--games", "2", "--workers", "2", "--nodes", "64")
	if err != nil || !strings.Contains(out, "datagen: done: games 2") {
		t.Fatalf("datagen --pack: %v\n%s", err, out)
	}
	again := filepath.Join(dir, "again.bin")
	out, _, err = runCmd(t, "", "unpack", "--pack", pack, "--out", again)
	if err != nil || !strings.Contains(out, pack+": 2 games") {
		t.Fatalf("unpack: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(data)
	got, _ := os.ReadFile(again)
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Fatalf("unpacked %d bytes, datagen wrote %d different ones", len(got), len(want))
	}
	// Cut off inside the second game: the first one's records, a warning.
	b, _ := os.ReadFile(pack)
	cut := filepath.Join(dir, "cut.pack.gz")
	if err := os.WriteFile(cut, b[:len(b)-40], 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmd(t, "", "unpack", "--pack", cut, "--out", filepath.Join(dir, "cut.bin"))
	if err != nil || !strings.Contains(stderr, "cut off") || !strings.Contains(out, cut+": 1 games") {
		t.Fatalf("unpack of a cut-off pack: %v\n%s\n%s", err, out, stderr)
	}
	if _, _, err := runCmd(t, "", "unpack", "--pack", data, "--out", filepath.Join(dir, "x.bin")); err == nil || !strings.Contains(err.Error(), "invalid pack data") {
		t.Fatalf("unpack of a data file: %v", err)
	}
	if _, _, err := runCmd(t, "", "unpack", "--out", again); err == nil {
		t.Fatal("unpack without --pack succeeded")
	}
}
