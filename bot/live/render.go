package live

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

var pageTemplate = template.Must(template.New("page.html.tmpl").Funcs(template.FuncMap{
	"board":    boardOf,
	"clock":    clockText,
	"clockMS":  clockMS,
	"evalText": evalText,
	"evalBar":  evalBar,
	"nps":      npsText,
	"count":    countText,
	"ago":      agoText,
	"dur":      durText,
	"chart":    chartOf,
	"top":      topPlayer,
	"bottom":   bottomPlayer,
	"sideOf":   sideOf,
	"moveRows": moveRows,
	"title":    titleText,
	"percent":  func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"gameCtx":  func(at time.Time, g GameView) gameCtx { return gameCtx{At: at, G: g} },
}).ParseFS(assets, "assets/page.html.tmpl"))

// RenderPage writes the whole page for s.
func RenderPage(w io.Writer, s Snapshot) error {
	return pageTemplate.ExecuteTemplate(w, "page.html.tmpl", s)
}

// RenderLive writes the live part of the page (what an update replaces).
func RenderLive(w io.Writer, s Snapshot) error {
	return pageTemplate.ExecuteTemplate(w, "live", s)
}

// EncodeFrame renders s once as a Server-Sent Events message ("update"
// event, the live part of the page as data) that every subscriber shares.
func EncodeFrame(s Snapshot) ([]byte, error) {
	var html bytes.Buffer
	if err := RenderLive(&html, s); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(html.Len() + html.Len()/16 + 32)
	b.WriteString("event: update\n")
	for line := range strings.SplitSeq(html.String(), "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// square is one square of a drawn board.
type square struct {
	X, Y      int
	Dark, Hi  bool
	Piece     string // sprite id ("wK", "bp"...), "" when empty
	FileLabel string // shown on the bottom row
	RankLabel string // shown on the left column
}

// boardModel is a board ready for the template.
type boardModel struct {
	FEN     string
	Flipped bool
	Squares []square
	Err     string
}

// boardOf lays out the position of g's FEN, from our side.
func boardOf(g GameView) boardModel {
	m := boardModel{FEN: g.FEN, Flipped: g.Color == "black"}
	placement, err := parsePlacement(g.FEN)
	if err != nil {
		m.Err = err.Error()
	}
	hi := map[int]bool{}
	if len(g.LastMove) >= 4 {
		for _, s := range []string{g.LastMove[0:2], g.LastMove[2:4]} {
			if sq, ok := squareIndex(s); ok {
				hi[sq] = true
			}
		}
	}
	m.Squares = make([]square, 0, 64)
	for sq := range 64 {
		file, rank := sq%8, sq/8 // a1 = 0
		x, y := file, 7-rank
		if m.Flipped {
			x, y = 7-file, rank
		}
		s := square{X: x * 45, Y: y * 45, Dark: (file+rank)%2 == 0, Hi: hi[sq]}
		if p := placement[sq]; p != 0 {
			s.Piece = pieceID(p)
		}
		if y == 7 {
			s.FileLabel = string(rune('a' + file))
		}
		if x == 0 {
			s.RankLabel = string(rune('1' + rank))
		}
		m.Squares = append(m.Squares, s)
	}
	return m
}

func pieceID(p byte) string {
	if p >= 'a' && p <= 'z' {
		return "b" + string(p)
	}
	return "w" + string(p+'a'-'A')
}

func squareIndex(s string) (int, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return 0, false
	}
	return int(s[1]-'1')*8 + int(s[0]-'a'), true
}

// parsePlacement reads the piece placement field of a FEN into 64 squares
// (a1 = 0; 0 = empty, else the FEN letter).
func parsePlacement(fen string) ([64]byte, error) {
	var out [64]byte
	field, _, _ := strings.Cut(strings.TrimSpace(fen), " ")
	ranks := strings.Split(field, "/")
	if len(ranks) != 8 {
		return [64]byte{}, fmt.Errorf("FEN %q: want 8 ranks, have %d", fen, len(ranks))
	}
	for i, r := range ranks {
		rank, file := 7-i, 0
		for j := 0; j < len(r); j++ {
			c := r[j]
			switch {
			case c >= '1' && c <= '8':
				file += int(c - '0')
			case strings.IndexByte("pnbrqkPNBRQK", c) >= 0:
				if file < 8 {
					out[rank*8+file] = c
				}
				file++
			default:
				return [64]byte{}, fmt.Errorf("FEN %q: bad character %q in rank %d", fen, c, rank+1)
			}
			if file > 8 {
				return [64]byte{}, fmt.Errorf("FEN %q: rank %d is longer than 8 squares", fen, rank+1)
			}
		}
		if file != 8 {
			return [64]byte{}, fmt.Errorf("FEN %q: rank %d has %d squares", fen, rank+1, file)
		}
	}
	return out, nil
}

// player is a side of a game as drawn above or below the board.
type player struct {
	PlayerView
	White   bool
	Clock   time.Duration
	Running bool
	Us      bool
	Timed   bool
}

func sideOf(g GameView, at time.Time, white bool) player {
	p := player{White: white, Timed: g.Timed, Us: (g.Color == "white") == white}
	if white {
		p.PlayerView, p.Clock = g.White, g.WhiteClock
	} else {
		p.PlayerView, p.Clock = g.Black, g.BlackClock
	}
	if g.ClockRunning && g.WhiteToMove == white {
		p.Running = true
		if !g.ClockAt.IsZero() && at.After(g.ClockAt) {
			p.Clock -= at.Sub(g.ClockAt)
		}
	}
	p.Clock = max(p.Clock, 0)
	return p
}

// topPlayer and bottomPlayer place the opponent on top, us below.
func topPlayer(g GameView, at time.Time) player { return sideOf(g, at, g.Color == "black") }
func bottomPlayer(g GameView, at time.Time) player {
	return sideOf(g, at, g.Color != "black")
}

func clockMS(d time.Duration) int64 { return d.Milliseconds() }

// clockText writes a clock as h:mm:ss, m:ss, or s.t below ten seconds.
func clockText(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d < 10*time.Second {
		t := d / (100 * time.Millisecond)
		return fmt.Sprintf("0:0%d.%d", t/10, t%10)
	}
	s := int64(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func titleText(p PlayerView) string {
	s := p.Name
	if p.Title != "" {
		s = p.Title + " " + s
	}
	return s
}

// evalText writes the score from White's side: "+0.35", "-1.20", "#3", "#-2".
func evalText(e *EvalView) string {
	if e == nil {
		return ""
	}
	if e.Mate != 0 {
		return fmt.Sprintf("#%d", e.Mate)
	}
	return fmt.Sprintf("%+.2f", float64(e.CP)/100)
}

// bar is the evaluation bar beside a board: the colour at the bottom
// (ours) and its share, as a height of 360 starting at Y.
type bar struct {
	Bottom    string // "white" or "black"
	Height, Y int
}

// evalBar maps g's score to the bar: a logistic curve of the centipawns
// (a mate fills it), from our side.
func evalBar(g GameView) bar {
	white := 0.5
	if e := g.Eval; e != nil {
		switch {
		case e.Mate > 0:
			white = 1
		case e.Mate < 0:
			white = 0
		default:
			white = 1 / (1 + math.Exp(-float64(e.CP)/250))
		}
	}
	b := bar{Bottom: "white"}
	share := white
	if g.Color == "black" {
		b.Bottom, share = "black", 1-white
	}
	b.Height = int(math.Round(share * 360))
	b.Y = 360 - b.Height
	return b
}

func npsText(n uint64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0f M", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.2f M", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0f k", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func countText(n uint64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1f M", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0f k", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// agoText writes how long before at t was.
func agoText(at, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := at.Sub(t)
	switch {
	case d < time.Second:
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// durText writes a duration for people: "3h12m", "4m05s", "12s", "8.4ms".
func durText(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d >= 10*time.Second:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d >= time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%dµs", d.Microseconds())
}

// moveRow is one line of the move list: the move number and the two SAN
// moves ("" where there is none, "…" for Black's first move when the game
// began with Black to move).
type moveRow struct {
	N            int
	White, Black string
}

func moveRows(g GameView) []moveRow {
	// Go back from the current position (move number and side to move)
	// to the first move's.
	startIdx := 0 // plies from the standard start: 0 = White's first move
	if f := strings.Fields(g.FEN); len(f) >= 6 {
		var full int
		if _, err := fmt.Sscan(f[5], &full); err == nil && full >= 1 {
			idx := 2 * (full - 1)
			if f[1] == "b" {
				idx++
			}
			startIdx = max(idx-len(g.Moves), 0)
		}
	}
	n := startIdx/2 + 1
	var rows []moveRow
	moves := g.Moves
	if startIdx%2 == 1 && len(moves) > 0 {
		rows = append(rows, moveRow{N: n, White: "…", Black: moves[0]})
		moves = moves[1:]
		n++
	}
	for i := 0; i < len(moves); i += 2 {
		r := moveRow{N: n, White: moves[i]}
		if i+1 < len(moves) {
			r.Black = moves[i+1]
		}
		rows = append(rows, r)
		n++
	}
	return rows
}

// chartModel is the latency chart: one bar per move (the time the bot
// added beyond the search plus the move request's round trip) and a line
// for the learned overhead.
type chartModel struct {
	Bars     []chartBar
	Overhead string // polyline points
	Max      time.Duration
	Last     MoveSample
	N        int
}

type chartBar struct {
	X, Y, W, H int
	Title      string
}

const chartW, chartH = 300, 80

func chartOf(moves []MoveSample) chartModel {
	c := chartModel{N: len(moves)}
	if len(moves) == 0 {
		return c
	}
	c.Last = moves[len(moves)-1]
	for _, m := range moves {
		c.Max = max(c.Max, m.Latency+m.RoundTrip, m.Overhead)
	}
	if c.Max <= 0 {
		c.Max = time.Millisecond
	}
	w := chartW / max(len(moves), 20)
	var pts []string
	for i, m := range moves {
		h := int(float64(m.Latency+m.RoundTrip) / float64(c.Max) * chartH)
		x := i * w
		c.Bars = append(c.Bars, chartBar{X: x, Y: chartH - h, W: max(w-1, 1), H: h,
			Title: fmt.Sprintf("%s ply %d: bot %s + round trip %s", m.GameID, m.Ply, durText(m.Latency), durText(m.RoundTrip))})
		oy := chartH - int(float64(m.Overhead)/float64(c.Max)*chartH)
		pts = append(pts, fmt.Sprintf("%d,%d %d,%d", x, oy, x+w, oy))
	}
	c.Overhead = strings.Join(pts, " ")
	return c
}

// gameCtx is what the game template sees: the game and the snapshot's
// instant (for the clocks).
type gameCtx struct {
	At time.Time
	G  GameView
}
