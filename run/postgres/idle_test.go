package postgres

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byref/byref/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// tracer counts the statements a Store sends, and passes each on once
// the server has answered it: a test that waits for a statement then
// reads pg_stat_activity sees that statement done.
type tracer struct {
	n   atomic.Int64
	sql chan string
}

// sqlKey is the context key under which TraceQueryStart keeps the SQL
// for TraceQueryEnd.
type sqlKey struct{}

func (tr *tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	tr.n.Add(1)
	return context.WithValue(ctx, sqlKey{}, data.SQL)
}

func (tr *tracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	sql, _ := ctx.Value(sqlKey{}).(string)
	select {
	case tr.sql <- sql:
	default:
	}
}

// activity is what the server says the sessions of an application last
// did: each session's process and the start of its latest statement.
func activity(t *testing.T, app string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, withParam(pgtest.Start(t).URL(), "application_name", "byref-observer"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out string
	err = conn.QueryRow(ctx, `SELECT coalesce(string_agg(pid || '@' || coalesce(query_start::text, '-'), ' ' ORDER BY pid), '')
		FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An idle subscriber sends the database nothing: while another process
// appends 50 batches to another run, whose notifications the subscriber's
// Store receives (the interval is measured by those events, not by a
// clock), the Store sends no statement, and the server sees no new
// statement from any of its sessions. The next append to the followed run
// costs it one read of the events and one of the summary.
func TestIdleSubscriberSendsNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	app := "byref-idle-" + newSchema()
	tr := &tracer{sql: make(chan string, 10000)}
	notes := make(chan string, 1000)
	sub := openAt(t, app, Options{tracer: tr, onNotify: func(p string) { notes <- p }})
	w := openAt(t, "", Options{Schema: sub.schema})
	mustCreate(t, w, "run_idle")
	mustCreate(t, w, "run_busy")
	mustAppend(t, w, "run_idle", 1, toRunning)
	busy := mustAppend(t, w, "run_busy", 1, toRunning)
	// The notifications of the two appends of the setup, heard before the
	// follower starts: heard later, the one of run_idle would wake it to
	// read again inside the idle interval.
	<-notes
	<-notes
	f := follow(ctx, sub, "run_idle")
	f.expect(t, 1, 2)
	// After yielding the stored events the follower reads the summary,
	// then waits: the idle interval starts once that read is answered.
	getRun := sub.sql(`FROM {s}.runs WHERE id`)
	for sql := range tr.sql {
		if strings.Contains(sql, getRun) {
			break
		}
	}
	sent, seen := tr.n.Load(), activity(t, app)

	const appends = 50
	for range appends {
		busy = mustAppend(t, w, "run_busy", busy, message("elsewhere"))
	}
	for heard := 0; heard < appends; {
		if p := <-notes; p == "run_busy" {
			heard++
		}
	}
	if n := tr.n.Load() - sent; n != 0 {
		t.Errorf("the idle subscriber's Store sent %d statements while %d appends elsewhere were notified to it", n, appends)
	}
	if now := activity(t, app); now != seen {
		t.Errorf("the server saw the idle subscriber's sessions work:\nbefore %s\nafter  %s", seen, now)
	}

	sent = tr.n.Load()
	mustAppend(t, w, "run_idle", 2, message("wake up"))
	f.expect(t, 3, 3)
	for sql := range tr.sql { // the read of the summary after the event
		if strings.Contains(sql, getRun) {
			break
		}
	}
	if n := tr.n.Load() - sent; n != 2 {
		t.Errorf("waking for one event cost %d statements, want 2 (the events, the summary)", n)
	}
	mustAppend(t, w, "run_idle", 3, toComplete)
	f.expect(t, 4, 4)
	f.expectEnd(t)
}
