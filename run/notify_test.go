package run

import (
	"context"
	"errors"
	"testing"
	"time"
)

// NotifyAll wakes the waiters of every run and leaves no entry; a Wait
// after it waits for the next notification, unlike after Close.
func TestNotifyAll(t *testing.T) {
	var n Notifier
	a, ra := n.Wait("a")
	b, rb := n.Wait("b")
	n.NotifyAll()
	for _, ch := range []<-chan struct{}{a, b} {
		select {
		case <-ch:
		default:
			t.Fatal("NotifyAll left a waiter asleep")
		}
	}
	ra()
	rb()
	if got := n.waiting(); got != 0 {
		t.Fatalf("%d runs have waiters after NotifyAll", got)
	}
	c, rc := n.Wait("a")
	defer rc()
	select {
	case <-c:
		t.Fatal("a Wait after NotifyAll is already closed")
	default:
	}
}

func TestNotifier(t *testing.T) {
	var n Notifier
	a1, r1 := n.Wait("a")
	a2, r2 := n.Wait("a")
	b, rb := n.Wait("b")
	if a1 != a2 {
		t.Fatal("two waiters of one run got different channels")
	}
	n.Notify("a")
	n.Notify("nobody") // no waiter: nothing to do
	select {
	case <-a1:
	default:
		t.Fatal("Notify did not wake the run's waiter")
	}
	select {
	case <-b:
		t.Fatal("Notify woke another run's waiter")
	default:
	}
	a3, r3 := n.Wait("a")
	select {
	case <-a3:
		t.Fatal("a new Wait after Notify is already closed")
	default:
	}
	// Releasing the notified waits leaves the new one; releasing every
	// wait leaves no entry.
	r1()
	r2()
	if got := n.waiting(); got != 2 {
		t.Fatalf("%d runs have waiters, want 2 (a and b)", got)
	}
	r3()
	r3() // twice is harmless
	rb()
	if got := n.waiting(); got != 0 {
		t.Fatalf("%d runs have waiters after every wait was released", got)
	}
	n.Close()
	if c, _ := n.Wait("c"); c == nil {
		t.Fatal("Wait after Close returned nil")
	} else {
		select {
		case <-c:
		default:
			t.Fatal("Wait after Close returned an open channel")
		}
	}
}

func TestNotifierCloseWakesWaiters(t *testing.T) {
	var n Notifier
	w, release := n.Wait("a")
	defer release()
	n.Close()
	select {
	case <-w:
	default:
		t.Fatal("Close did not wake a waiter")
	}
}

// Followers of finished runs, of missing runs, and followers that stop
// early or are cancelled while waiting leave no entry in the notifier.
func TestFollowLeavesNoWaiters(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	for _, id := range []ID{"done", "live"} {
		if _, _, err := m.Create(ctx, Event{RunID: id, Payload: RunCreated{}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Append(ctx, "done", 1,
		Event{Payload: StatusChanged{From: StatusCreated, To: StatusRunning}},
		Event{Payload: StatusChanged{From: StatusRunning, To: StatusFailed, Reason: "test"}}); err != nil {
		t.Fatal(err)
	}
	// A finished run, followed to its end, several times.
	for range 3 {
		n := 0
		for _, err := range m.Events(ctx, "done", 1) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 3 {
			t.Fatalf("%d events, want 3", n)
		}
	}
	// A run that does not exist.
	for _, err := range m.Events(ctx, "missing", 1) {
		if !errors.Is(err, ErrRunNotFound) {
			t.Fatalf("following a missing run: %v", err)
		}
	}
	// A follower that breaks after the first event.
	for range m.Events(ctx, "live", 1) {
		break
	}
	// A follower cancelled while it waits for the next event.
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range m.Events(cctx, "live", 1) {
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for m.notify.waiting() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if got := m.notify.waiting(); got != 0 {
		t.Fatalf("the notifier holds waiters of %d runs after every follower returned", got)
	}
}

// Get and List return summaries whose tags the caller may change.
func TestMemoryStoreSummariesAreCopies(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	sum, _, err := m.Create(ctx, Event{RunID: "r", Payload: RunCreated{Tags: map[string]string{"k": "v"}}})
	if err != nil {
		t.Fatal(err)
	}
	sum.Tags["k"] = "changed by Create's caller"
	got, err := m.Get(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	got.Tags["k"] = "changed by Get's caller"
	list, _, err := m.List(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	list[0].Tags["k"] = "changed by List's caller"
	if again, _ := m.Get(ctx, "r"); again.Tags["k"] != "v" {
		t.Fatalf("the store's tags were changed through a summary: %v", again.Tags)
	}
	if list, _, _ := m.List(ctx, Query{Tags: map[string]string{"k": "v"}}); len(list) != 1 {
		t.Fatalf("listing by the tag finds %d runs, want 1", len(list))
	}
}

// FollowPoll sees appends that nobody notifies it of, and ends when the
// run does; followers that stop leave no entry in the notifier.
func TestFollowPoll(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	m := NewMemoryStore()
	if _, _, err := m.Create(ctx, Event{RunID: "r", Payload: RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	var quiet Notifier // m never notifies it: only the timer wakes followers
	seen := make(chan int64)
	done := make(chan error, 1)
	go func() {
		defer close(seen)
		for e, err := range FollowPoll(ctx, m, &quiet, "r", 1, time.Millisecond) {
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
		done <- ctx.Err()
	}()
	next := func(want int64) {
		t.Helper()
		if got, ok := <-seen; !ok || got != want {
			t.Fatalf("followed event %d (open %t), want %d", got, ok, want)
		}
	}
	next(1)
	if _, err := m.Append(ctx, "r", 1, Event{Payload: StatusChanged{From: StatusCreated, To: StatusRunning}}); err != nil {
		t.Fatal(err)
	}
	next(2)
	if _, err := m.Append(ctx, "r", 2, Event{Payload: StatusChanged{From: StatusRunning, To: StatusFailed, Reason: "test"}}); err != nil {
		t.Fatal(err)
	}
	next(3)
	if _, ok := <-seen; ok {
		t.Fatal("the follower yielded an event after the run's end")
	}
	if err := <-done; err != nil {
		t.Fatalf("the follower did not end with the run: %v", err)
	}

	// Followers that break, or are cancelled while they wait.
	if _, _, err := m.Create(ctx, Event{RunID: "live", Payload: RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	for range FollowPoll(ctx, m, &quiet, "live", 1, time.Millisecond) {
		break
	}
	cctx, cancelFollower := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for range FollowPoll(cctx, m, &quiet, "live", 1, time.Millisecond) {
		}
	}()
	for quiet.waiting() == 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	cancelFollower()
	<-stopped
	if got := quiet.waiting(); got != 0 {
		t.Fatalf("the notifier holds waiters of %d runs after every follower returned", got)
	}
}
