package fakelichess

// Sources is a fake of the hosts a bot's move sources ask: the tablebase
// (/standard, computed here for up to four pieces without pawns), the cloud
// evaluation (/api/cloud-eval, answers set by the test, 404 otherwise),
// the opening explorer (/masters, /lichess, /player streaming ND-JSON;
// answers set by the test, no moves otherwise) and ChessDB (/cdb.php
// queryall with json=1; answers set by the test, "unknown" otherwise). It
// runs on its own loopback port, as the real ones are
// other hosts, and records the Authorization header of every request (a
// source off Lichess must never get the token). Faults: latency, an error
// status (5xx, 429) or a garbage body per path.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/lichess"
)

// SourceFault changes the answers on one path.
type SourceFault struct {
	Delay   time.Duration // before answering (cut short when the request is cancelled)
	Status  int           // answer this status with an empty body
	Garbage bool          // answer 200 with a body that is not JSON
}

// Sources is the fake sources' server.
type Sources struct {
	hs     *httptest.Server
	solver tbSolver
	ctx    context.Context
	stop   context.CancelFunc

	mu       sync.Mutex
	faults   map[string]SourceFault
	cloud    map[string][]byte     // fen → answer
	explorer map[string][]byte     // db + " " + fen → answer
	chessdb  map[string][]byte     // fen → ChessDB queryall answer
	auth     []string              // Authorization of each request
	hits     map[string]int        // path → requests
	queries  map[string]url.Values // path → the last request's query
}

// NewSources starts the fake sources on a loopback port.
func NewSources() *Sources {
	s := &Sources{faults: map[string]SourceFault{}, cloud: map[string][]byte{},
		explorer: map[string][]byte{}, chessdb: map[string][]byte{}, hits: map[string]int{}, queries: map[string]url.Values{}}
	s.ctx, s.stop = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /standard", s.handleTablebase)
	mux.HandleFunc("GET /api/cloud-eval", s.handleCloud)
	mux.HandleFunc("GET /masters", s.handleExplorer)
	mux.HandleFunc("GET /lichess", s.handleExplorer)
	mux.HandleFunc("GET /player", s.handlePlayer)
	mux.HandleFunc("GET /cdb.php", s.handleChessDB)
	s.hs = httptest.NewServer(s.wrap(mux))
	return s
}

// URL is the base URL of every source here.
func (s *Sources) URL() string { return s.hs.URL }

// Close shuts the server down (a delayed answer ends at once).
func (s *Sources) Close() {
	s.stop()
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// SetFault sets (or, with the zero SourceFault, clears) the fault of path.
func (s *Sources) SetFault(path string, f SourceFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[path] = f
}

// SetCloudEval makes the cloud answer body for fen (exactly as sent).
func (s *Sources) SetCloudEval(fen string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cloud[fen] = body
}

// SetExplorer makes the explorer's db ("masters", "lichess", "player")
// answer body for fen. The player database streams body's lines one by
// one (ND-JSON), as the real one does while it indexes a player's games.
func (s *Sources) SetExplorer(db, fen string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.explorer[db+" "+fen] = body
}

// Auth returns the Authorization header of every request so far.
func (s *Sources) Auth() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// SetChessDB makes ChessDB's queryall answer body for fen (exactly as
// sent).
func (s *Sources) SetChessDB(fen string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chessdb[fen] = body
}

// LastQuery returns the query of the last request to path (nil: none).
func (s *Sources) LastQuery(path string) url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[path]
}

