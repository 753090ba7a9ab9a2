// Package doccheck finds broken links in the repository's Markdown: a
// relative link to a file that does not exist, or to a heading (#anchor)
// that its file does not have. The README and the notes beside the code
// link to one another by section; when text moves (the NNUE lab notebook
// left the README) the links must move with it, and this says where they
// did not.
package doccheck

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Problem is one broken link.
type Problem struct {
	File   string // the Markdown file, slash-separated, relative to the root
	Line   int    // 1-based
	Target string // the link as written
	Reason string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Target, p.Reason)
}

// link matches an inline link or image's target: ](target) or ](target "title").
var link = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// inlineCode matches a code span, whose text is not Markdown.
var inlineCode = regexp.MustCompile("`+[^`]*`+")

// Check reads every .md file under root in fsys (skipping directories whose
// names begin with a dot) and returns the relative links that do not resolve.
// External links (with a scheme) are not checked: the tests run offline.
func Check(fsys fs.FS) ([]Problem, error) {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	anchors := map[string]map[string]bool{} // file -> its headings' anchors, read on demand
	anchorsOf := func(file string) (map[string]bool, error) {
		if a, ok := anchors[file]; ok {
			return a, nil
		}
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		a := Anchors(string(data))
		anchors[file] = a
		return a, nil
	}
	var problems []Problem
	for _, file := range files {
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		for _, l := range Links(string(data)) {
			target, anchor, _ := strings.Cut(l.Target, "#")
			if strings.Contains(target, ":") { // http:, https:, mailto:
				continue
			}
			dest := file
			if target != "" {
				if strings.HasPrefix(target, "/") {
					problems = append(problems, Problem{file, l.Line, l.Target, "absolute path: not portable to a clone or a forge"})
					continue
				}
				dest = path.Join(path.Dir(file), target)
				info, err := fs.Stat(fsys, strings.TrimSuffix(dest, "/"))
				if err != nil {
					problems = append(problems, Problem{file, l.Line, l.Target, "no such file or directory"})
					continue
				}
				if info.IsDir() || !strings.HasSuffix(dest, ".md") {
					if anchor != "" && !info.IsDir() {
						problems = append(problems, Problem{file, l.Line, l.Target, "anchor into a file that is not Markdown"})
					}
					continue
				}
			}
			if anchor == "" {
				continue
			}
			a, err := anchorsOf(dest)
			if err != nil {
				return nil, err
			}
			if !a[anchor] {
				problems = append(problems, Problem{file, l.Line, l.Target, "no heading with that anchor in " + dest})
			}
		}
	}
	return problems, nil
}

// Link is a link's target and the line it is on.
type Link struct {
	Line   int
	Target string
}

// Links returns the inline links of a Markdown text, outside code.
func Links(text string) []Link {
	var out []Link
	outsideCode(text, func(n int, line string) {
		line = inlineCode.ReplaceAllString(line, "")
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Line: n, Target: strings.Trim(m[1], "<>")})
		}
	})
	return out
}

// outsideCode calls f with each line of text (numbered from 1) that is
// not inside a fenced code block, nor a fence itself.
func outsideCode(text string, f func(n int, line string)) {
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			f(i+1, line)
		}
	}
}

// Anchors returns the anchors a forge such as GitHub gives the headings of a
// Markdown text: the heading's text in lower case, a link reduced to its text,
// every character but letters, digits, marks, '-' and '_' dropped and each
// space made '-'; a repeated anchor gets -1, -2 and so on.
func Anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	outsideCode(text, func(_ int, line string) {
		if !strings.HasPrefix(line, "#") {
			return
		}
		title := strings.TrimLeft(line, "#")
		if len(line)-len(title) > 6 || (title != "" && title[0] != ' ') {
			return
		}
		title = link.ReplaceAllString(strings.TrimSpace(title), "]")
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if k := seen[slug]; k > 0 {
			out[slug+"-"+strconv.Itoa(k)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	})
	return out
}
