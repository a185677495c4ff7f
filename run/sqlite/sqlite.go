package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/byref/byref/run"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Options configures a [Store]. The zero value is ready to use.
type Options struct {
	// BusyTimeout is how long a write waits for another process's write
	// lock before failing. Default 5s.
	BusyTimeout time.Duration
	// FullSync makes every commit wait for the disk (PRAGMA synchronous =
	// FULL), so that appends survive a power loss, not just a crash of the
	// process. Default false (synchronous = NORMAL), which in WAL mode loses
	// no committed append when the process dies.
	FullSync bool
	// ReadConns bounds the connections used for reads. Default 4.
	ReadConns int
	// Poll, when other processes append to the same file, makes a
	// subscriber ([Store.Events]) waiting for the next event also re-read
	// every Poll, so that it sees their appends within about Poll. Zero
	// means only appends through this Store wake subscribers.
	Poll time.Duration
}

// Store is a [run.Store] in a SQLite file. Create one with [Open] and
// release it with [Store.Close]. Its methods are safe for concurrent use.
type Store struct {
	w, r   *sql.DB // one writer connection; a pool of readers
	notify run.Notifier
	poll   time.Duration // Options.Poll
	now    func() time.Time
	// failAfterInsert, when set by a test, is called after each event is
	// inserted; an error aborts the append's transaction.
	failAfterInsert func(seq int64) error
}

var _ run.Store = (*Store)(nil)

// Open opens the SQLite database at path, creating it if needed, and
// migrates its schema to [SchemaVersion]. The path must not contain '?',
// and its directory must exist (the error names a missing one, and the fix).
func Open(path string, opts Options) (*Store, error) {
	if path == "" || strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("sqlite: bad database path %q: it must be a file name without '?'", path)
	}
	if dir := filepath.Dir(path); path != ":memory:" && !strings.HasPrefix(path, "file:") {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("sqlite: cannot create %s: its directory %s does not exist; create it first (os.MkdirAll(%q, 0o755)) or choose a path in an existing directory", path, dir, dir)
		}
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	if opts.ReadConns <= 0 {
		opts.ReadConns = 4
	}
	sync := "NORMAL"
	if opts.FullSync {
		sync = "FULL"
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", opts.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+sync+")")
	q.Set("_txlock", "immediate")
	w, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	if err := migrate(context.Background(), w); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	q.Set("_txlock", "deferred")
	q.Add("_pragma", "query_only(1)")
	r, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	r.SetMaxOpenConns(opts.ReadConns)
	r.SetMaxIdleConns(opts.ReadConns)
	return &Store{w: w, r: r, poll: max(opts.Poll, 0), now: time.Now}, nil
}

// Close closes the database. Subscriptions ([Store.Events]) wake, even
// those waiting for the next append, and end with an error at their next
// read; calls after Close fail.
func (s *Store) Close() error {
	s.notify.Close()
	return errors.Join(s.r.Close(), s.w.Close())
}

// runColumns are the columns scanSummary reads, in order.
const runColumns = `pk, id, name, session, turn, parent_run, parent_tool_call, tags,
	status, reason, created_at, updated_at, last_seq`

type scanner interface{ Scan(dest ...any) error }

// scanSummary reads a row of runColumns.
func scanSummary(row scanner) (pk int64, sum run.Summary, err error) {
	var tags string
	var created, updated int64
	err = row.Scan(&pk, &sum.ID, &sum.Name, &sum.Session, &sum.Turn, &sum.ParentRun,
		&sum.ParentToolCall, &tags, &sum.Status, &sum.Reason, &created, &updated, &sum.LastSeq)
	if err != nil {
		return 0, sum, err
	}
	sum.CreatedAt = time.Unix(0, created).UTC()
	sum.UpdatedAt = time.Unix(0, updated).UTC()
	if tags != "{}" {
		if err := jsonUnmarshal(tags, &sum.Tags); err != nil {
			return 0, sum, fmt.Errorf("sqlite: tags of run %q: %w", sum.ID, err)
		}
	}
	return pk, sum, nil
}

// getRun reads a run's row.
func getRun(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id run.ID) (int64, run.Summary, error) {
	pk, sum, err := scanSummary(q.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return 0, sum, run.NotFound(id)
	}
	return pk, sum, err
}

