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

// xboardDriver speaks xboard (CECP) protocol version 2. The engine is kept
// in force mode between searches: a search sends the moves the engine's
// board lacks (or new + setboard + every move when the game does not
// continue its board), the clocks, and go; the answer is "move X", after
// which force mode is restored. Pondering is not used (easy).
type xboardDriver struct {
	features map[string]string
	pings    int

	// The engine's board: start FEN ("" = standard) and moves.
	synced    bool
	fen       string
	moves     []string
	base, inc time.Duration // the game's clock, for level

}

// moveNowError reports whether line is an engine's error answer to our
// "?" (move now), as in "Error (unknown command): ?". It refuses nothing:
// the engine was not thinking when it read the "?".
func moveNowError(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "Error") && strings.HasSuffix(line, ": ?")
}

// Without "feature done=0", an engine's features are over once no line
// has come for xboardFeatureWait after the first one (an engine of
// protocol version 1, which says nothing, takes the whole handshake
// timeout).
const xboardFeatureWait = 2 * time.Second

func (d *xboardDriver) handshake(ctx context.Context, e *Engine) error {
	d.features = map[string]string{}
	if err := e.p.Send("xboard"); err != nil {
		return err
	}
	if err := e.p.Send("protover 2"); err != nil {
		return err
	}
	hard := time.Now().Add(e.spec.HandshakeTimeout)
	deadline := hard // the first line may take long on a loaded machine
	waitDone := false
	for {
		wait := deadline
		if hard.Before(wait) {
			wait = hard
		}
		line, err := e.p.ReadLine(ctx, wait)
		if errors.Is(err, proc.ErrTimeout) && time.Now().Before(hard) {
			break // no done=0: the features so far are all there is
		}
		if err != nil {
			return handshakeErr("feature done=1", err)
		}
		if !waitDone {
			deadline = time.Now().Add(xboardFeatureWait)
		}
		if !strings.HasPrefix(line, "feature ") {
			continue
		}
		for _, kv := range parseFeatures(line[len("feature "):]) {
			k, v := kv[0], kv[1]
			reply := "accepted "
			switch k {
			case "done":
				if v == "1" {
					goto done
				}
				deadline, waitDone = hard, true // done=0: wait for done=1 as long as allowed
			case "option":
				if o, ok := parseXBoardOption(v); ok {
					e.opts = append(e.opts, o)
				}
			case "myname":
				e.id = v
			case "sigint", "sigterm":
				reply = "rejected " // we never signal; quit and kill end it
			}
			d.features[k] = v
			if err := e.p.Send(reply + k); err != nil {
				return err
			}
		}
	}
done:
	for _, c := range []string{"post", "easy", "new", "force"} {
		if err := e.p.Send(c); err != nil {
			return err
		}
	}
	return nil
}

// parseFeatures splits `a=1 b="x y" c=2` into pairs.
func parseFeatures(s string) [][2]string {
	var out [][2]string
	for {
		s = strings.TrimLeft(s, " \t")
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return out
		}
		k := strings.TrimSpace(s[:eq])
		s = s[eq+1:]
		var v string
		if strings.HasPrefix(s, `"`) {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				v, s = s[1:], ""
			} else {
				v, s = s[1:1+end], s[2+end:]
			}
		} else {
			end := strings.IndexAny(s, " \t")
			if end < 0 {
				end = len(s)
			}
			v, s = s[:end], s[end:]
		}
		out = append(out, [2]string{k, v})
	}
}

