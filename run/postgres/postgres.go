package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/byref/byref/run"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configures a [Store]. The zero value is ready to use. The pool's
// size and the connections' settings are the URL's: pool_max_conns,
// pool_min_conns, pool_max_conn_lifetime, pool_max_conn_idle_time,
// connect_timeout, sslmode, application_name, … (see pgxpool.ParseConfig).
type Options struct {
	// Schema is the PostgreSQL schema that holds the store's tables, and
	// the name of the channel its appends are notified on. Stores that
	// share a schema share their runs. Default "byref".
	Schema string
	// NoMigrate makes Open refuse a schema that is not at
	// [SchemaVersion] instead of migrating it: for deployments that
	// migrate in a separate step, with a role that may change the schema.
	NoMigrate bool
	// QueryTimeout bounds each call that reads or writes (the caller's
	// context may bound it sooner). Default 30s.
	QueryTimeout time.Duration
	// Outage is how long a subscription ([Store.Events]) waits out a lost
	// database (a restart, a failover) before it ends with the error. It
	// retries its reads, with backoff, meanwhile. Default 1 minute.
	Outage time.Duration
	// Logger gets a line when the connection that listens for other
	// processes' appends is lost and when it is back. Default: none.
	Logger *slog.Logger

	// tracer, when set by a test, sees every query of the pool.
	tracer pgx.QueryTracer
	// onNotify, when set by a test, is called with each notification's
	// payload, after the followers of its run were woken.
	onNotify func(payload string)
	// onLost, when set by a test, is called when the listening
	// connection was lost, before reconnecting.
	onLost func()
	// onBack, when set by a test, is called when the listening
	// connection listens again, after the followers were woken.
	onBack func()
}

// Store is a [run.Store] and [run.Records] in a PostgreSQL database,
// shared by every process that opens it. Create one with [Open] and
// release it with [Store.Close]. Its methods are safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	schema  string // Options.Schema
	quoted  string // schema as an SQL identifier
	timeout time.Duration
	outage  time.Duration
	log     *slog.Logger
	now     func() time.Time

	notify run.Notifier
	live   deltas    // the followers of Live, by run
	pub    publisher // the deltas PublishDelta queued
	bg     context.Context
	stop   context.CancelFunc // cancels bg: stops the listener and the publisher
	wg     sync.WaitGroup     // the listener and the publisher
	closed atomic.Bool
	// fenced is set when the Store's replica lost its lease: the Store
	// writes no more (ErrLeaseLost), since another replica may be taking
	// its runs over.
	fenced atomic.Bool
	opts   Options

	// cache holds the summaries of runs this Store appended to lately, so
	// that an Append of the run's writer costs one statement: its UPDATE
	// checks last_seq, and a stale entry only costs a conflict and a
	// second try.
	mu    sync.Mutex
	cache map[run.ID]run.Summary
}

var (
	_ run.Store   = (*Store)(nil)
	_ run.Records = (*Store)(nil)
)

// cacheSize bounds Store.cache.
const cacheSize = 4096

// Open connects to the database at url (postgres://user:pass@host/db?…),
// migrates the schema to [SchemaVersion] (unless Options.NoMigrate), and
// starts listening for the appends of other processes. ctx bounds Open
// only.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	if opts.Schema == "" {
		opts.Schema = "byref"
	}
	if len(opts.Schema)+len(deltaSuffix) > 63 {
		return nil, fmt.Errorf("postgres: schema name %q is too long: it names a notification channel too, which with %q must fit PostgreSQL's 63 bytes; choose a shorter Options.Schema", opts.Schema, deltaSuffix)
	}
	if opts.QueryTimeout <= 0 {
		opts.QueryTimeout = 30 * time.Second
	}
	if opts.Outage <= 0 {
		opts.Outage = time.Minute
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: bad database URL: %w; want postgres://user:password@host:5432/database", err)
	}
	if opts.tracer != nil {
		cfg.ConnConfig.Tracer = opts.tracer
	}
	s := &Store{
		schema: opts.Schema, quoted: pgx.Identifier{opts.Schema}.Sanitize(),
		timeout: opts.QueryTimeout, outage: opts.Outage, log: opts.Logger, now: time.Now,
		opts: opts, cache: make(map[run.ID]run.Summary),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if opts.NoMigrate {
		err = s.check(ctx, pool)
	} else {
		err = s.migrate(ctx, pool)
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: opening %s: %w", cfg.ConnConfig.Database, err)
	}
	s.pool = pool
	if err := s.startListening(ctx, cfg.ConnConfig); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: listening for appends: %w", err)
	}
	return s, nil
}

