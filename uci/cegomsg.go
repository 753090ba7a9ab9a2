package uci

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CEGOFirst is the mediator's first-move message of CEGO revision 1:
// "<YOUR-TIME> <YOUR-INCREMENT> <OPPONENT-TIME> <OPPONENT-INCREMENT> <FEN>".
type CEGOFirst struct {
	YourTime, YourInc, OppTime, OppInc time.Duration
	FEN                                string
}

// CEGONext is a subsequent-move message: "<YOUR-TIME> <OPPONENT-TIME> <PLAYED-MOVE>".
type CEGONext struct {
	YourTime, OppTime time.Duration
	Move              string
}

// trimEOL removes the single line terminator CEGO allows ("\n", or "\r\n"
// on Windows). Anything else around the message is a format error.
func trimEOL(line string) string {
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r")
}

// checkASCII rejects empty messages, non-ASCII bytes and control characters.
func checkASCII(line string) error {
	if line == "" {
		return errors.New("empty message")
	}
	for i := 0; i < len(line); i++ {
		if c := line[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("byte 0x%02x at offset %d is not printable ASCII", c, i)
		}
	}
	return nil
}

// parseNanos parses a CEGO time: a non-negative 64-bit integer of
// nanoseconds, digits only.
func parseNanos(what, s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("%s: empty field (fields are separated by exactly one space)", what)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%s: %s is not a non-negative integer of nanoseconds", what, clip(s))
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s does not fit in 64 bits", what, clip(s))
	}
	return time.Duration(v), nil
}

// isLAN reports whether s has the shape of a CEGO long-algebraic move:
// two squares and an optional lower-case promotion letter.
func isLAN(s string) bool {
	if len(s) != 4 && len(s) != 5 {
		return false
	}
	for i := 0; i < 4; i += 2 {
		if s[i] < 'a' || s[i] > 'h' || s[i+1] < '1' || s[i+1] > '8' {
			return false
		}
	}
	return len(s) == 4 || strings.IndexByte("qrbn", s[4]) >= 0
}

// ParseCEGOFirst parses a first-move message. CEGO is strict: fields are
// separated by exactly one space, and the FEN is everything after the
// fourth field (its own fields again single-space separated). The FEN is
// only checked for shape here; the caller sets it up on a board.
func ParseCEGOFirst(line string) (CEGOFirst, error) {
	line = trimEOL(line)
	if err := checkASCII(line); err != nil {
		return CEGOFirst{}, fmt.Errorf("cego: first-move message: %w", err)
	}
	f := strings.SplitN(line, " ", 5)
	if len(f) != 5 {
		return CEGOFirst{}, fmt.Errorf("cego: first-move message %s: want 4 times and a FEN", clip(line))
	}
	var m CEGOFirst
	var err error
	names := [4]string{"your time", "your increment", "opponent time", "opponent increment"}
	vals := [4]*time.Duration{&m.YourTime, &m.YourInc, &m.OppTime, &m.OppInc}
	for i := range 4 {
		if *vals[i], err = parseNanos(names[i], f[i]); err != nil {
			return CEGOFirst{}, fmt.Errorf("cego: first-move message: %w", err)
		}
	}
	m.FEN = f[4]
	ff := strings.Split(m.FEN, " ")
	if len(ff) < 4 || len(ff) > 6 {
		return CEGOFirst{}, fmt.Errorf("cego: first-move message: FEN %s has %d fields", clip(m.FEN), len(ff))
	}
	for _, x := range ff {
		if x == "" {
			return CEGOFirst{}, fmt.Errorf("cego: first-move message: FEN %s has an empty field", clip(m.FEN))
		}
	}
	return m, nil
}

// ParseCEGONext parses a subsequent-move message.
func ParseCEGONext(line string) (CEGONext, error) {
	line = trimEOL(line)
	if err := checkASCII(line); err != nil {
		return CEGONext{}, fmt.Errorf("cego: move message: %w", err)
	}
	f := strings.Split(line, " ")
	if len(f) != 3 {
		return CEGONext{}, fmt.Errorf("cego: move message %s: want \"<your time> <opponent time> <move>\"", clip(line))
	}
	var m CEGONext
	var err error
	if m.YourTime, err = parseNanos("your time", f[0]); err != nil {
		return CEGONext{}, fmt.Errorf("cego: move message: %w", err)
	}
	if m.OppTime, err = parseNanos("opponent time", f[1]); err != nil {
		return CEGONext{}, fmt.Errorf("cego: move message: %w", err)
	}
	if !isLAN(f[2]) {
		return CEGONext{}, fmt.Errorf("cego: move message: %s is not a move in long algebraic notation", clip(f[2]))
	}
	m.Move = f[2]
	return m, nil
}

// String renders m as the wire message, without the newline.
func (m CEGOFirst) String() string {
	return fmt.Sprintf("%d %d %d %d %s", int64(m.YourTime), int64(m.YourInc), int64(m.OppTime), int64(m.OppInc), m.FEN)
}

// String renders m as the wire message, without the newline.
func (m CEGONext) String() string {
	return fmt.Sprintf("%d %d %s", int64(m.YourTime), int64(m.OppTime), m.Move)
}

// clipAt is the most of an input that an error message quotes.
const clipAt = 64

// clip quotes s for an error message, cut to its first clipAt bytes (with
// the full length said) so that no error repeats a whole long input.
func clip(s string) string {
	if len(s) <= clipAt {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:clipAt], len(s))
}
