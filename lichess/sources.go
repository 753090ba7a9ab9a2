package lichess

// Move sources outside the Bot API: the online tablebase
// (tablebase.lichess.ovh: /standard, /atomic, /antichess), the cloud
// evaluation (/api/cloud-eval on lichess.org) and the opening explorer
// (explorer.lichess.ovh: /masters, /lichess). Each source has its own
// Client (its own base URL, limiter and 429 pauses, through the same gate
// as the Bot API: a 429 pauses only that endpoint of that host); only the
// Client whose base URL SourceToken allows carries the token.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// DefaultTablebaseURL, DefaultExplorerURL and DefaultCloudEvalURL are the
// public hosts of the three sources.
const (
	DefaultTablebaseURL = "https://tablebase.lichess.ovh"
	DefaultExplorerURL  = "https://explorer.lichess.ovh"
	DefaultCloudEvalURL = DefaultBaseURL
)

// explorerHosts are Lichess's explorer hosts: the only hosts besides
// LICHESS_URL's that may get the token, and only over https.
var explorerHosts = []string{"explorer.lichess.ovh", "explorer.lichess.org"}

// SourceToken returns the token to send to a source at sourceURL: token
// when the source is the Lichess server itself (same scheme, host and
// port as lichessURL) or, over https, one of Lichess's explorer hosts;
// "" for every other URL.
func SourceToken(lichessURL, sourceURL, token string) string {
	s, err := url.Parse(sourceURL)
	if err != nil || s.Host == "" {
		return ""
	}
	if l, err := url.Parse(lichessURL); err == nil && l.Host != "" &&
		strings.EqualFold(l.Scheme, s.Scheme) && strings.EqualFold(l.Host, s.Host) {
		return token
	}
	if s.Scheme != "https" || s.Port() != "" {
		return ""
	}
	for _, h := range explorerHosts {
		if strings.EqualFold(s.Hostname(), h) {
			return token
		}
	}
	return ""
}

// ErrNotKnown is returned (wrapped) when a source does not know the
// position: the cloud answers 404 for positions it has not analysed.
var ErrNotKnown = errors.New("lichess: position not known to the source")

// TablebaseCategory is a tablebase verdict from the point of view of the
// side to move (for a move: of the side to move after it).
type TablebaseCategory string

// The categories, best first for the side to move.
const (
	TBWin         TablebaseCategory = "win"
	TBSyzygyWin   TablebaseCategory = "syzygy-win"
	TBMaybeWin    TablebaseCategory = "maybe-win"
	TBCursedWin   TablebaseCategory = "cursed-win"
	TBDraw        TablebaseCategory = "draw"
	TBUnknown     TablebaseCategory = "unknown"
	TBBlessedLoss TablebaseCategory = "blessed-loss"
	TBMaybeLoss   TablebaseCategory = "maybe-loss"
	TBSyzygyLoss  TablebaseCategory = "syzygy-loss"
	TBLoss        TablebaseCategory = "loss"
)

// Rank orders categories for the side to move: 4 a win (the fifty-move
// rule cannot stop it), 3 a cursed win, 2 a draw, 1 a blessed loss, 0 a
// loss; -1 unknown (or a category this client does not know).
func (c TablebaseCategory) Rank() int {
	switch c {
	case TBWin, TBSyzygyWin, TBMaybeWin:
		return 4
	case TBCursedWin:
		return 3
	case TBDraw:
		return 2
	case TBBlessedLoss:
		return 1
	case TBLoss, TBSyzygyLoss, TBMaybeLoss:
		return 0
	}
	return -1
}

// TablebaseEntry is what the tablebase says of one position: the verdict
// and distances for the side to move and how the game stands there.
type TablebaseEntry struct {
	Category             TablebaseCategory `json:"category"`
	DTZ                  *int              `json:"dtz"`
	PreciseDTZ           *int              `json:"precise_dtz"`
	DTM                  *int              `json:"dtm"`
	Checkmate            bool              `json:"checkmate"`
	Stalemate            bool              `json:"stalemate"`
	VariantWin           bool              `json:"variant_win"`
	VariantLoss          bool              `json:"variant_loss"`
	InsufficientMaterial bool              `json:"insufficient_material"`
}