// parseXBoardOption reads `Name -type default min max` (or combo choices).
func parseXBoardOption(v string) (OptionInfo, bool) {
	i := strings.Index(v, " -")
	if i <= 0 {
		return OptionInfo{}, false
	}
	o := OptionInfo{Name: strings.TrimSpace(v[:i])}
	rest := strings.Fields(v[i+2:])
	if len(rest) == 0 || o.Name == "" {
		return OptionInfo{}, false
	}
	o.Type = rest[0]
	args := rest[1:]
	switch o.Type {
	case "spin", "slider":
		o.Type = "spin"
		if len(args) >= 3 {
			o.Default = args[0]
			mn, err1 := strconv.Atoi(args[1])
			mx, err2 := strconv.Atoi(args[2])
			if err1 == nil && err2 == nil {
				o.Min, o.Max, o.HasRange = mn, mx, true
			}
		}
	case "check":
		if len(args) > 0 {
			o.Default = args[0]
		}
	case "combo":
		for c := range strings.SplitSeq(strings.Join(args, " "), "///") {
			c = strings.TrimSpace(c)
			if strings.HasPrefix(c, "*") {
				c = c[1:]
				o.Default = c
			}
			o.Vars = append(o.Vars, c)
		}
	default:
		o.Default = strings.Join(args, " ")
	}
	return o, true
}

func (d *xboardDriver) setOption(e *Engine, o Option) error {
	switch {
	case strings.EqualFold(o.Name, "Hash") && d.features["memory"] == "1":
		if n, err := strconv.Atoi(o.Value); err != nil || n < 1 {
			return fmt.Errorf("option Hash=%s: %w: want a size in MB", o.Value, ErrUnsupported)
		}
		return e.p.Send("memory " + o.Value)
	case strings.EqualFold(o.Name, "Threads") && d.features["smp"] == "1":
		if n, err := strconv.Atoi(o.Value); err != nil || n < 1 {
			return fmt.Errorf("option Threads=%s: %w: want a number of threads", o.Value, ErrUnsupported)
		}
		return e.p.Send("cores " + o.Value)
	}
	info, ok := e.option(o.Name)
	if !ok {
		return fmt.Errorf("option %q: %w (it announces %s)", o.Name, ErrUnsupported, optionNames(e.opts))
	}
	v := o.Value
	if info.Type == "check" {
		switch v {
		case "true":
			v = "1"
		case "false":
			v = "0"
		}
		if v != "0" && v != "1" {
			return fmt.Errorf("option %s=%s: %w: want true or false", info.Name, o.Value, ErrUnsupported)
		}
	} else if err := checkValue(info, v); err != nil {
		return err
	}
	if info.Type == "button" || info.Type == "save" {
		return e.p.Send("option " + info.Name)
	}
	return e.p.Send("option " + info.Name + "=" + v)
}

func (d *xboardDriver) sync(ctx context.Context, e *Engine) error {
	if d.features["ping"] != "1" {
		return nil
	}
	d.pings++
	want := "pong " + strconv.Itoa(d.pings)
	if err := e.p.Send("ping " + strconv.Itoa(d.pings)); err != nil {
		return err
	}
	deadline := time.Now().Add(e.spec.HandshakeTimeout)
	for {
		line, err := e.p.ReadLine(ctx, deadline)
		if err != nil {
			return handshakeErr(want, err)
		}
		if strings.TrimSpace(line) == want {
			return nil
		}
	}
}

func (d *xboardDriver) newGame(ctx context.Context, e *Engine, g NewGame) error {
	if g.Chess960 {
		return fmt.Errorf("chess960: %w over xboard", ErrUnsupported)
	}
	if g.FEN != "" && d.features["setboard"] != "1" {
		return fmt.Errorf("a game from a position: %w (the engine has no setboard)", ErrUnsupported)
	}
	d.synced, d.base, d.inc = false, g.Base, g.Inc
	cmds := []string{"new", "force", "post", "easy"}
	if o := g.Opponent; o != nil {
		if o.Computer {
			cmds = append(cmds, "computer")
		}
		if d.features["name"] != "0" && o.Name != "" {
			cmds = append(cmds, "name "+strings.Join(strings.Fields(o.Name), " "))
		}
		if o.Rating > 0 && g.OurRating > 0 {
			cmds = append(cmds, fmt.Sprintf("rating %d %d", g.OurRating, o.Rating))
		}
	}
	for _, c := range cmds {
		if err := e.p.Send(c); err != nil {
			return err
		}
	}
	return d.sync(ctx, e)
}

