package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/run"
)

var (
	toRunning  = run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}}
	toComplete = run.Event{Payload: run.StatusChanged{From: run.StatusRunning, To: run.StatusCompleted}}
)

func message(text string) run.Event { return run.Event{Payload: run.AssistantMessage{Text: text}} }

// follower follows a run in a goroutine.
type follower struct {
	seen <-chan run.Event // closed when the subscription ends
	done <-chan error     // then gets its error (nil when the run ended)
}

func follow(ctx context.Context, s *Store, id run.ID) follower {
	seen, done := make(chan run.Event), make(chan error, 1)
	go func() {
		defer close(seen)
		for e, err := range s.Events(ctx, id, 1) {
			if err != nil {
				done <- err
				return
			}
			select {
			case seen <- e:
			case <-ctx.Done():
				return
			}
		}
		done <- ctx.Err()
	}()
	return follower{seen, done}
}

// expect receives the next followed events, which must be numbered from
// from to to: none lost, none repeated.
func (f follower) expect(t *testing.T, from, to int64) {
	t.Helper()
	for want := from; want <= to; want++ {
		e, ok := <-f.seen
		if !ok {
			t.Fatalf("the subscription ended (%v), want event %d", <-f.done, want)
		}
		if e.Seq != want {
			t.Fatalf("followed event %d, want %d", e.Seq, want)
		}
	}
}

// expectEnd waits for the subscription to end with its run.
func (f follower) expectEnd(t *testing.T) {
	t.Helper()
	if e, ok := <-f.seen; ok {
		t.Fatalf("followed event %d, want the end of the run", e.Seq)
	}
	if err := <-f.done; err != nil {
		t.Fatalf("the subscription did not end with the run: %v", err)
	}
}

