package sqlite

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/byref/byref/run"
	"github.com/byref/byref/run/storetest"
)

// openShared opens two Stores on one new file, as two processes would:
// each has its own notifier, so neither's appends wake the other's
// subscribers. a has the given Poll.
func openShared(t *testing.T, poll time.Duration) (a, b *Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.db")
	a, err := Open(path, Options{Poll: poll})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, open(t, path)
}

// follow follows a run on s in a goroutine, sending the sequence number of
// each event on the first channel, which it closes when the subscription
// ends; the second gets the error it ended with (nil when the run ended).
func follow(ctx context.Context, s *Store, id run.ID) (<-chan int64, <-chan error) {
	seen, done := make(chan int64), make(chan error, 1)
	go func() {
		defer close(seen)
		for e, err := range s.Events(ctx, id, 1) {
			if err != nil {
				done <- err
				return
			}
			select {
			case seen <- e.Seq:
			case <-ctx.Done(): // the test failed or hung
				return
			}
		}
		done <- ctx.Err() // Events ends silently when ctx is done
	}()
	return seen, done
}

// expect receives the next followed event, which must be want.
func expect(t *testing.T, seen <-chan int64, want int64) {
	t.Helper()
	if got, ok := <-seen; !ok || got != want {
		t.Fatalf("followed event %d (subscription open: %t), want %d", got, ok, want)
	}
}

// expectEnd waits for the subscription to end with its run.
func expectEnd(t *testing.T, seen <-chan int64, done <-chan error) {
	t.Helper()
	if got, ok := <-seen; ok {
		t.Fatalf("followed event %d, want the end of the run", got)
	}
	if err := <-done; err != nil {
		t.Fatalf("the subscription did not end with the run: %v", err)
	}
}

var (
	toRunning = run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}}
	toFailed  = run.Event{Payload: run.StatusChanged{From: run.StatusRunning, To: run.StatusFailed, Reason: "test"}}
	message   = run.Event{Payload: run.AssistantMessage{Text: "hello"}}
)

// A Store with Poll passes the conformance tests: polling changes no
// subscription's events.
func TestConformancePoll(t *testing.T) {
	storetest.Run(t, func(t *testing.T) run.Store {
		s, err := Open(filepath.Join(t.TempDir(), "runs.db"), Options{Poll: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// With Poll, a subscriber sees the appends of another Store sharing the
// file (another process), and ends when that Store ends the run.
func TestPollSeesOtherStoresAppends(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	a, b := openShared(t, 5*time.Millisecond)
	if _, _, err := b.Create(ctx, run.Event{RunID: "run_shared", Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	seen, done := follow(ctx, a, "run_shared")
	expect(t, seen, 1)
	if _, err := b.Append(ctx, "run_shared", 1, toRunning); err != nil {
		t.Fatal(err)
	}
	expect(t, seen, 2)
	if _, err := b.Append(ctx, "run_shared", 2, message); err != nil {
		t.Fatal(err)
	}
	expect(t, seen, 3)
	if _, err := b.Append(ctx, "run_shared", 3, toFailed); err != nil {
		t.Fatal(err)
	}
	expect(t, seen, 4)
	expectEnd(t, seen, done)
}

// Without Poll, a subscriber still sees the appends of another Store
// sharing the file once an append through its own Store wakes it, in
// order and none twice, and it ends with the run.
func TestNoPollOwnAppendsWake(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	a, b := openShared(t, 0)
	if _, _, err := b.Create(ctx, run.Event{RunID: "run_shared", Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	seen, done := follow(ctx, a, "run_shared")
	expect(t, seen, 1)
	if _, err := b.Append(ctx, "run_shared", 1, toRunning); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(ctx, "run_shared", 2, message); err != nil {
		t.Fatal(err)
	}
	expect(t, seen, 2)
	expect(t, seen, 3)
	if _, err := a.Append(ctx, "run_shared", 3, toFailed); err != nil {
		t.Fatal(err)
	}
	expect(t, seen, 4)
	expectEnd(t, seen, done)
}

// Subscribers with Poll that stop, by breaking out of their loop or by
// the cancellation of their context while they wait, leave no goroutine
// behind. (A stopped timer holds no goroutine; this checks that nothing
// else was started to poll.)
func TestPollSubscribersThatStopLeaveNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	a, b := openShared(t, time.Millisecond)
	if _, _, err := b.Create(ctx, run.Event{RunID: "run_live", Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, "run_live"); err != nil { // opens a read connection
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()
	for range 10 {
		for range a.Events(ctx, "run_live", 1) {
			break
		}
	}
	stopped := make(chan struct{})
	for range 10 {
		cctx, cancelSubscriber := context.WithCancel(ctx)
		go func() {
			defer func() { stopped <- struct{}{} }()
			for range a.Events(cctx, "run_live", 1) {
			}
		}()
		time.Sleep(5 * time.Millisecond) // some polls go by
		cancelSubscriber()
		<-stopped
	}
	// Wait for the goroutines above to exit.
	got := runtime.NumGoroutine()
	for got > base && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
		got = runtime.NumGoroutine()
	}
	if got > base {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after every subscriber stopped, %d before\n%s", got, base, buf[:runtime.Stack(buf, true)])
	}
}