// TablebaseMove is one legal move in a tablebase answer; its entry is that
// of the position after the move (the opponent to move).
type TablebaseMove struct {
	UCI string `json:"uci"`
	SAN string `json:"san"`
	TablebaseEntry
	Zeroing bool `json:"zeroing"`
}

// Tablebase is the answer of GET /{variant}?fen= on the tablebase host.
type Tablebase struct {
	TablebaseEntry
	Moves []TablebaseMove `json:"moves"`
}

// DecodeTablebase parses a tablebase answer. It checks what a move choice
// relies on: a category for the position, and a UCI string and category
// for every move.
func DecodeTablebase(data []byte) (*Tablebase, error) {
	var t Tablebase
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("tablebase answer: %w", err)
	}
	if t.Category == "" {
		return nil, errors.New("tablebase answer: no category")
	}
	for i, m := range t.Moves {
		if m.Category == "" || len(m.UCI) < 4 || len(m.UCI) > 5 {
			return nil, fmt.Errorf("tablebase answer: move %d: missing uci or category", i)
		}
	}
	return &t, nil
}

// CloudPV is one line of a cloud evaluation: moves in UCI separated by
// spaces, and a score for the side to move (cp or mate, one of them set).
type CloudPV struct {
	Moves string `json:"moves"`
	CP    *int   `json:"cp"`
	Mate  *int   `json:"mate"`
}

// CloudEval is the answer of GET /api/cloud-eval.
type CloudEval struct {
	FEN    string    `json:"fen"`
	KNodes int64     `json:"knodes"`
	Depth  int       `json:"depth"`
	PVs    []CloudPV `json:"pvs"`
}

// DecodeCloudEval parses a cloud evaluation; it needs at least one line
// with a first move and a score.
func DecodeCloudEval(data []byte) (*CloudEval, error) {
	var c CloudEval
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("cloud eval answer: %w", err)
	}
	if len(c.PVs) == 0 {
		return nil, errors.New("cloud eval answer: no lines")
	}
	for i, pv := range c.PVs {
		f := strings.Fields(pv.Moves)
		if len(f) == 0 || len(f[0]) < 4 || len(f[0]) > 5 {
			return nil, fmt.Errorf("cloud eval answer: line %d has no first move", i)
		}
		if (pv.CP == nil) == (pv.Mate == nil) {
			return nil, fmt.Errorf("cloud eval answer: line %d needs exactly one of cp and mate", i)
		}
		if pv.Mate != nil && *pv.Mate == 0 {
			return nil, fmt.Errorf("cloud eval answer: line %d has mate 0", i)
		}
	}
	if c.Depth < 0 {
		return nil, errors.New("cloud eval answer: negative depth")
	}
	return &c, nil
}

// BestMove is the first move of the first line.
func (c *CloudEval) BestMove() string { return strings.Fields(c.PVs[0].Moves)[0] }

// ExplorerMove is one move of an explorer answer with its game counts.
type ExplorerMove struct {
	UCI           string `json:"uci"`
	SAN           string `json:"san"`
	White         int64  `json:"white"`
	Draws         int64  `json:"draws"`
	Black         int64  `json:"black"`
	AverageRating int    `json:"averageRating"`
}

// Games is the number of games with the move.
func (m ExplorerMove) Games() int64 { return m.White + m.Draws + m.Black }

// Explorer is the answer of the explorer's /masters and /lichess.
type Explorer struct {
	White   int64          `json:"white"`
	Draws   int64          `json:"draws"`
	Black   int64          `json:"black"`
	Moves   []ExplorerMove `json:"moves"`
	Opening *struct {
		ECO  string `json:"eco"`
		Name string `json:"name"`
	} `json:"opening"`
}

// DecodeExplorer parses an explorer answer; counts must not be negative
// and every move needs its UCI string.
func DecodeExplorer(data []byte) (*Explorer, error) {
	var e Explorer
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("explorer answer: %w", err)
	}
	if !count(e.White) || !count(e.Draws) || !count(e.Black) {
		return nil, errors.New("explorer answer: count out of range")
	}
	for i, m := range e.Moves {
		if len(m.UCI) < 4 || len(m.UCI) > 5 || !count(m.White) || !count(m.Draws) || !count(m.Black) {
			return nil, fmt.Errorf("explorer answer: move %d: bad uci or count", i)
		}
	}
	return &e, nil
}

