package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/uci/proc"
)

// uciDriver speaks UCI.
type uciDriver struct{}

func (uciDriver) handshake(ctx context.Context, e *Engine) error {
	if err := e.p.Send("uci"); err != nil {
		return err
	}
	deadline := time.Now().Add(e.spec.HandshakeTimeout)
	for {
		line, err := e.p.ReadLine(ctx, deadline)
		if err != nil {
			return handshakeErr("uciok", err)
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "uciok":
			return nil
		case "id":
			if len(f) >= 3 && f[1] == "name" {
				e.id = strings.Join(f[2:], " ")
			}
		case "option":
			if o, ok := parseUCIOption(f[1:]); ok {
				e.opts = append(e.opts, o)
			}
		}
	}
}

// handshakeErr turns a timeout into ErrHandshake.
func handshakeErr(what string, err error) error {
	if errors.Is(err, proc.ErrTimeout) {
		return fmt.Errorf("waiting for %s: %w", what, ErrHandshake)
	}
	return fmt.Errorf("waiting for %s: %w", what, err)
}

// parseUCIOption reads the tokens after "option". Names may hold spaces.
func parseUCIOption(f []string) (OptionInfo, bool) {
	var o OptionInfo
	key := ""
	var name, def []string
	for _, t := range f {
		switch t {
		case "name", "type", "default", "min", "max", "var":
			if t == "var" {
				o.Vars = append(o.Vars, "")
			}
			key = t
			continue
		}
		switch key {
		case "name":
			name = append(name, t)
		case "type":
			o.Type = t
		case "default":
			def = append(def, t)
		case "min":
			o.Min, _ = strconv.Atoi(t)
			o.HasRange = true
		case "max":
			o.Max, _ = strconv.Atoi(t)
			o.HasRange = true
		case "var":
			v := &o.Vars[len(o.Vars)-1]
			if *v != "" {
				*v += " "
			}
			*v += t
		}
	}
	o.Name, o.Default = strings.Join(name, " "), strings.Join(def, " ")
	return o, o.Name != ""
}

func (uciDriver) setOption(e *Engine, o Option) error {
	info, ok := e.option(o.Name)
	if !ok {
		return fmt.Errorf("option %q: %w (it announces %s)", o.Name, ErrUnsupported, optionNames(e.opts))
	}
	if err := checkValue(info, o.Value); err != nil {
		return err
	}
	line := "setoption name " + info.Name
	if info.Type != "button" {
		line += " value " + o.Value
	}
	return e.p.Send(line)
}

// checkValue checks a value against an announced option.
func checkValue(info OptionInfo, v string) error {
	switch info.Type {
	case "spin":
		n, err := strconv.Atoi(v)
		if err != nil || (info.HasRange && (n < info.Min || n > info.Max)) {
			return fmt.Errorf("option %s=%s: %w: want an integer from %d to %d", info.Name, v, ErrUnsupported, info.Min, info.Max)
		}
	case "check":
		if v != "true" && v != "false" {
			return fmt.Errorf("option %s=%s: %w: want true or false", info.Name, v, ErrUnsupported)
		}
	case "combo":
		for _, c := range info.Vars {
			if strings.EqualFold(c, v) {
				return nil
			}
		}
		return fmt.Errorf("option %s=%s: %w: want one of %s", info.Name, v, ErrUnsupported, strings.Join(info.Vars, ", "))
	}
	return nil
}

func optionNames(opts []OptionInfo) string {
	if len(opts) == 0 {
		return "no options"
	}
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}

func (uciDriver) sync(ctx context.Context, e *Engine) error {
	if err := e.p.Send("isready"); err != nil {
		return err
	}
	deadline := time.Now().Add(e.spec.HandshakeTimeout)
	for {
		line, err := e.p.ReadLine(ctx, deadline)
		if err != nil {
			return handshakeErr("readyok", err)
		}
		if strings.TrimSpace(line) == "readyok" {
			return nil
		}
	}
}