// Hits returns the number of requests to path so far.
func (s *Sources) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *Sources) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.hits[r.URL.Path]++
		s.queries[r.URL.Path] = r.URL.Query()
		f := s.faults[r.URL.Path]
		s.mu.Unlock()
		if !delay(f.Delay, r.Context(), s.ctx) {
			return
		}
		switch {
		case f.Status != 0:
			w.WriteHeader(f.Status)
			return
		case f.Garbage:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"category": "win", "moves": [{"uci": 12`))
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Sources) handleCloud(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, ok := s.cloud[r.URL.Query().Get("fen")]
	s.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"Not found"}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (s *Sources) handleExplorer(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, ok := s.explorer[r.URL.Path[1:]+" "+r.URL.Query().Get("fen")]
	s.mu.Unlock()
	if !ok {
		body = []byte(`{"white":0,"draws":0,"black":0,"moves":[],"topGames":[],"opening":null}`)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// handleChessDB serves cdb.php?action=queryall&json=1 as ChessDB does:
// the answer set for the board, {"status":"unknown"} for other boards,
// {"status":"invalid board"} for a FEN that does not parse; other actions
// and the text format are not served.
func (s *Sources) handleChessDB(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("action") != "queryall" || q.Get("json") != "1" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"status": "only queryall with json=1 is faked"})
		return
	}
	fen := q.Get("board")
	if _, err := board.ParseFEN(fen); err != nil {
		writeJSON(w, http.StatusOK, map[string]string{"status": "invalid board"})
		return
	}
	s.mu.Lock()
	body, ok := s.chessdb[fen]
	s.mu.Unlock()
	if !ok {
		body = []byte(`{"status":"unknown"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// handlePlayer serves the player database: the player and colour are
// required (400 otherwise, as the real one answers), and the answer set
// for the position streams line by line; an unknown position gets one line
// without moves.
func (s *Sources) handlePlayer(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("player") == "" || (q.Get("color") != "white" && q.Get("color") != "black") {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "player and color required"})
		return
	}
	s.mu.Lock()
	body, ok := s.explorer["player "+q.Get("fen")]
	s.mu.Unlock()
	if !ok {
		body = []byte(`{"white":0,"draws":0,"black":0,"moves":[],"recentGames":[],"opening":null,"queuePosition":0}` + "\n")
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	fl, _ := w.(http.Flusher)
	for _, line := range strings.SplitAfter(string(body), "\n") {
		if line == "" {
			continue
		}
		if _, err := w.Write([]byte(line)); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// handleTablebase answers for up to four pieces without pawns (probe);
// any other material is "unknown".
func (s *Sources) handleTablebase(w http.ResponseWriter, r *http.Request) {
	pos, err := board.ParseFEN(r.URL.Query().Get("fen"))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"Invalid fen"}`))
		return
	}
	tb := lichess.Tablebase{TablebaseEntry: s.probe(&pos, pos.HalfmoveClock()), Moves: []lichess.TablebaseMove{}}
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	for _, m := range ml.Moves[:ml.N] {
		var child board.Position
		pos.MakeMove(m, &child)
		tb.Moves = append(tb.Moves, lichess.TablebaseMove{
			UCI: pos.UCI(m), SAN: pos.SAN(m),
			TablebaseEntry: s.probe(&child, child.HalfmoveClock()),
			Zeroing:        child.HalfmoveClock() == 0,
		})
	}
	sortTB(tb.Moves)
	writeJSON(w, http.StatusOK, tb)
}

// sortTB orders moves as the real tablebase does, best first for the mover:
// moves to the opponent's loss by fastest mate, then draws, then moves to
// its win by slowest mate, unknown last.
func sortTB(ms []lichess.TablebaseMove) {
	rank := func(c lichess.TablebaseCategory) int {
		if r := c.Rank(); r >= 0 {
			return r
		}
		return 5 // unknown
	}
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if ra, rb := rank(a.Category), rank(b.Category); ra != rb {
			return ra < rb
		}
		if a.DTM == nil || b.DTM == nil {
			return false
		}
		if a.Category.Rank() <= 1 { // opponent loses: smaller |dtm| first
			return -*a.DTM < -*b.DTM
		}
		return *a.DTM > *b.DTM // opponent wins: longer first
	})
}

// probe returns the entry of pos (its moves are the caller's). Positions of at most four pieces without pawns or castling
// rights are solved (tbsolve.go); others are "unknown".
func (s *Sources) probe(pos *board.Position, halfmove int) lichess.TablebaseEntry {
	ip := func(n int) *int { return &n }
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	e := lichess.TablebaseEntry{Checkmate: ml.N == 0 && pos.InCheck(), Stalemate: ml.N == 0 && !pos.InCheck(),
		InsufficientMaterial: pos.InsufficientMaterial()}
	occ := pos.ByColor(board.White) | pos.ByColor(board.Black)
	castling := strings.Fields(pos.FEN())[2] != "-"
	if occ.Count() > tbMaxPieces || pos.Pieces(board.White, board.Pawn)|pos.Pieces(board.Black, board.Pawn) != 0 || castling {
		e.Category = lichess.TBUnknown
		return e
	}
	var pieces []tbPiece
	var sqs []int8
	for _, c := range []board.Color{board.White, board.Black} {
		for _, pt := range []board.PieceType{board.King, board.Queen, board.Rook, board.Bishop, board.Knight} {
			for b := pos.Pieces(c, pt); b != 0; b &= b - 1 {
				pieces = append(pieces, tbPiece{c, pt})
				sqs = append(sqs, int8(b.LSB()))
			}
		}
	}
	dtm, dtz := s.solver.value(pieces, sqs, pos.SideToMove())
	n, win, decided := tbPlies(dtm)
	if !decided {
		e.Category, e.DTZ, e.PreciseDTZ, e.DTM = lichess.TBDraw, ip(0), ip(0), ip(0)
		return e
	}
	z, _, _ := tbPlies(dtz)
	if e.Checkmate {
		z = 0
	}
	// A win whose next zeroing move (a capture, or mate) lies beyond what
	// the fifty-move rule leaves is cursed.
	cursed := z+halfmove > 100
	switch {
	case win && cursed:
		e.Category, e.DTZ, e.PreciseDTZ, e.DTM = lichess.TBCursedWin, ip(z+100), ip(z+100), ip(n)
	case win:
		e.Category, e.DTZ, e.PreciseDTZ, e.DTM = lichess.TBWin, ip(z), ip(z), ip(n)
	case cursed:
		e.Category, e.DTZ, e.PreciseDTZ, e.DTM = lichess.TBBlessedLoss, ip(-z-100), ip(-z-100), ip(-n)
	default:
		e.Category, e.DTZ, e.PreciseDTZ, e.DTM = lichess.TBLoss, ip(-z), ip(-z), ip(-n)
	}
	return e
}

// Solve computes the tablebase's tables for each material signature now,
// e.g. "KQvK", "KRvKR" (the stronger side first; up to four pieces, no
// pawns), so that the first requests answer at once: milliseconds for
// three pieces, about six seconds of CPU for four (ten times more under
// the race detector).
func (s *Sources) Solve(material ...string) error {
	for _, m := range material {
		if _, err := s.solver.table(m); err != nil {
			return err
		}
	}
	return nil
}