func (d *xboardDriver) canPonder(*Engine) bool { return false }

// continues reports whether pos extends the engine's board.
func (d *xboardDriver) continues(pos Position) bool {
	if !d.synced || pos.FEN != d.fen || len(pos.Moves) < len(d.moves) {
		return false
	}
	for i, m := range d.moves {
		if pos.Moves[i] != m {
			return false
		}
	}
	return true
}

func (d *xboardDriver) search(e *Engine, s *Search) (BestMove, error) {
	if s.lim.Ponder {
		return BestMove{}, fmt.Errorf("ponder search: %w over xboard", ErrUnsupported)
	}
	send := func(cmds ...string) error {
		for _, c := range cmds {
			if err := e.p.Send(c); err != nil {
				return err
			}
		}
		return nil
	}
	from := len(d.moves)
	if !d.continues(s.pos) {
		if s.pos.FEN != "" && d.features["setboard"] != "1" {
			return BestMove{}, fmt.Errorf("a game from a position: %w (no setboard)", ErrUnsupported)
		}
		if err := send("new", "force", "post", "easy"); err != nil {
			return BestMove{}, err
		}
		if s.pos.FEN != "" {
			if err := send("setboard " + s.pos.FEN); err != nil {
				return BestMove{}, err
			}
		}
		d.synced, d.fen, d.moves, from = true, s.pos.FEN, nil, 0
	}
	for _, m := range s.pos.Moves[from:] {
		if d.features["usermove"] == "1" {
			m = "usermove " + m
		}
		if err := send(m); err != nil {
			return BestMove{}, err
		}
	}
	d.moves = append(d.moves[:0], s.pos.Moves...)
	white := true
	if f := strings.Fields(s.pos.FEN); len(f) > 1 && f[1] == "b" {
		white = false
	}
	if len(s.pos.Moves)%2 == 1 {
		white = !white
	}
	l := s.lim
	ours, theirs, inc := l.WTime, l.BTime, l.WInc
	if !white {
		ours, theirs, inc = l.BTime, l.WTime, l.BInc
	}
	switch {
	case l.MoveTime > 0:
		secs := max(1, int((l.MoveTime+time.Second-1)/time.Second))
		if err := send(fmt.Sprintf("st %d", secs)); err != nil {
			return BestMove{}, err
		}
	case ours > 0:
		base := d.base
		if base <= 0 {
			base = ours
		}
		mins, secs := int(base/time.Minute), int(base%time.Minute/time.Second)
		if mins == 0 && secs == 0 {
			secs = 1
		}
		if err := send(fmt.Sprintf("level 0 %d:%02d %d", mins, secs, int(inc/time.Second)),
			fmt.Sprintf("time %d", max(1, ours.Milliseconds()/10)),
			fmt.Sprintf("otim %d", max(1, theirs.Milliseconds()/10))); err != nil {
			return BestMove{}, err
		}
	case l.Depth > 0:
		if err := send(fmt.Sprintf("sd %d", l.Depth)); err != nil {
			return BestMove{}, err
		}
	}
	var res BestMove
	res.GoSent = time.Now()
	if err := send("go"); err != nil {
		return BestMove{}, err
	}
	var (
		stopSent bool
		grace    <-chan time.Time
		ctxDone  = s.ctx.Done()
	)
	// An engine that ignores "?" still moves within its clock: a stop
	// waits for that before it calls the engine hung.
	budget := time.Duration(0)
	switch {
	case l.MoveTime > 0:
		budget = (l.MoveTime + time.Second - 1) / time.Second * time.Second
	case ours > 0:
		budget = ours
	}
	stop := func() error {
		if stopSent {
			return nil
		}
		stopSent = true
		// "?" is optional in CECP: Fairy-Max reads no input while it thinks,
		// so "?" never stops it; it moves in its own time and then answers
		// the "?" it finds waiting with "Error (unknown command): ?". So a
		// stopped search waits for the move as long as the engine's clock
		// allows, not just the stop grace, before calling the engine hung.
		wait := max(e.spec.StopGrace, time.Until(res.GoSent.Add(budget+e.spec.StopGrace)))
		grace = time.After(wait)
		return send("?")
	}
	for {
		select {
		case line, ok := <-e.p.Lines():
			if !ok {
				return BestMove{}, e.p.Err()
			}
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			switch {
			case f[0] == "move" || (len(f) == 4 && f[0] == "My" && f[1] == "move" && f[2] == "is:"):
				res.Read = time.Now()
				m := f[len(f)-1]
				if len(f) < 2 || !(validMove(m) || isCastle(m)) {
					return BestMove{}, fmt.Errorf("%w: %q", ErrBadMove, truncate(line))
				}
				res.Move = m
				d.moves = append(d.moves, m)
				// Back to force mode: the engine must not think on its own.
				if err := send("force"); err != nil {
					return BestMove{}, err
				}
				return res, nil
			case f[0] == "resign" || f[0] == "1-0" || f[0] == "0-1" || f[0] == "1/2-1/2":
				return BestMove{}, fmt.Errorf("%w: the engine answered %q instead of a move", ErrBadMove, truncate(line))
			case moveNowError(line):
				// The answer to a "?" of ours that came after the move
				// (this search's or an earlier one's): nothing to stop.
			case strings.HasPrefix(f[0], "Illegal") || strings.HasPrefix(f[0], "Error"):
				return BestMove{}, fmt.Errorf("%w: the engine refused the position: %q", ErrUnsupported, truncate(line))
			default:
				if info, ok := parseThinking(f); ok {
					if info.MultiPV <= 1 {
						res.Last, res.HasLast = info, true
					}
					if s.info != nil {
						s.info(info)
					}
				}
			}
		case <-s.signals:
			if _, stopReq := s.pending(); stopReq {
				if err := stop(); err != nil {
					return BestMove{}, err
				}
			}
		case <-ctxDone:
			ctxDone = nil
			if err := stop(); err != nil {
				return BestMove{}, err
			}
		case <-grace:
			return BestMove{}, fmt.Errorf("%w (%v after \"?\")", ErrHang, e.spec.StopGrace)
		}
	}
}