// count reports whether n is a plausible game count (sums cannot overflow).
func count(n int64) bool { return n >= 0 && n < 1<<50 }

// rawJSON receives an answer's body undecoded (see once: a *rawJSON out is
// copied, not unmarshalled).
type rawJSON = ndjsonSink

// get fetches path with query from the client's host, once (a source must
// answer within its own short budget: no retries).
func (c *Client) get(ctx context.Context, path string, query map[string]string) ([]byte, error) {
	var body rawJSON
	err := c.do(ctx, call{method: http.MethodGet, path: path, query: query, out: &body})
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return nil, fmt.Errorf("%w: %v", ErrNotKnown, err)
		}
		return nil, err
	}
	return body, nil
}

// TablebaseLookup asks the tablebase host about fen in variant
// ("standard", "atomic" or "antichess").
func (c *Client) TablebaseLookup(ctx context.Context, variant, fen string) (*Tablebase, error) {
	switch variant {
	case "standard", "atomic", "antichess":
	default:
		return nil, fmt.Errorf("tablebase: no tables for variant %q", variant)
	}
	body, err := c.get(ctx, "/"+variant, map[string]string{"fen": fen})
	if err != nil {
		return nil, err
	}
	return DecodeTablebase(body)
}

// CloudEvalLookup asks the cloud for fen with multiPv lines; ErrNotKnown
// (wrapped) when the cloud has no evaluation of it.
func (c *Client) CloudEvalLookup(ctx context.Context, fen string, multiPv int) (*CloudEval, error) {
	q := map[string]string{"fen": fen}
	if multiPv > 1 {
		q["multiPv"] = strconv.Itoa(multiPv)
	}
	body, err := c.get(ctx, "/api/cloud-eval", q)
	if err != nil {
		return nil, err
	}
	return DecodeCloudEval(body)
}

// ExplorerQuery selects an explorer database and its filters.
type ExplorerQuery struct {
	DB      string   // "masters", "lichess" or "player"
	Variant string   // lichess and player dbs: the variant key (default standard)
	Speeds  []string // lichess and player dbs: bullet, blitz, rapid, ...
	Ratings []int    // lichess db: rating groups (1600, 1800, ...)
	Player  string   // player db: the user (required)
	Color   string   // player db: "white" or "black", the player's colour (required)
	Modes   []string // player db: "rated", "casual"
	Moves   int      // how many moves to ask for (0: the server's default)
}

// ExplorerLookup asks the explorer about fen.
func (c *Client) ExplorerLookup(ctx context.Context, q ExplorerQuery, fen string) (*Explorer, error) {
	query := map[string]string{"fen": fen, "topGames": "0", "recentGames": "0"}
	if q.Moves > 0 {
		query["moves"] = strconv.Itoa(q.Moves)
	}
	switch q.DB {
	case "masters":
	case "lichess", "player":
		if q.Variant != "" {
			query["variant"] = q.Variant
		}
		if len(q.Speeds) > 0 {
			query["speeds"] = strings.Join(q.Speeds, ",")
		}
		if q.DB == "player" {
			if q.Player == "" || (q.Color != "white" && q.Color != "black") {
				return nil, errors.New("explorer: the player database needs a player and a colour")
			}
			query["player"], query["color"] = q.Player, q.Color
			delete(query, "topGames")
			if len(q.Modes) > 0 {
				query["modes"] = strings.Join(q.Modes, ",")
			}
			break
		}
		if len(q.Ratings) > 0 {
			r := make([]string, len(q.Ratings))
			for i, v := range q.Ratings {
				r[i] = strconv.Itoa(v)
			}
			query["ratings"] = strings.Join(r, ",")
		}
	default:
		return nil, fmt.Errorf("explorer: unknown database %q", q.DB)
	}
	body, err := c.get(ctx, "/"+q.DB, query)
	if err != nil {
		return nil, err
	}
	if q.DB == "player" {
		return DecodeExplorerStream(body)
	}
	return DecodeExplorer(body)
}

