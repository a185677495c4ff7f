package postgres

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/storetest"
	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var schemas atomic.Int64

// newSchema returns a schema name no other test of any test binary uses.
func newSchema() string {
	return fmt.Sprintf("byreftest_%d_%d", os.Getpid(), schemas.Add(1))
}

// withParam returns the URL u with a query parameter set.
func withParam(u, key, value string) string {
	p, err := url.Parse(u)
	if err != nil {
		panic(err)
	}
	q := p.Query()
	q.Set(key, value)
	p.RawQuery = q.Encode()
	return p.String()
}

// openAt opens a Store on the test server's database with opts (a new
// schema unless opts.Schema is set, dropped when the test ends) as the
// application app ("" for a default), closed when the test ends.
func openAt(t testing.TB, app string, opts Options) *Store {
	t.Helper()
	srv := pgtest.Start(t)
	u := srv.URL()
	if app != "" {
		u = withParam(u, "application_name", app)
	}
	if opts.Schema == "" {
		opts.Schema = newSchema()
		schema := opts.Schema
		t.Cleanup(func() { dropSchema(t, srv.URL(), schema) })
	}
	s, err := Open(context.Background(), u, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dropSchema(t testing.TB, u, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Errorf("dropping schema %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		t.Errorf("dropping schema %s: %v", schema, err)
	}
}

// queryInt runs a query that returns one integer, as the test server's
// superuser.
func queryInt(t testing.TB, sql string, args ...any) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgtest.Start(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) run.Store { return openAt(t, "", Options{}) })
}

// split is two Stores on one schema, as two processes: it writes through
// w and reads and follows through r, whose subscribers only the
// database's notifications can wake.
type split struct{ w, r *Store }

func (s split) Create(ctx context.Context, e run.Event) (run.Summary, bool, error) {
	return s.w.Create(ctx, e)
}
func (s split) Append(ctx context.Context, id run.ID, last int64, events ...run.Event) (int64, error) {
	return s.w.Append(ctx, id, last, events...)
}
func (s split) Read(ctx context.Context, id run.ID, from int64, limit int) ([]run.Event, error) {
	return s.r.Read(ctx, id, from, limit)
}
func (s split) Get(ctx context.Context, id run.ID) (run.Summary, error) { return s.r.Get(ctx, id) }
func (s split) List(ctx context.Context, q run.Query) ([]run.Summary, string, error) {
	return s.r.List(ctx, q)
}
func (s split) Events(ctx context.Context, id run.ID, from int64) iter.Seq2[run.Event, error] {
	return s.r.Events(ctx, id, from)
}
func (s split) PutRecord(ctx context.Context, r run.Record) error { return s.w.PutRecord(ctx, r) }
func (s split) DeleteRecord(ctx context.Context, id run.ID, kind, key string) (bool, error) {
	return s.w.DeleteRecord(ctx, id, kind, key)
}
func (s split) ListRecords(ctx context.Context, kind string, id run.ID) ([]run.Record, error) {
	return s.r.ListRecords(ctx, kind, id)
}

// The suite passes when one process writes and another reads and
// follows: subscribers are woken by LISTEN/NOTIFY alone.
func TestConformanceAcrossProcesses(t *testing.T) {
	storetest.Run(t, func(t *testing.T) run.Store {
		w := openAt(t, "", Options{})
		return split{w: w, r: openAt(t, "", Options{Schema: w.schema})}
	})
}

func TestSchemaMigrations(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, "", Options{})
	var version int
	var description string
	if err := s.pool.QueryRow(ctx, s.sql(`SELECT version, description FROM {s}.schema_migrations ORDER BY version DESC LIMIT 1`)).Scan(&version, &description); err != nil || version != SchemaVersion || description == "" {
		t.Fatalf("schema_migrations = %d %q, %v; want version %d", version, description, err, SchemaVersion)
	}
	if n := queryInt(t, `SELECT count(*) FROM `+s.quoted+`.schema_migrations`); n != SchemaVersion || n != len(migrations) {
		t.Fatalf("schema_migrations has %d rows; want one per migration, %d", n, SchemaVersion)
	}
	// Opening again migrates nothing; NoMigrate accepts the schema.
	openAt(t, "", Options{Schema: s.schema})
	openAt(t, "", Options{Schema: s.schema, NoMigrate: true})

	// NoMigrate refuses a schema that was never migrated, naming the fix.
	srv := pgtest.Start(t)
	_, err := Open(ctx, srv.URL(), Options{Schema: newSchema(), NoMigrate: true})
	if err == nil || !strings.Contains(err.Error(), "version 0") || !strings.Contains(err.Error(), "NoMigrate") {
		t.Fatalf("NoMigrate on an empty schema: %v", err)
	}
	// A schema from a newer program is refused, migrating or not.
	if _, err := s.pool.Exec(ctx, s.sql(`INSERT INTO {s}.schema_migrations (version, description) VALUES (99, 'future')`)); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{Schema: s.schema}, {Schema: s.schema, NoMigrate: true}} {
		if _, err := Open(ctx, srv.URL(), opts); err == nil || !strings.Contains(err.Error(), "newer") {
			t.Fatalf("Open(%+v) of a schema from the future: %v", opts, err)
		}
	}
}