func isCastle(m string) bool {
	switch m {
	case "O-O", "O-O-O", "0-0", "0-0-0":
		return true
	}
	return false
}

// parseThinking reads an xboard thinking line: "ply score time nodes pv...",
// the ply possibly followed by a mark ("12." or "12&"), time in
// centiseconds, score in centipawns with mates as ±(100000+moves).
func parseThinking(f []string) (Info, bool) {
	if len(f) < 4 {
		return Info{}, false
	}
	ply := strings.TrimRight(f[0], ".&?!+-")
	var v [4]int64
	var err error
	if v[0], err = strconv.ParseInt(ply, 10, 32); err != nil || v[0] <= 0 {
		return Info{}, false
	}
	for i := 1; i < 4; i++ {
		if v[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
			return Info{}, false
		}
	}
	in := Info{Depth: int(v[0]), HasScore: true, Time: time.Duration(max(v[2], 0)) * 10 * time.Millisecond,
		Nodes: uint64(max(v[3], 0))}
	switch s := v[1]; {
	case s >= 100000 && s < 200000:
		in.Mate = int(s - 100000)
	case s <= -100000 && s > -200000:
		in.Mate = -int(-s - 100000)
	default:
		in.CP = int(max(min(s, 1<<30), -1<<30))
	}
	if in.Mate == 0 && (v[1] >= 100000 || v[1] <= -100000) {
		in.HasScore = false
	}
	rest := f[4:]
	for len(rest) > 0 {
		if _, err := strconv.ParseInt(rest[0], 10, 64); err != nil {
			break // extra numeric fields (seldepth, speed, tbhits) come first
		}
		rest = rest[1:]
	}
	in.PV = append([]string(nil), rest...)
	return in, true
}
