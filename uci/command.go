package uci

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Command is one parsed line from the GUI. The concrete types are the
// structs below (UCICmd, Debug, IsReady, …); a type switch dispatches them.
type Command interface {
	command()
}

// UCICmd is "uci": identify and list the options.
type UCICmd struct{}

// Debug is "debug on|off".
type Debug struct{ On bool }

// IsReady is "isready".
type IsReady struct{}

// SetOption is "setoption name <id> [value <x>]". Name keeps the GUI's
// spelling (with single spaces between words); options are matched
// case-insensitively. Value is the raw text after "value" with the inner
// spacing kept.
type SetOption struct {
	Name     string
	Value    string
	HasValue bool
}

// Register is "register later" or "register name <x> code <y>".
type Register struct {
	Later      bool
	Name, Code string
}

// NewGame is "ucinewgame".
type NewGame struct{}

// Position is "position startpos|fen <fen> [moves <m1> …]". FEN is empty
// for startpos. Moves are kept as strings: the front-end applies them and
// reports the first one that does not parse or is illegal.
type Position struct {
	FEN   string
	Moves []string
}

// Go is "go" with its parameters. Absent parameters are zero. A wtime or
// btime at or below zero (a clock that has run out) is negative, at most
// -1 ms: it means "move now" (engine.Limits reads it so). Perft > 0 marks
// the "go perft N" extension.
type Go struct {
	SearchMoves              []string
	Ponder, Infinite         bool
	WTime, BTime, WInc, BInc time.Duration
	MovesToGo                int
	Depth, Mate              int
	Nodes                    uint64
	MoveTime                 time.Duration
	Perft                    int
}

// Stop is "stop".
type Stop struct{}

// PonderHit is "ponderhit".
type PonderHit struct{}

// Quit is "quit".
type Quit struct{}

// Bench is the "bench [depth]" extension.
type Bench struct{ Depth int }

// Display is the "d" extension: print the board and FEN.
type Display struct{}

// Eval is the "eval" extension: print the static evaluation breakdown.
type Eval struct{}

func (UCICmd) command()    {}
func (Debug) command()     {}
func (IsReady) command()   {}
func (SetOption) command() {}
func (Register) command()  {}
func (NewGame) command()   {}
func (Position) command()  {}
func (Go) command()        {}
func (Stop) command()      {}
func (PonderHit) command() {}
func (Quit) command()      {}
func (Bench) command()     {}
func (Display) command()   {}
func (Eval) command()      {}

// ErrEmpty is returned by Parse for a line holding no known command
// (blank, or only unknown tokens); the spec says to ignore such lines.
var ErrEmpty = errors.New("uci: no command")

// token is a word of the line with its byte offsets, so that values with
// inner spaces (option values, paths) can be cut out unchanged.
type token struct {
	s          string
	start, end int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

func tokenize(line string) []token {
	var toks []token
	i := 0
	for i < len(line) {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		toks = append(toks, token{line[i:j], i, j})
		i = j
	}
	return toks
}

// Parse turns one input line into a Command, as tolerantly as the UCI spec
// asks: any whitespace (including CR) separates tokens, unknown leading
// tokens are skipped ("joho debug on" is "debug on"), unknown tokens inside
// a command are ignored. It returns ErrEmpty when the line holds no known
// command and a descriptive error for a command too malformed to act on
// (e.g. "position" with neither startpos nor fen). It never panics.
func Parse(line string) (Command, error) {
	toks := tokenize(line)
	for i, t := range toks {
		args := toks[i+1:]
		switch t.s {
		case "uci":
			return UCICmd{}, nil
		case "debug":
			on := true
			for _, a := range args {
				if a.s == "off" {
					on = false
					break
				}
				if a.s == "on" {
					break
				}
			}
			return Debug{On: on}, nil
		case "isready":
			return IsReady{}, nil
		case "setoption":
			return parseSetOption(line, args)
		case "register":
			return parseRegister(line, args), nil
		case "ucinewgame":
			return NewGame{}, nil
		case "position":
			return parsePosition(args)
		case "go":
			return parseGo(args), nil
		case "stop":
			return Stop{}, nil
		case "ponderhit":
			return PonderHit{}, nil
		case "quit":
			return Quit{}, nil
		case "bench":
			b := Bench{}
			if len(args) > 0 {
				if d, err := strconv.Atoi(args[0].s); err == nil && d > 0 {
					b.Depth = d
				}
			}
			return b, nil
		case "d":
			return Display{}, nil
		case "eval":
			return Eval{}, nil
		}
	}
	return nil, ErrEmpty
}

// span returns the raw text of line covered by toks (inner spacing kept).
func span(line string, toks []token) string {
	if len(toks) == 0 {
		return ""
	}
	return line[toks[0].start:toks[len(toks)-1].end]
}

func joinTokens(toks []token) string {
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = t.s
	}
	return strings.Join(parts, " ")
}