// DecodeExplorerStream parses the player database's answer: ND-JSON, one
// answer a line, each more complete than the one before while the explorer
// indexes the player's games (queuePosition). The last complete line
// counts: a last line cut short (no newline and not valid JSON) is left
// out.
func DecodeExplorerStream(data []byte) (*Explorer, error) {
	lines := strings.Split(string(data), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if line == "" {
			continue
		}
		e, err := DecodeExplorer([]byte(line))
		if err != nil && i == len(lines)-1 {
			continue // the stream ended inside this line
		}
		return e, err
	}
	return nil, errors.New("explorer answer: no complete line")
}

// DefaultChessDBURL is ChessDB's host (chessdb.cn's cloud database).
const DefaultChessDBURL = "https://www.chessdb.cn"

// ChessDBMove is one move of a ChessDB queryall answer: its score in
// centipawns for the side to move (Known false when ChessDB wrote "??"),
// and its rank: 2 a best move ("!"), 1 a good one ("*"), 0 others ("?").
type ChessDBMove struct {
	UCI     string
	SAN     string
	Score   int
	Known   bool
	Rank    int
	Note    string
	WinRate string
}

// ChessDB is the answer of cdb.php?action=queryall&json=1: Status "ok"
// with the moves best first, or "unknown", "checkmate", "stalemate",
// "invalid board", "rate limit exceeded", ...
type ChessDB struct {
	Status string
	Moves  []ChessDBMove
}

// DecodeChessDB parses a queryall answer (json=1), as cdb.php writes it:
// {"status":"ok","moves":[{"uci":"e2e4","san":"e4","score":35,"rank":2,
// "note":"! (12-03)","winrate":"55.30"}, ...]}, where an unknown move's
// score is the string "??". Every move needs a UCI move and a rank from 0
// to 2; an "ok" answer needs a move.
func DecodeChessDB(data []byte) (*ChessDB, error) {
	var raw struct {
		Status string `json:"status"`
		Moves  []struct {
			UCI     string          `json:"uci"`
			SAN     string          `json:"san"`
			Score   json.RawMessage `json:"score"`
			Rank    int             `json:"rank"`
			Note    string          `json:"note"`
			WinRate string          `json:"winrate"`
		} `json:"moves"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("chessdb answer: %w", err)
	}
	if raw.Status == "" {
		return nil, errors.New("chessdb answer: no status")
	}
	out := &ChessDB{Status: raw.Status}
	for i, m := range raw.Moves {
		if len(m.UCI) < 4 || len(m.UCI) > 5 || m.Rank < 0 || m.Rank > 2 {
			return nil, fmt.Errorf("chessdb answer: move %d: bad uci or rank", i)
		}
		cm := ChessDBMove{UCI: m.UCI, SAN: m.SAN, Rank: m.Rank, Note: m.Note, WinRate: m.WinRate}
		var n int
		switch err := json.Unmarshal(m.Score, &n); {
		case err == nil && n > -100000 && n < 100000:
			cm.Score, cm.Known = n, true
		case string(m.Score) == `"??"`:
		default:
			return nil, fmt.Errorf("chessdb answer: move %d: bad score %.20q", i, m.Score)
		}
		out.Moves = append(out.Moves, cm)
	}
	if out.Status == "ok" && len(out.Moves) == 0 {
		return nil, errors.New("chessdb answer: ok without moves")
	}
	return out, nil
}

// ChessDBLookup asks ChessDB (queryall, JSON, without its automatic
// learning) about fen; ErrNotKnown (wrapped) when ChessDB has no moves
// for it.
func (c *Client) ChessDBLookup(ctx context.Context, fen string) (*ChessDB, error) {
	body, err := c.get(ctx, "/cdb.php", map[string]string{"action": "queryall", "board": fen, "json": "1", "learn": "0"})
	if err != nil {
		return nil, err
	}
	db, err := DecodeChessDB(body)
	if err != nil {
		return nil, err
	}
	switch db.Status {
	case "ok":
		return db, nil
	case "unknown", "checkmate", "stalemate":
		return nil, fmt.Errorf("%w: chessdb: %s", ErrNotKnown, db.Status)
	}
	return nil, fmt.Errorf("chessdb: %s", db.Status)
}
