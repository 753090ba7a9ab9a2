package proc

import (
	"fmt"
	"strings"
)

// SplitCommand splits a shell-style command line into words: spaces
// separate words, single and double quotes group, and a backslash escapes
// the next character outside single quotes. No expansion is done.
func SplitCommand(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		has   bool
		quote byte
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\\' && i+1 < len(s) && (quote == 0 || quote == '"'):
			i++
			cur.WriteByte(s[i])
			has = true
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote = c
			has = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if has {
				words = append(words, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteByte(c)
			has = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("command %q: unterminated %c quote", s, quote)
	}
	if has {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("empty engine command")
	}
	return words, nil
}