func parseSetOption(line string, args []token) (Command, error) {
	nameAt := -1
	for i, a := range args {
		if strings.EqualFold(a.s, "name") {
			nameAt = i
			break
		}
	}
	if nameAt < 0 {
		return nil, errors.New("setoption: missing \"name\"")
	}
	rest := args[nameAt+1:]
	valueAt := -1
	for i, a := range rest {
		if strings.EqualFold(a.s, "value") {
			valueAt = i
			break
		}
	}
	opt := SetOption{}
	if valueAt < 0 {
		opt.Name = joinTokens(rest)
	} else {
		opt.Name = joinTokens(rest[:valueAt])
		opt.Value = span(line, rest[valueAt+1:])
		opt.HasValue = true
	}
	if opt.Name == "" {
		return nil, errors.New("setoption: empty option name")
	}
	return opt, nil
}

func parseRegister(line string, args []token) Register {
	r := Register{}
	field := ""
	var name, code []token
	// Each field is the one run of words after its first keyword: a
	// repeated "name" or "code" ends the field before it and opens none, so
	// a value never spans another field (which would not read back the same).
	seen := map[string]bool{}
	for _, a := range args {
		switch a.s {
		case "later":
			r.Later = true
			field = ""
			continue
		case "name", "code":
			field = ""
			if !seen[a.s] {
				seen[a.s] = true
				field = a.s
			}
			continue
		}
		switch field {
		case "name":
			name = append(name, a)
		case "code":
			code = append(code, a)
		}
	}
	r.Name = span(line, name)
	r.Code = span(line, code)
	return r
}

func parsePosition(args []token) (Command, error) {
	p := Position{}
	i := 0
	// Skip unknown tokens up to startpos or fen.
	for i < len(args) && args[i].s != "startpos" && args[i].s != "fen" && args[i].s != "moves" {
		i++
	}
	if i == len(args) || args[i].s == "moves" {
		return nil, errors.New("position: want \"startpos\" or \"fen <fen>\"")
	}
	if args[i].s == "fen" {
		j := i + 1
		for j < len(args) && args[j].s != "moves" {
			j++
		}
		if j == i+1 {
			return nil, errors.New("position: \"fen\" without a FEN")
		}
		p.FEN = joinTokens(args[i+1 : j])
		i = j
	} else {
		i++
	}
	for i < len(args) && args[i].s != "moves" {
		i++
	}
	if i < len(args) {
		for _, a := range args[i+1:] {
			p.Moves = append(p.Moves, a.s)
		}
	}
	return p, nil
}

// goKeywords are the tokens that end a searchmoves list.
var goKeywords = map[string]bool{
	"searchmoves": true, "ponder": true, "wtime": true, "btime": true, "winc": true, "binc": true,
	"movestogo": true, "depth": true, "nodes": true, "mate": true, "movetime": true, "infinite": true,
	"perft": true,
}

