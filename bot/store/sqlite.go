// This file is about 600 lines: the whole SQLite side of the store (open,
// corrupt-file handling, the writer goroutine, every statement). The
// migrations and the history queries live in files of their own.

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the database's name inside the data directory.
const FileName = "ponderosa.db"

// Tuning of the writer and of what DB keeps in memory.
const (
	busyTimeout   = 5 * time.Second
	seedDays      = 30     // games read back into memory at start
	maxPending    = 100000 // writes waiting for the writer before new ones are dropped
	pruneInterval = 24 * time.Hour
	busyRetry     = time.Second
)

// Options configure Open.
type Options struct {
	// Logger receives the store's warnings; nil discards them.
	Logger *slog.Logger
	// HistoryDays is the retention: games and challenges older than this
	// are pruned at start and daily. 0 keeps everything.
	HistoryDays int
}

// DB is the Store on disk. Reads come from its Memory; writes go to the
// Memory at once and to SQLite through one writer goroutine that batches
// them into transactions. Close stops the writer after it has written
// everything queued.
type DB struct {
	*Memory
	path      string
	log       *slog.Logger
	db        *sql.DB // one connection: the writer's
	retention time.Duration

	mu      sync.Mutex
	pending []op
	dropped int
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	failed  bool                 // the writer's; set once on the first fault
	stmts   map[string]*sql.Stmt // the writer's
}

// op is one write: exec runs it inside the batch's transaction. key, when
// set, lets a later op of the same key replace one still queued (the
// overhead is saved on every move; only the latest matters). done, when
// set, is closed after the batch holding it committed (or failed).
type op struct {
	what string
	key  string
	exec func(x *txn) error
	done chan error
}