func mustCreate(t *testing.T, s *Store, id run.ID) {
	t.Helper()
	if _, _, err := s.Create(context.Background(), run.Event{RunID: id, Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
}

func mustAppend(t *testing.T, s *Store, id run.ID, last int64, events ...run.Event) int64 {
	t.Helper()
	last, err := s.Append(context.Background(), id, last, events...)
	if err != nil {
		t.Fatal(err)
	}
	return last
}

// Appenders in three processes (Stores, each with its own pool), four
// goroutines each, extend one log, each re-reading its end after a
// conflict: the sequence numbers are dense and unique, every event is
// stored once, and a follower in a fourth process sees the whole log in
// order.
func TestConcurrentAppenders(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	const stores, writers, each = 3, 4, 25
	first := openAt(t, "", Options{})
	procs := []*Store{first}
	for range stores - 1 {
		procs = append(procs, openAt(t, "", Options{Schema: first.schema}))
	}
	reader := openAt(t, "", Options{Schema: first.schema})
	mustCreate(t, first, "run_shared")
	mustAppend(t, first, "run_shared", 1, toRunning)
	sub := follow(ctx, reader, "run_shared")
	var wg sync.WaitGroup
	conflicts := make(chan int, stores*writers)
	for p, s := range procs {
		for w := range writers {
			wg.Go(func() {
				n := 0
				for i := 0; i < each; {
					sum, err := s.Get(ctx, "run_shared")
					if err == nil {
						_, err = s.Append(ctx, "run_shared", sum.LastSeq, message(fmt.Sprintf("p%d-w%d-%d", p, w, i)))
					}
					switch {
					case errors.Is(err, run.ErrConflict):
						n++
						continue
					case err != nil:
						t.Error(err)
						return
					}
					i++
				}
				conflicts <- n
			})
		}
	}
	wg.Wait()
	close(conflicts)
	total := 0
	for n := range conflicts {
		total += n
	}
	const n = 2 + stores*writers*each
	mustAppend(t, first, "run_shared", n, toComplete)
	events, err := reader.Read(ctx, "run_shared", 1, 0)
	if err != nil || len(events) != n+1 {
		t.Fatalf("Read = %d events, %v; want %d", len(events), err, n+1)
	}
	texts := map[string]bool{}
	for i, e := range events {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		if m, ok := e.Payload.(run.AssistantMessage); ok {
			if texts[m.Text] {
				t.Fatalf("%q is stored twice", m.Text)
			}
			texts[m.Text] = true
		}
	}
	if len(texts) != stores*writers*each {
		t.Fatalf("%d messages stored, want %d", len(texts), stores*writers*each)
	}
	sub.expect(t, 1, n+1)
	sub.expectEnd(t)
	t.Logf("%d appends, %d conflicts retried", stores*writers*each, total)
}

// terminate ends the server sessions of an application, as a failing
// network or an operator would, and returns how many it ended.
func terminate(t *testing.T, app string) int {
	t.Helper()
	return queryInt(t, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app)
}

// listenerPID is the server process of a Store's listening connection.
func listenerPID(t *testing.T, s *Store, app string) int {
	t.Helper()
	var pid int
	err := s.pool.QueryRow(context.Background(), `SELECT pid FROM pg_stat_activity
		WHERE application_name = $1 AND query LIKE 'LISTEN %'`, app).Scan(&pid)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// The listening connection of a subscriber's process is ended, and kept
// from reconnecting while another process appends: the notification of
// that append is lost, and once the listener is back the subscriber
// delivers the event all the same.
func TestLostNotification(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	app := "byref-lostnote-" + newSchema()
	lost, release := make(chan struct{}), make(chan struct{})
	sub := openAt(t, app, Options{onLost: func() {
		lost <- struct{}{}
		<-release
	}})
	w := openAt(t, "", Options{Schema: sub.schema})
	mustCreate(t, w, "run_lost")
	last := mustAppend(t, w, "run_lost", 1, toRunning)
	f := follow(ctx, sub, "run_lost")
	f.expect(t, 1, last)
	for round := range 3 {
		if n := queryInt(t, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = $1 AND query LIKE 'LISTEN %'`, app); n != 1 {
			t.Fatalf("round %d: ended %d listening sessions, want 1", round, n)
		}
		<-lost // no one in sub's process listens now
		next := mustAppend(t, w, "run_lost", last, message("unheard"))
		release <- struct{}{}
		f.expect(t, last+1, next)
		last = next
	}
	last = mustAppend(t, w, "run_lost", last, toComplete)
	f.expect(t, last, last)
	f.expectEnd(t)
}

// The sessions of a subscriber's process are ended (its listening
// connection and its pool's) while another process appends: the
// subscriber reconnects and delivers every event once, in order.
func TestLostConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	app := "byref-lost-" + newSchema()
	sub := openAt(t, app, Options{})
	w := openAt(t, "", Options{Schema: sub.schema})
	mustCreate(t, w, "run_lost")
	last := mustAppend(t, w, "run_lost", 1, toRunning)
	f := follow(ctx, sub, "run_lost")
	f.expect(t, 1, last)
	before := listenerPID(t, sub, app)
	for round := range 5 {
		if n := terminate(t, app); n == 0 {
			t.Fatalf("round %d: no session of %s to end", round, app)
		}
		next := mustAppend(t, w, "run_lost", last, message("a"), message("b"), message("c"))
		f.expect(t, last+1, next)
		last = next
	}
	last = mustAppend(t, w, "run_lost", last, toComplete)
	f.expect(t, last, last)
	f.expectEnd(t)
	if after := listenerPID(t, sub, app); after == before {
		t.Fatalf("the listening connection is still backend %d: it was never ended", before)
	}
}

// The database is stopped and started again under a subscriber and a
// writer: appends fail while it is down, work again once it is back, and
// the subscriber delivers every event once, in order.
func TestRestartedDatabase(t *testing.T) {
	srv := pgtest.Start(t)
	if srv.External() {
		t.Skipf("skipping: the server of $%s is not restarted by tests", pgtest.EnvURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	sub := openAt(t, "", Options{})
	w := openAt(t, "", Options{Schema: sub.schema})
	mustCreate(t, w, "run_restart")
	last := mustAppend(t, w, "run_restart", 1, toRunning)
	f := follow(ctx, sub, "run_restart")
	f.expect(t, 1, last)

	srv.Stop(t)
	if _, err := w.Append(ctx, "run_restart", last, message("lost")); err == nil || !lostConnection(err) {
		t.Fatalf("Append while the database is down = %v, want a lost connection", err)
	}
	srv.Restart(t)

	// The pool may hold more dead connections than a call tries: a
	// writer tries again, as after any lost connection.
	var err error
	for range 20 {
		var next int64
		if next, err = w.Append(ctx, "run_restart", last, message("back")); err == nil {
			last = next
			break
		}
		if !lostConnection(err) {
			t.Fatal(err)
		}
	}
	if err != nil {
		t.Fatalf("Append after the restart: %v", err)
	}
	f.expect(t, last, last)
	last = mustAppend(t, w, "run_restart", last, toComplete)
	f.expect(t, last, last)
	f.expectEnd(t)
	if events, err := sub.Read(ctx, "run_restart", 1, 0); err != nil || int64(len(events)) != last {
		t.Fatalf("after the restart: %d events, %v; want %d", len(events), err, last)
	}
}
