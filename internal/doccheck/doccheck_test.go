package doccheck

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// TestRepositoryLinks checks the repository's own Markdown.
func TestRepositoryLinks(t *testing.T) {
	problems, err := Check(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestAnchors(t *testing.T) {
	text := "# Ponderosa\n## Move sources: tablebase, cloud eval\n### NNUE\n```\n# not a heading\n```\n" +
		"### NNUE\n## The export's rounding shift (2026-11-29)\n#### `train --init` and [links](x.md)\n#nope\n"
	got := Anchors(text)
	for _, want := range []string{"ponderosa", "move-sources-tablebase-cloud-eval", "nnue", "nnue-1",
		"the-exports-rounding-shift-2026-11-29", "train---init-and-links"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] || got["nope"] || len(got) != 6 {
		t.Errorf("anchors %v: want exactly the six headings", got)
	}
}

func TestCheck(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte("# Top\n## Usage\n[ok](#usage) [bad](#nothing) [doc](docs/a.md#part)\n" +
			"[gone](docs/b.md) [dir](docs/) [web](https://example.org/x#y) `[code](nowhere.md)`\n" +
			"```\n[fenced](nowhere.md)\n```\n[part missing](docs/a.md#other) [abs](/etc/passwd) [img](docs/p.png#x)\n")},
		"docs/a.md":      {Data: []byte("## Part\n[back](../README.md#top)\n")},
		"docs/p.png":     {Data: []byte{0x89}},
		".hidden/x.md":   {Data: []byte("[bad](nowhere.md)\n")},
		"docs/other.txt": {Data: []byte("[bad](nowhere.md)\n")},
	}
	problems, err := Check(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		"README.md:3: #nothing: no heading with that anchor in README.md",
		"README.md:4: docs/b.md: no such file or directory",
		"README.md:8: docs/a.md#other: no heading with that anchor in docs/a.md",
		"README.md:8: /etc/passwd: absolute path: not portable to a clone or a forge",
		"README.md:8: docs/p.png#x: anchor into a file that is not Markdown",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLinksAfterLongLine: a line of any length (here 2 MiB, past a
// default line scanner's limit) neither ends the scan nor hides the links
// after it, and CRLF line ends do not reach the targets.
func TestLinksAfterLongLine(t *testing.T) {
	text := strings.Repeat("x", 2<<20) + "\r\n[a](a.md)\r\n```\n[b](b.md)\n```\n[c](c.md#top)\r\n"
	got := Links(text)
	want := []Link{{Line: 2, Target: "a.md"}, {Line: 6, Target: "c.md#top"}}
	if len(got) != len(want) {
		t.Fatalf("Links = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("link %d = %v, want %v", i, got[i], want[i])
		}
	}
}