// Create implements [run.Store.Create].
func (s *Store) Create(ctx context.Context, e run.Event) (run.Summary, bool, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return run.Summary{}, false, fmt.Errorf("sqlite: creating run %q: %w", e.RunID, err)
	}
	defer tx.Rollback()
	if _, sum, err := getRun(ctx, tx, e.RunID); err == nil {
		return sum, false, nil
	} else if !errors.Is(err, run.ErrRunNotFound) {
		return run.Summary{}, false, fmt.Errorf("sqlite: creating run %q: %w", e.RunID, err)
	}
	e, sum, err := run.PrepareCreate(e, s.now())
	if err != nil {
		return run.Summary{}, false, err
	}
	data, err := e.MarshalJSON()
	if err != nil {
		return run.Summary{}, false, err
	}
	tags := "{}"
	if len(sum.Tags) > 0 {
		if tags, err = jsonMarshal(sum.Tags); err != nil {
			return run.Summary{}, false, err
		}
	}
	t := e.Time.UnixNano()
	res, err := tx.ExecContext(ctx, `INSERT INTO runs (id, name, session, turn, parent_run,
		parent_tool_call, tags, status, reason, created_at, updated_at, last_seq)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, 1)`,
		sum.ID, sum.Name, sum.Session, sum.Turn, sum.ParentRun, sum.ParentToolCall, tags,
		sum.Status, t, t)
	if err != nil {
		return run.Summary{}, false, fmt.Errorf("sqlite: creating run %q: %w", e.RunID, err)
	}
	pk, err := res.LastInsertId()
	if err != nil {
		return run.Summary{}, false, err
	}
	for k, v := range sum.Tags {
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_tags (key, value, run) VALUES (?, ?, ?)`, k, v, pk); err != nil {
			return run.Summary{}, false, fmt.Errorf("sqlite: creating run %q: %w", e.RunID, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO events (run, seq, type, time, data) VALUES (?, 1, ?, ?, ?)`,
		pk, e.Type(), t, data); err != nil {
		return run.Summary{}, false, fmt.Errorf("sqlite: creating run %q: %w", e.RunID, err)
	}
	if err := tx.Commit(); err != nil {
		return run.Summary{}, false, fmt.Errorf("sqlite: creating run %q: %w", e.RunID, err)
	}
	s.notify.Notify(e.RunID)
	return sum, true, nil
}

// Append implements [run.Store.Append]: one transaction per call.
func (s *Store) Append(ctx context.Context, id run.ID, last int64, events ...run.Event) (int64, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("sqlite: appending to run %q: %w", id, err)
	}
	defer tx.Rollback()
	pk, sum, err := getRun(ctx, tx, id)
	if err != nil {
		return 0, err
	}
	prepared, next, err := run.PrepareAppend(make([]run.Event, 0, len(events)), sum, last, events, s.now())
	if err != nil {
		return 0, err
	}
	if len(prepared) == 0 {
		return next.LastSeq, nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO events (run, seq, type, time, data) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, fmt.Errorf("sqlite: appending to run %q: %w", id, err)
	}
	defer stmt.Close()
	for _, e := range prepared {
		data, err := e.MarshalJSON()
		if err != nil {
			return 0, err
		}
		if _, err := stmt.ExecContext(ctx, pk, e.Seq, e.Type(), e.Time.UnixNano(), data); err != nil {
			return 0, fmt.Errorf("sqlite: appending event %d to run %q: %w", e.Seq, id, err)
		}
		if s.failAfterInsert != nil {
			if err := s.failAfterInsert(e.Seq); err != nil {
				return 0, fmt.Errorf("sqlite: appending event %d to run %q: %w", e.Seq, id, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = ?, reason = ?, updated_at = ?, last_seq = ? WHERE pk = ?`,
		next.Status, next.Reason, next.UpdatedAt.UnixNano(), next.LastSeq, pk); err != nil {
		return 0, fmt.Errorf("sqlite: appending to run %q: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("sqlite: appending to run %q: %w", id, err)
	}
	s.notify.Notify(id)
	return next.LastSeq, nil
}