func (d uciDriver) newGame(ctx context.Context, e *Engine, g NewGame) error {
	if e.HasOption("Ponder") {
		if err := e.p.Send(fmt.Sprintf("setoption name Ponder value %t", e.spec.Ponder)); err != nil {
			return err
		}
	}
	if e.HasOption("UCI_Chess960") {
		if err := e.p.Send(fmt.Sprintf("setoption name UCI_Chess960 value %t", g.Chess960)); err != nil {
			return err
		}
	}
	if o := g.Opponent; o != nil && e.HasOption("UCI_Opponent") {
		title, rating, kind := o.Title, "none", "human"
		if title == "" {
			title = "none"
		}
		if o.Rating > 0 {
			rating = strconv.Itoa(o.Rating)
		}
		if o.Computer {
			kind = "computer"
		}
		name := strings.Join(strings.Fields(o.Name), " ")
		if err := e.p.Send("setoption name UCI_Opponent value " + title + " " + rating + " " + kind + " " + name); err != nil {
			return err
		}
	}
	if g.HasRatingAdv && e.HasOption("UCI_RatingAdv") {
		if err := e.p.Send("setoption name UCI_RatingAdv value " + strconv.Itoa(g.RatingAdv)); err != nil {
			return err
		}
	}
	if err := e.p.Send("ucinewgame"); err != nil {
		return err
	}
	return d.sync(ctx, e)
}

func (uciDriver) canPonder(e *Engine) bool { return e.HasOption("Ponder") }

func (uciDriver) search(e *Engine, s *Search) (BestMove, error) {
	var b strings.Builder
	if s.pos.FEN == "" {
		b.WriteString("position startpos")
	} else {
		b.WriteString("position fen ")
		b.WriteString(s.pos.FEN)
	}
	if len(s.pos.Moves) > 0 {
		b.WriteString(" moves")
		for _, m := range s.pos.Moves {
			b.WriteByte(' ')
			b.WriteString(m)
		}
	}
	if err := e.p.Send(b.String()); err != nil {
		return BestMove{}, err
	}
	var res BestMove
	res.GoSent = time.Now()
	if err := e.p.Send(goCommand(s.lim)); err != nil {
		return BestMove{}, err
	}
	var (
		// Some engines lose a stop or ponderhit that comes right after go
		// (Ethereal 12 then ponders forever): both wait until the search
		// shows a sign of life, its first line, or settleTime has passed.
		alive             bool
		settled           = time.After(settleTime)
		wantHit, wantStop bool
		hitSent, stopSent bool
		early             *BestMove // a ponder search's answer before ponderhit or stop
		grace             <-chan time.Time
		ctxDone           = s.ctx.Done()
	)
	// act sends what is wanted and may be sent now.
	act := func() error {
		if !alive {
			return nil
		}
		if wantHit && !hitSent && !stopSent && s.lim.Ponder {
			hitSent = true
			if err := e.p.Send("ponderhit"); err != nil {
				return err
			}
		}
		if wantStop && !stopSent {
			stopSent = true
			grace = time.After(e.spec.StopGrace)
			return e.p.Send("stop")
		}
		return nil
	}
	for {
		select {
		case line, ok := <-e.p.Lines():
			if !ok {
				return BestMove{}, e.p.Err()
			}
			if !alive {
				alive = true
				if err := act(); err != nil {
					return BestMove{}, err
				}
			}
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			switch f[0] {
			case "info":
				info, err := ParseUCIInfo(f[1:])
				if err != nil {
					continue // a malformed report is skipped, not a fault
				}
				if info.HasScore && info.Bound == Exact && info.MultiPV <= 1 && len(info.PV) > 0 {
					res.Last, res.HasLast = info, true
				}
				if s.info != nil {
					s.info(info)
				}
			case "bestmove":
				res.Read = time.Now()
				if len(f) < 2 || !validMove(f[1]) {
					return BestMove{}, fmt.Errorf("%w: %q", ErrBadMove, truncate(line))
				}
				res.Move = f[1]
				if len(f) >= 4 && f[2] == "ponder" && validMove(f[3]) {
					res.Ponder = f[3]
				}
				if s.lim.Ponder && !hitSent && !stopSent {
					// Too early: the caller may only see an answer after
					// ponderhit or stop, which the engine was not sent.
					early = &res
					if wantHit || wantStop {
						return res, nil
					}
					continue
				}
				return res, nil
			}
		case <-settled:
			settled = nil
			alive = true
			if err := act(); err != nil {
				return BestMove{}, err
			}
		case <-s.signals:
			hit, stop := s.pending()
			wantHit, wantStop = wantHit || hit, wantStop || stop
			if early != nil && (wantHit || wantStop) {
				return *early, nil
			}
			if err := act(); err != nil {
				return BestMove{}, err
			}
		case <-ctxDone:
			ctxDone = nil
			wantStop = true
			if early != nil {
				return *early, nil
			}
			if err := act(); err != nil {
				return BestMove{}, err
			}
		case <-grace:
			return BestMove{}, fmt.Errorf("%w (%v after stop)", ErrHang, e.spec.StopGrace)
		}
	}
}