func parseGo(args []token) Go {
	g := Go{}
	num := func(i int) (int64, bool) {
		if i >= len(args) {
			return 0, false
		}
		v, err := strconv.ParseInt(args[i].s, 10, 64)
		if err != nil {
			// Some GUIs send fractional or out-of-range values: take what fits.
			f, ferr := strconv.ParseFloat(args[i].s, 64)
			if ferr != nil || f != f {
				return 0, false
			}
			switch {
			case f > 1<<62:
				v = 1 << 62
			case f < -(1 << 62):
				v = -(1 << 62)
			default:
				v = int64(f)
			}
		}
		return v, true
	}
	ms := func(v int64) time.Duration {
		if v < 0 {
			return 0 // a GUI may send a negative clock after an overstep
		}
		if v > int64(365*24*time.Hour/time.Millisecond) {
			v = int64(365 * 24 * time.Hour / time.Millisecond)
		}
		return time.Duration(v) * time.Millisecond
	}
	// A clock at or below zero has run out (GUIs send one after an
	// overstep): it is kept negative, at least -1 ms, so that it reads as
	// "move now" and never as "no clock", which would search forever.
	clock := func(v int64) time.Duration {
		if v > 0 {
			return ms(v)
		}
		return -max(ms(-v), time.Millisecond)
	}
	count := func(v int64) int {
		if v < 0 {
			return 0
		}
		if v > 1<<30 {
			return 1 << 30
		}
		return int(v)
	}
	for i := 0; i < len(args); i++ {
		key := args[i].s
		switch key {
		case "ponder":
			g.Ponder = true
			continue
		case "infinite":
			g.Infinite = true
			continue
		case "searchmoves":
			for i+1 < len(args) && !goKeywords[args[i+1].s] {
				i++
				g.SearchMoves = append(g.SearchMoves, args[i].s)
			}
			continue
		case "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime", "perft":
		default:
			continue // unknown token: ignore
		}
		v, ok := num(i + 1)
		if !ok {
			continue // value missing or not a number: ignore the parameter
		}
		i++
		switch key {
		case "wtime":
			g.WTime = clock(v)
		case "btime":
			g.BTime = clock(v)
		case "winc":
			g.WInc = ms(v)
		case "binc":
			g.BInc = ms(v)
		case "movetime":
			g.MoveTime = ms(v)
		case "movestogo":
			g.MovesToGo = count(v)
		case "depth":
			g.Depth = count(v)
		case "mate":
			g.Mate = count(v)
		case "perft":
			g.Perft = count(v)
		case "nodes":
			if v > 0 {
				g.Nodes = uint64(v)
			}
		}
	}
	return g
}

// String renders c back as a canonical UCI line (used by the debug echo and
// by tests: Parse(c.String()) gives c again).
func String(c Command) string {
	switch c := c.(type) {
	case UCICmd:
		return "uci"
	case Debug:
		if c.On {
			return "debug on"
		}
		return "debug off"
	case IsReady:
		return "isready"
	case SetOption:
		if c.HasValue {
			return "setoption name " + c.Name + " value " + c.Value
		}
		return "setoption name " + c.Name
	case Register:
		if c.Later {
			return "register later"
		}
		return strings.TrimSpace("register name " + c.Name + " code " + c.Code)
	case NewGame:
		return "ucinewgame"
	case Position:
		var b strings.Builder
		b.WriteString("position ")
		if c.FEN == "" {
			b.WriteString("startpos")
		} else {
			b.WriteString("fen " + c.FEN)
		}
		if len(c.Moves) > 0 {
			b.WriteString(" moves " + strings.Join(c.Moves, " "))
		}
		return b.String()
	case Go:
		return goString(c)
	case Stop:
		return "stop"
	case PonderHit:
		return "ponderhit"
	case Quit:
		return "quit"
	case Bench:
		if c.Depth > 0 {
			return fmt.Sprintf("bench %d", c.Depth)
		}
		return "bench"
	case Display:
		return "d"
	case Eval:
		return "eval"
	}
	return ""
}

func goString(g Go) string {
	var b strings.Builder
	b.WriteString("go")
	if g.Perft > 0 {
		fmt.Fprintf(&b, " perft %d", g.Perft)
	}
	if g.Ponder {
		b.WriteString(" ponder")
	}
	msField := func(name string, d time.Duration) {
		if d.Milliseconds() > 0 {
			fmt.Fprintf(&b, " %s %d", name, d.Milliseconds())
		}
	}
	for _, c := range []struct {
		name string
		d    time.Duration
	}{{"wtime", g.WTime}, {"btime", g.BTime}} {
		if c.d != 0 {
			fmt.Fprintf(&b, " %s %d", c.name, c.d.Milliseconds())
		}
	}
	msField("winc", g.WInc)
	msField("binc", g.BInc)
	if g.MovesToGo > 0 {
		fmt.Fprintf(&b, " movestogo %d", g.MovesToGo)
	}
	if g.Depth > 0 {
		fmt.Fprintf(&b, " depth %d", g.Depth)
	}
	if g.Nodes > 0 {
		fmt.Fprintf(&b, " nodes %d", g.Nodes)
	}
	if g.Mate > 0 {
		fmt.Fprintf(&b, " mate %d", g.Mate)
	}
	msField("movetime", g.MoveTime)
	if g.Infinite {
		b.WriteString(" infinite")
	}
	if len(g.SearchMoves) > 0 {
		b.WriteString(" searchmoves " + strings.Join(g.SearchMoves, " "))
	}
	return b.String()
}