// Processes that start together on a new schema migrate it once.
func TestConcurrentMigrations(t *testing.T) {
	schema := newSchema()
	srv := pgtest.Start(t)
	t.Cleanup(func() { dropSchema(t, srv.URL(), schema) })
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := Open(context.Background(), srv.URL(), Options{Schema: schema})
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenBadURL(t *testing.T) {
	for _, u := range []string{"mysql://nope", "postgres://%zz"} {
		if _, err := Open(context.Background(), u, Options{}); err == nil || !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("Open(%q) = %v, want an error showing the URL's form", u, err)
		}
	}
}

// A follower waiting for the next append ends, with an error, when the
// store closes; calls after Close fail.
func TestCloseWakesFollowers(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, "", Options{})
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_live", Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	seen := make(chan struct{})
	go func() {
		var last error
		for _, err := range s.Events(ctx, "run_live", 1) {
			if err != nil {
				last = err
				continue
			}
			close(seen)
		}
		got <- last
	}()
	<-seen
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err == nil {
		t.Fatal("the follower ended without an error")
	}
	if _, err := s.Get(ctx, "run_live"); !errors.Is(err, errClosed) {
		t.Fatalf("Get after Close = %v", err)
	}
}

// A run ID too long for a notification's payload still wakes followers
// in other processes.
func TestLongRunID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	w := openAt(t, "", Options{})
	r := openAt(t, "", Options{Schema: w.schema})
	id := run.ID("run_" + strings.Repeat("x", 2*maxPayload))
	if _, _, err := w.Create(ctx, run.Event{RunID: id, Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	seen := make(chan int64)
	go func() {
		for e, err := range r.Events(ctx, id, 1) {
			if err != nil {
				t.Error(err)
				return
			}
			seen <- e.Seq
		}
		close(seen)
	}()
	<-seen
	if _, err := w.Append(ctx, id, 1, run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusFailed}}); err != nil {
		t.Fatal(err)
	}
	if got := <-seen; got != 2 {
		t.Fatalf("followed event %d, want 2", got)
	}
	if _, ok := <-seen; ok {
		t.Fatal("the subscription did not end with the run")
	}
}

// TryLock gives a name's lock to one session of all those sharing a
// schema, and to the next once it is unlocked; schemas do not share
// locks.
func TestTryLock(t *testing.T) {
	ctx := context.Background()
	a := openAt(t, "", Options{})
	b := openAt(t, "", Options{Schema: a.schema})
	other := openAt(t, "", Options{})
	l, ok, err := a.TryLock(ctx, "byref serve")
	if err != nil || !ok {
		t.Fatalf("first TryLock = %v, %v", ok, err)
	}
	if _, ok, err := b.TryLock(ctx, "byref serve"); err != nil || ok {
		t.Fatalf("TryLock of a held lock = %v, %v; want false", ok, err)
	}
	if l2, ok, err := other.TryLock(ctx, "byref serve"); err != nil || !ok {
		t.Fatalf("TryLock in another schema = %v, %v; want true", ok, err)
	} else {
		l2.Unlock(ctx)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	l, ok, err = b.TryLock(ctx, "byref serve")
	if err != nil || !ok {
		t.Fatalf("TryLock after Unlock = %v, %v", ok, err)
	}
	l.Unlock(ctx)
}

// WaitLock waits while another session holds the lock, and takes it when
// that session ends, as when its process dies.
func TestWaitLock(t *testing.T) {
	ctx := context.Background()
	a := openAt(t, "", Options{})
	b := openAt(t, "", Options{Schema: a.schema})
	held, _, err := a.TryLock(ctx, "byref serve")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := b.WaitLock(ctx, "byref serve")
		if err == nil {
			l.Unlock(ctx) // before the test goes on to take it again
		}
		got <- err
	}()
	// The waiter's statement waits in the database for the holder's lock.
	for queryInt(t, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := held.Unlock(ctx); err != nil { // the holder's session ends
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("WaitLock = %v", err)
	}
	// A waiter whose context ends gives up.
	held, ok, err := a.TryLock(ctx, "byref serve")
	if err != nil || !ok {
		t.Fatalf("TryLock of the released lock = %v, %v", ok, err)
	}
	defer held.Unlock(ctx)
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		for queryInt(t, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := b.WaitLock(cctx, "byref serve"); err == nil {
		t.Fatal("WaitLock returned the held lock after its context ended")
	}
}
