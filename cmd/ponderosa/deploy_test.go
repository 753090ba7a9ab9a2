package main

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// dockerIgnored reports whether the build context leaves out name (a
// slash-separated path from the repository root) under .dockerignore's
// rules: a pattern matches the path or a directory above it, "**" spans
// directories, "!" re-includes, and the last matching line wins.
func dockerIgnored(rules []string, name string) bool {
	ignored := false
	for _, r := range rules {
		neg := strings.HasPrefix(r, "!")
		pat := path.Clean(strings.TrimPrefix(strings.TrimPrefix(r, "!"), "/"))
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(pat); i++ {
			switch c := pat[i]; {
			case strings.HasPrefix(pat[i:], "**/"):
				re.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(pat[i:], "**"):
				re.WriteString(".*")
				i++
			case c == '*':
				re.WriteString("[^/]*")
			case c == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		re.WriteString("$")
		rx := regexp.MustCompile(re.String())
		for p := name; p != "." && p != "/"; p = path.Dir(p) {
			if rx.MatchString(p) {
				ignored = !neg
				break
			}
		}
	}
	return ignored
}

// TestDockerignoreKeepsSecretsOut: COPY . . must not put the token (.env)
// or the repository history into the build stage (issue 13), and must keep
// what the build needs.
func TestDockerignoreKeepsSecretsOut(t *testing.T) {
	data, err := os.ReadFile("../../.dockerignore")
	if err != nil {
		t.Fatalf("no .dockerignore: %v", err)
	}
	var rules []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			rules = append(rules, l)
		}
	}
	for _, out := range []string{".env", ".env.local", "deploy/.env", ".git", ".git/config", "pgn/abc.pgn", "ponderosa"} {
		if !dockerIgnored(rules, out) {
			t.Errorf("%s is in the Docker build context", out)
		}
	}
	for _, in := range []string{"go.mod", "go.sum", "deploy/build.sh", "cmd/ponderosa/main.go", "engine/board/fen.go", ".env.example"} {
		if dockerIgnored(rules, in) {
			t.Errorf("%s is left out of the Docker build context, and the build needs it", in)
		}
	}
	// The Dockerfile must not copy the context before .dockerignore exists
	// to filter it, and names its base images through arguments so that a
	// deployer can pin them by digest.
	df, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ARG GO_IMAGE=", "ARG RUNTIME_IMAGE=", "FROM ${GO_IMAGE} AS build", "FROM ${RUNTIME_IMAGE}"} {
		if !strings.Contains(string(df), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