// dsn is the connection string: WAL, a busy timeout, synchronous=NORMAL
// (in WAL mode a commit survives a crash of the process; only a power
// loss can take the last ones back), and BEGIN IMMEDIATE for the writer.
func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	if readOnly {
		q.Set("mode", "ro")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Open opens (creating it if needed) the database in dir, moves a corrupt
// file aside (ponderosa.db.corrupt-20060102T150405Z, never deleted) and
// starts afresh, migrates the schema, reads back what the bot needs in
// memory and starts the writer. A database that cannot be opened or
// written is an error: the caller then runs on Fallback(err).
func Open(dir string, opts Options) (*DB, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	ctx := context.Background()
	db, err := openWriter(ctx, path)
	var moved string
	if isCorrupt(err) {
		moved, err = moveAside(path, time.Now())
		if err != nil {
			return nil, fmt.Errorf("%s is corrupt and could not be moved aside: %w", path, err)
		}
		log.Error("the database was corrupt: moved it aside and started a new one", "file", moved)
		db, err = openWriter(ctx, path)
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if err := migrate(ctx, db, len(migrations)); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &DB{
		Memory: NewMemory(), path: path, log: log, db: db,
		retention: time.Duration(opts.HistoryDays) * 24 * time.Hour,
		stmts:     map[string]*sql.Stmt{}, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	if moved != "" {
		d.Memory.degrade("the database was corrupt and was moved aside to " + moved + "; a new one was started")
	}
	if err := d.load(ctx, time.Now()); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	st, err := db.PrepareContext(ctx, upsertGame)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.stmts[upsertGame] = st
	d.queue(d.pruneOp())
	go d.writer()
	return d, nil
}

// openWriter opens the one writing connection and checks the file.
func openWriter(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	var mode, check string
	err = db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
	if err == nil && mode != "wal" {
		err = fmt.Errorf("journal mode is %q, not wal", mode)
	}
	if err == nil {
		err = db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check)
	}
	if err == nil && check != "ok" {
		err = &corruptError{check}
	}
	if err == nil {
		// SQLite opens a file it may not write read-only, silently: take
		// the write lock once to find out now rather than at the first game.
		var tx *sql.Tx
		if tx, err = db.BeginTx(ctx, nil); err == nil {
			err = tx.Rollback()
		}
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// corruptError is a quick_check that did not answer ok.
type corruptError struct{ check string }

func (e *corruptError) Error() string { return "integrity check failed: " + e.check }

// code returns the primary SQLite result code of err, or 0.
func code(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

func isCorrupt(err error) bool {
	var ce *corruptError
	switch {
	case err == nil:
		return false
	case errors.As(err, &ce):
		return true
	}
	c := code(err)
	return c == sqlite3.SQLITE_CORRUPT || c == sqlite3.SQLITE_NOTADB
}

// moveAside renames the database and its WAL and shared-memory files with
// a timestamp; it returns the database's new name.
func moveAside(path string, now time.Time) (string, error) {
	to := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	if err := os.Rename(path, to); err != nil {
		return "", err
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+ext, to+ext); err != nil && !errors.Is(err, os.ErrNotExist) {
			return to, err
		}
	}
	return to, nil
}

// load reads back what the service needs: recent games, the quota windows
// still running, the overhead, the opponents still backed off. A bad row is
// logged with its error and skipped.
func (d *DB) load(ctx context.Context, now time.Time) error {
	var games []Game
	err := d.eachRow(ctx, "games", func(rows *sql.Rows) error {
		g, err := scanGame(rows)
		if err == nil {
			games = append(games, g)
		}
		return err
	}, "SELECT "+gameColumns+" FROM games WHERE ended >= ? ORDER BY ended DESC LIMIT ?",
		ms(now.AddDate(0, 0, -seedDays)), memoryGames)
	if err != nil {
		return err
	}
	d.Memory.loadGames(games)

	err = d.eachRow(ctx, "quota_windows", func(rows *sql.Rows) error {
		var w QuotaWindow
		var until int64
		if err := rows.Scan(&w.Key, &until, &w.Note); err != nil {
			return err
		}
		w.Until = fromMS(until)
		d.Memory.SetQuota(w)
		return nil
	}, "SELECT key, until, note FROM quota_windows WHERE until > ?", ms(now))
	if err != nil {
		return err
	}

	err = d.eachRow(ctx, "refusals", func(rows *sql.Rows) error {
		var r Refusal
		var until int64
		if err := rows.Scan(&r.Opponent, &r.Scope, &r.Reason, &r.Strikes, &until); err != nil {
			return err
		}
		if err := r.check(); err != nil {
			return err
		}
		r.Until = fromMS(until)
		d.Memory.SetRefusal(r)
		return nil
	}, "SELECT opponent, scope, reason, strikes, until FROM refusals WHERE until > ?", ms(now.Add(-RefusalMemory)))
	if err != nil {
		return err
	}

	o, err := readOverhead(ctx, d.db)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		d.log.Error("store: skipping a bad row", "table", "overhead", "err", err)
	default:
		d.Memory.SetOverhead(o)
	}
	return nil
}

// eachRow runs query and hands each row to read; a row read cannot take
// is logged with table's name and skipped.
func (d *DB) eachRow(ctx context.Context, table string, read func(*sql.Rows) error, query string, args ...any) error {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := read(rows); err != nil {
			d.log.Error("store: skipping a bad row", "table", table, "err", err)
		}
	}
	return rows.Err()
}

func readOverhead(ctx context.Context, db *sql.DB) (Overhead, error) {
	var est, at int64
	var samples string
	if err := db.QueryRowContext(ctx, "SELECT estimate_us, samples, at FROM overhead WHERE id = 1").Scan(&est, &samples, &at); err != nil {
		return Overhead{}, err
	}
	s, err := decodeSamples(samples)
	if err != nil {
		return Overhead{}, err
	}
	o := Overhead{Estimate: time.Duration(est) * time.Microsecond, Samples: s, At: fromMS(at)}
	return o, o.check()
}

// loadGames replaces the games with gs (any order).
func (m *Memory) loadGames(gs []Game) {
	slicesSortByEnd(gs)
	if n := len(gs) - memoryGames; n > 0 {
		gs = gs[n:]
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.games = gs
	clear(m.ids)
	for _, g := range gs {
		m.ids[g.ID] = struct{}{}
	}
}

// upsertGame writes a game, replacing one of the same id as an update (so
// the tallies' triggers see it; a REPLACE would delete without them).
var upsertGame = func() string {
	cols := strings.Split(gameColumns, ", ")
	set := make([]string, 0, len(cols))
	for _, c := range cols[1:] {
		set = append(set, c+" = excluded."+c)
	}
	return "INSERT INTO games (" + gameColumns + ") VALUES (" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") +
		") ON CONFLICT (id) DO UPDATE SET " + strings.Join(set, ", ")
}()

// AddGame implements Store.
func (d *DB) AddGame(g Game) {
	g.Opponent = strings.ToLower(g.Opponent)
	if err := g.check(); err != nil {
		d.log.Error("store: game not recorded", "err", err)
		return
	}
	d.Memory.AddGame(g)
	d.queue(op{what: "game " + g.ID, exec: func(x *txn) error {
		err := x.exec(upsertGame,
			g.ID, ms(g.Started), ms(g.Ended), g.Speed, g.Variant, g.Rated, g.Color, g.Opponent, g.OpponentName,
			g.OpponentTitle, g.OpponentRating, g.OpponentBot, g.OurRating, g.Result, g.Termination, g.Plies,
			encodeSources(g.Sources), encodeFlags(g.Flags), g.ThinkTotal.Milliseconds(), g.ThinkMax.Milliseconds(), g.PGN)
		return err
	}})
}

// AddChallenge implements Store.
func (d *DB) AddChallenge(c Challenge) {
	c.Opponent = strings.ToLower(c.Opponent)
	d.queue(op{what: "challenge " + c.ID, exec: func(x *txn) error {
		err := x.exec("INSERT OR REPLACE INTO challenges (id, at, outgoing, opponent, variant, speed, rated, decision, reason) VALUES (?,?,?,?,?,?,?,?,?)",
			c.ID, ms(c.At), c.Outgoing, c.Opponent, c.Variant, c.Speed, c.Rated, c.Decision, c.Reason)
		return err
	}})
}

// SetQuota implements Store.
func (d *DB) SetQuota(w QuotaWindow) {
	d.Memory.SetQuota(w)
	d.queue(op{what: "quota window " + w.Key, key: "quota:" + w.Key, exec: func(x *txn) error {
		if !w.Until.After(time.Now()) {
			err := x.exec("DELETE FROM quota_windows WHERE key = ?", w.Key)
			return err
		}
		err := x.exec("INSERT OR REPLACE INTO quota_windows (key, until, note) VALUES (?,?,?)", w.Key, ms(w.Until), w.Note)
		return err
	}})
}

// SetOverhead implements Store.
func (d *DB) SetOverhead(o Overhead) {
	if n := len(o.Samples) - maxOverheadSamples; n > 0 {
		o.Samples = o.Samples[n:]
	}
	if err := o.check(); err != nil {
		d.log.Error("store: overhead not recorded", "err", err)
		return
	}
	d.Memory.SetOverhead(o)
	samples := encodeSamples(o.Samples)
	d.queue(op{what: "overhead", key: "overhead", exec: func(x *txn) error {
		err := x.exec("INSERT OR REPLACE INTO overhead (id, estimate_us, samples, at) VALUES (1,?,?,?)",
			o.Estimate.Microseconds(), samples, ms(o.At))
		return err
	}})
}

// SetRefusal implements Store.
func (d *DB) SetRefusal(r Refusal) {
	r.Opponent = strings.ToLower(r.Opponent)
	if err := r.check(); err != nil {
		d.log.Error("store: refusal not recorded", "err", err)
		return
	}
	d.Memory.SetRefusal(r)
	d.queue(op{what: "refusal " + r.Opponent + " " + r.Scope, key: "refusal:" + r.Opponent + "\x00" + r.Scope, exec: func(x *txn) error {
		if r.Until.IsZero() {
			return x.exec("DELETE FROM refusals WHERE opponent = ? AND scope = ?", r.Opponent, r.Scope)
		}
		return x.exec("INSERT OR REPLACE INTO refusals (opponent, scope, reason, strikes, until) VALUES (?,?,?,?,?)",
			r.Opponent, r.Scope, r.Reason, r.Strikes, ms(r.Until))
	}})
}

// pruneOp deletes what is past the retention, and expired windows.
func (d *DB) pruneOp() op {
	return op{what: "prune", key: "prune", exec: func(x *txn) error {
		now := time.Now()
		if d.retention > 0 {
			cut := ms(now.Add(-d.retention))
			if err := x.exec("DELETE FROM games WHERE ended < ?", cut); err != nil {
				return err
			}
			if err := x.exec("DELETE FROM challenges WHERE at < ?", cut); err != nil {
				return err
			}
			d.Memory.prune(now.Add(-d.retention), now)
		}
		if err := x.exec("DELETE FROM quota_windows WHERE until <= ?", ms(now)); err != nil {
			return err
		}
		return x.exec("DELETE FROM refusals WHERE until <= ?", ms(now.Add(-RefusalMemory)))
	}}
}

// queue hands o to the writer without waiting for it.
func (d *DB) queue(o op) {
	d.mu.Lock()
	switch {
	case o.key != "" && replaceKeyed(d.pending, o):
	case len(d.pending) >= maxPending:
		// The writer is stuck (a disk that hangs): keep memory going, and
		// say so once.
		d.dropped++
		if d.dropped == 1 {
			d.Memory.degrade("the database writer is stuck: writes are being dropped")
			d.log.Error("store: the database writer is stuck; dropping writes", "queued", len(d.pending))
		}
		if o.done != nil {
			o.done <- errors.New("store: write dropped")
		}
	default:
		d.pending = append(d.pending, o)
	}
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// replaceKeyed replaces a queued op of the same key by o.
func replaceKeyed(pending []op, o op) bool {
	for i := range pending {
		if pending[i].key == o.key && pending[i].done == nil {
			pending[i] = o
			return true
		}
	}
	return false
}

// Flush waits until every write queued before it is committed. It returns
// an error when they could not be (the store is degraded).
func (d *DB) Flush(ctx context.Context) error {
	done := make(chan error, 1)
	d.queue(op{what: "flush", done: done, exec: func(*txn) error { return nil }})
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is queued, stops the writer and closes the file.
func (d *DB) Close() error {
	d.once.Do(func() { close(d.stop) })
	<-d.done
	return d.db.Close()
}

// Path is the database file.
func (d *DB) Path() string { return d.path }

// writer is the one goroutine that writes: each wake-up commits what was
// queued meanwhile in one transaction. It ends when Close is called, after
// writing what is queued.
func (d *DB) writer() {
	defer close(d.done)
	prune := time.NewTicker(pruneInterval)
	defer prune.Stop()
	for {
		select {
		case <-d.kick:
		case <-prune.C:
			d.queue(d.pruneOp())
			continue
		case <-d.stop:
			for d.writeBatch() {
			}
			return
		}
		for d.writeBatch() {
		}
	}
}

// writeBatch writes what is queued; it reports whether there was anything.
func (d *DB) writeBatch() bool {
	d.mu.Lock()
	batch := d.pending
	d.pending = nil
	d.mu.Unlock()
	if len(batch) == 0 {
		return false
	}
	err := d.commit(batch)
	for code(err) == sqlite3.SQLITE_BUSY || code(err) == sqlite3.SQLITE_LOCKED {
		// Another process holds the write lock past the busy timeout:
		// try again, unless we are closing.
		select {
		case <-d.stop:
		case <-time.After(busyRetry):
			err = d.commit(batch)
			continue
		}
		break
	}
	if err != nil {
		d.fault(err)
	}
	for _, o := range batch {
		if o.done != nil {
			o.done <- err
		}
	}
	return true
}

// commit runs batch in one transaction. A statement that fails for its own
// row (a constraint, bad data) is logged and skipped; a fault of the file
// fails the whole batch.
func (d *DB) commit(batch []op) error {
	if d.failed {
		return errors.New(d.Memory.Health().Reason)
	}
	ctx := context.Background()
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	x := &txn{ctx: ctx, tx: tx, d: d}
	for _, o := range batch {
		if err := o.exec(x); err != nil {
			if isFault(err) {
				tx.Rollback()
				return err
			}
			d.log.Error("store: write failed", "what", o.what, "err", err)
		}
	}
	return tx.Commit()
}

// txn is a batch's transaction. The statement that writes a game is
// prepared once at Open (outside any transaction: the writer has one
// connection): compiling an insert that fires triggers costs more than
// running it.
type txn struct {
	ctx context.Context
	tx  *sql.Tx
	d   *DB
}

func (x *txn) exec(query string, args ...any) error {
	var err error
	if st := x.d.stmts[query]; st != nil {
		_, err = x.tx.StmtContext(x.ctx, st).ExecContext(x.ctx, args...)
	} else {
		_, err = x.tx.ExecContext(x.ctx, query, args...)
	}
	return err
}

// isFault reports whether err is the file's fault rather than the row's.
func isFault(err error) bool {
	switch code(err) {
	case sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CORRUPT,
		sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED,
		sqlite3.SQLITE_PERM, sqlite3.SQLITE_NOLFS, sqlite3.SQLITE_PROTOCOL:
		return true
	}
	return false
}

// fault stops the writes for good after the first failure of the file,
// and says so once; the bot goes on from memory.
func (d *DB) fault(err error) {
	if d.failed {
		return
	}
	d.failed = true
	reason := "the database failed, nothing more is saved until a restart: " + err.Error()
	if isCorrupt(err) {
		reason += " (the file will be moved aside at the next start)"
	}
	d.Memory.degrade(reason)
	d.log.Error("store: the database failed; the bot plays on from memory and saves nothing more until restarted",
		"file", d.path, "err", err)
}