// settleTime is the longest a stop or ponderhit waits for a new search to
// show a sign of life.
const settleTime = 50 * time.Millisecond

// goCommand writes the go line for lim.
func goCommand(l Limits) string {
	var b strings.Builder
	b.WriteString("go")
	if l.Ponder {
		b.WriteString(" ponder")
	}
	ms := func(k string, d time.Duration) {
		fmt.Fprintf(&b, " %s %d", k, max(d.Milliseconds(), 1))
	}
	if l.WTime > 0 || l.BTime > 0 {
		ms("wtime", l.WTime)
		ms("btime", l.BTime)
		fmt.Fprintf(&b, " winc %d binc %d", l.WInc.Milliseconds(), l.BInc.Milliseconds())
	}
	if l.MovesToGo > 0 {
		fmt.Fprintf(&b, " movestogo %d", l.MovesToGo)
	}
	if l.MoveTime > 0 {
		ms("movetime", l.MoveTime)
	}
	if l.Depth > 0 {
		fmt.Fprintf(&b, " depth %d", l.Depth)
	}
	if l.Nodes > 0 {
		fmt.Fprintf(&b, " nodes %d", l.Nodes)
	}
	if l.Infinite {
		b.WriteString(" infinite")
	}
	return b.String()
}

// ParseUCIInfo reads the tokens after "info" (the engine's client and
// uci/match both read info lines with it). Unknown tokens are skipped;
// a known field with a bad value is an error.
func ParseUCIInfo(f []string) (Info, error) {
	var in Info
	num := func(i int) (int64, error) {
		if i+1 >= len(f) {
			return 0, fmt.Errorf("info: %s without a value", f[i])
		}
		v, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("info %s: %w", f[i], err)
		}
		return v, nil
	}
	for i := 0; i < len(f); i++ {
		var v int64
		var err error
		switch f[i] {
		case "depth", "seldepth", "multipv", "nodes", "nps", "time", "hashfull", "currmovenumber":
			if v, err = num(i); err != nil {
				return Info{}, err
			}
			switch f[i] {
			case "depth":
				in.Depth = int(v)
			case "seldepth":
				in.SelDepth = int(v)
			case "multipv":
				in.MultiPV = int(v)
			case "nodes":
				in.Nodes = uint64(max(v, 0))
			case "nps":
				in.NPS = uint64(max(v, 0))
			case "time":
				in.Time = time.Duration(max(v, 0)) * time.Millisecond
			case "hashfull":
				in.HashFull = int(v)
			case "currmovenumber":
				in.CurrMoveNumber = int(v)
			}
			i++
		case "score":
			if i+2 >= len(f) {
				return Info{}, errors.New("info: score without a value")
			}
			n, err := strconv.Atoi(f[i+2])
			if err != nil {
				return Info{}, fmt.Errorf("info score: %w", err)
			}
			switch f[i+1] {
			case "cp":
				in.CP, in.Mate = n, 0
			case "mate":
				if n == 0 {
					n = -1 // "mate 0": the side to move is mated
				}
				in.Mate = n
			default:
				return Info{}, fmt.Errorf("info score: unknown kind %q", f[i+1])
			}
			in.HasScore = true
			i += 2
		case "lowerbound":
			in.Bound = Lower
		case "upperbound":
			in.Bound = Upper
		case "currmove":
			if i+1 < len(f) {
				in.CurrMove = f[i+1]
				i++
			}
		case "pv":
			in.PV = append([]string(nil), f[i+1:]...)
			i = len(f)
		case "string":
			in.String = strings.Join(f[i+1:], " ")
			i = len(f)
		}
	}
	return in, nil
}

// truncate shortens a line for an error message.
func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