// Close stops listening and closes the pool. Subscriptions
// ([Store.Events]) wake, even those waiting for the next append, and end
// with an error at their next read; calls after Close fail.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.pub.mu.Lock()
	s.pub.closed = true // no publisher starts after the Wait below begins
	s.pub.mu.Unlock()
	s.stop()
	s.wg.Wait()
	s.notify.Close()
	s.live.closeAll()
	s.pool.Close()
	return nil
}

// Pool returns the store's connection pool, for programs that keep their
// own tables beside the runs. It is closed by Close.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// sql returns q with the store's schema for {s}.
func (s *Store) sql(q string) string { return strings.ReplaceAll(q, "{s}", s.quoted) }

// bound returns ctx bounded by Options.QueryTimeout.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// Create implements [run.Store.Create] in one statement: the run's row and
// its first event, or nothing when the ID is taken.
func (s *Store) Create(ctx context.Context, e run.Event) (run.Summary, bool, error) {
	if s.fenced.Load() {
		return run.Summary{}, false, ErrLeaseLost
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	e, sum, err := run.PrepareCreate(e, s.now())
	if err != nil {
		if e.RunID != "" { // an existing run is returned whatever e holds
			if sum, err2 := s.get(ctx, e.RunID); err2 == nil {
				return sum, false, nil
			}
		}
		return run.Summary{}, false, err
	}
	data, err := e.MarshalJSON()
	if err != nil {
		return run.Summary{}, false, err
	}
	tags := []byte("{}")
	if len(sum.Tags) > 0 {
		if tags, err = json.Marshal(sum.Tags); err != nil {
			return run.Summary{}, false, err
		}
	}
	t := e.Time.UnixNano()
	var tag pgconn.CommandTag
	err = s.retry(ctx, func() (err error) {
		tag, err = s.pool.Exec(ctx, s.sql(`WITH r AS (
			INSERT INTO {s}.runs (id, name, session, turn, parent_run, parent_tool_call, tags,
				status, reason, created_at, updated_at, last_seq)
			VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, '', $9, $9, 1)
			ON CONFLICT (id) DO NOTHING RETURNING pk)
			INSERT INTO {s}.events (run, seq, type, time, data) SELECT pk, 1, $10, $9, $11 FROM r`),
			sum.ID, sum.Name, sum.Session, sum.Turn, sum.ParentRun, sum.ParentToolCall, string(tags),
			sum.Status, t, e.Type(), string(data))
		return err
	})
	if err != nil {
		return run.Summary{}, false, fmt.Errorf("postgres: creating run %q: %w", e.RunID, err)
	}
	if tag.RowsAffected() == 0 {
		sum, err := s.get(ctx, e.RunID)
		if err != nil {
			return run.Summary{}, false, fmt.Errorf("postgres: creating run %q: %w", e.RunID, err)
		}
		return sum, false, nil
	}
	s.remember(sum)
	return sum, true, nil
}

// maxPayload bounds a notification's payload: a run ID longer than this
// is notified with an empty payload, which wakes every follower.
// (PostgreSQL refuses payloads of 8000 bytes and more.)
const maxPayload = 1000

// Append implements [run.Store.Append] in one statement, which updates
// the run's row only if its log still ends at last, inserts the events
// only if it did, and notifies the other processes on commit. Before it,
// the run's summary is read, unless this Store appended to the run last.
// A statement that failed because the connection was lost is tried again:
// its last_seq check keeps a batch from being stored twice (a retry after
// a commit whose reply was lost returns a *run.ConflictError).
func (s *Store) Append(ctx context.Context, id run.ID, last int64, events ...run.Event) (int64, error) {
	if s.fenced.Load() {
		return 0, ErrLeaseLost
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	sum, cached := s.cached(id, last)
	for {
		if !cached {
			var err error
			if sum, err = s.get(ctx, id); err != nil {
				return 0, err
			}
		}
		prepared, next, err := run.PrepareAppend(make([]run.Event, 0, len(events)), sum, last, events, s.now())
		if err != nil {
			s.forget(id)
			return 0, err
		}
		if len(prepared) == 0 {
			return next.LastSeq, nil
		}
		seqs, types, times, datas := make([]int64, len(prepared)), make([]string, len(prepared)), make([]int64, len(prepared)), make([]string, len(prepared))
		for i, e := range prepared {
			data, err := e.MarshalJSON()
			if err != nil {
				return 0, err
			}
			seqs[i], types[i], times[i], datas[i] = e.Seq, string(e.Type()), e.Time.UnixNano(), string(data)
		}
		payload := string(id)
		if len(payload) > maxPayload {
			payload = ""
		}
		var tag pgconn.CommandTag
		err = s.retry(ctx, func() (err error) {
			tag, err = s.pool.Exec(ctx, s.sql(`WITH upd AS (
				UPDATE {s}.runs SET status = $3, reason = $4, updated_at = $5, last_seq = $6
				WHERE id = $1 AND last_seq = $2 RETURNING pk),
			ins AS (INSERT INTO {s}.events (run, seq, type, time, data)
				SELECT upd.pk, e.seq, e.type, e.time, e.data FROM upd,
				unnest($7::bigint[], $8::text[], $9::bigint[], $10::text[]) AS e (seq, type, time, data))
			SELECT pg_notify($11, $12) FROM upd`),
				id, last, next.Status, next.Reason, next.UpdatedAt.UnixNano(), next.LastSeq,
				seqs, types, times, datas, s.schema, payload)
			return err
		})
		if err != nil {
			s.forget(id)
			return 0, fmt.Errorf("postgres: appending to run %q: %w", id, err)
		}
		if tag.RowsAffected() == 1 {
			s.remember(next)
			s.notify.Notify(id)
			return next.LastSeq, nil
		}
		// The log moved on (or the run is gone) since the summary was
		// read: read it again, and PrepareAppend says which.
		s.forget(id)
		if !cached {
			cur, err := s.get(ctx, id)
			if err != nil {
				return 0, err
			}
			return 0, &run.ConflictError{RunID: id, Expected: last, Actual: cur.LastSeq}
		}
		cached = false
	}
}

// cached returns the cached summary of the run if its log ends at last.
func (s *Store) cached(id run.ID, last int64) (run.Summary, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum, ok := s.cache[id]
	return sum, ok && sum.LastSeq == last
}

// remember caches a run's summary after this Store wrote it; a run whose
// log is closed is dropped instead.
func (s *Store) remember(sum run.Summary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sum.Status.Final() {
		delete(s.cache, sum.ID)
		return
	}
	if _, ok := s.cache[sum.ID]; !ok && len(s.cache) >= cacheSize {
		for k := range s.cache { // drop one, at random
			delete(s.cache, k)
			break
		}
	}
	s.cache[sum.ID] = sum
}

// forget drops a run's cached summary.
func (s *Store) forget(id run.ID) {
	s.mu.Lock()
	delete(s.cache, id)
	s.mu.Unlock()
}

// errClosed is what calls after Close return.
var errClosed = errors.New("postgres: the store is closed")
