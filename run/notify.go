package run

import (
	"context"
	"iter"
	"sync"
	"time"
)

// Notifier wakes the followers of runs when events are appended. Stores use
// it with [Follow] to implement [Store.Events] within one process. The zero
// Notifier is ready to use; it must not be copied after first use.
//
// It holds an entry only for a run that has a waiter: the entry goes when
// the run is notified or its last waiter releases its wait.
type Notifier struct {
	mu     sync.Mutex
	waits  map[ID]*waiters
	closed bool
}

// waiters are the waiters of one run's next Notify.
type waiters struct {
	ch chan struct{}
	n  int // waits not yet released
}

// closedCh is what Wait returns after Close.
var closedCh = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// Wait returns a channel that is closed by the next Notify of the run (or
// by Close), and release, which the waiter must call once it no longer
// waits on the channel (calling it more than once is harmless). A run's
// entry is removed when it is notified or when its last waiter releases,
// so that followers that stop waiting leave nothing behind.
func (n *Notifier) Wait(id ID) (wake <-chan struct{}, release func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return closedCh, func() {}
	}
	w, ok := n.waits[id]
	if !ok {
		if n.waits == nil {
			n.waits = make(map[ID]*waiters)
		}
		w = &waiters{ch: make(chan struct{})}
		n.waits[id] = w
	}
	w.n++
	var once sync.Once
	return w.ch, func() {
		once.Do(func() {
			n.mu.Lock()
			defer n.mu.Unlock()
			if n.waits[id] != w {
				return // notified (or closed) meanwhile: the entry is gone
			}
			if w.n--; w.n == 0 {
				delete(n.waits, id)
			}
		})
	}
}

// Notify wakes every waiter of the run. Stores call it after an append has
// become visible to Read.
func (n *Notifier) Notify(id ID) {
	n.mu.Lock()
	w, ok := n.waits[id]
	if ok {
		delete(n.waits, id)
	}
	n.mu.Unlock()
	if ok {
		close(w.ch)
	}
}

// NotifyAll wakes every waiter of every run, as if each run had been
// notified. A store calls it when it may have missed notifications, such
// as after its connection to the notifications of other processes was
// lost and restored: woken followers read again, and find what they
// missed.
func (n *Notifier) NotifyAll() { n.wakeAll(false) }

// Close wakes every waiter of every run, and makes every later Wait return
// a closed channel: a store calls it when it closes, so that its followers
// wake, fail to read and end.
func (n *Notifier) Close() { n.wakeAll(true) }

// wakeAll wakes every waiter and, when closing, makes later Waits return
// a closed channel.
func (n *Notifier) wakeAll(closing bool) {
	n.mu.Lock()
	waits := n.waits
	n.waits = nil
	n.closed = n.closed || closing
	n.mu.Unlock()
	for _, w := range waits {
		close(w.ch)
	}
}

// waiting returns how many runs have waiters (for tests).
func (n *Notifier) waiting() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.waits)
}

// followBatch is how many events Follow reads at a time.
const followBatch = 256

// Follow implements [Store.Events] over a store's Read and Get and a
// Notifier the store notifies after each append. Before each Read it takes
// the notifier's channel, so an append that Read missed wakes it: no event
// is missed, and reading by sequence number means none is yielded twice.
// It releases the channel before taking the next and when it returns, so
// a follower leaves no entry in the notifier, however it ends.
func Follow(ctx context.Context, s Store, n *Notifier, id ID, from int64) iter.Seq2[Event, error] {
	return FollowPoll(ctx, s, n, id, from, 0)
}

// FollowPoll is [Follow] for a store that others append to without
// notifying n, such as other processes sharing its file: while it waits,
// it also wakes every poll to read again. A poll of zero or less is Follow:
// only n wakes it. It waits on one timer, reset for each wait and stopped
// when it returns.
func FollowPoll(ctx context.Context, s Store, n *Notifier, id ID, from int64, poll time.Duration) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		from := max(from, 1)
		release := func() {}
		defer func() { release() }()
		var timer *time.Timer // made by the first wait that polls
		defer func() {
			if timer != nil {
				timer.Stop()
			}
		}()
		for {
			release()
			var wake <-chan struct{}
			wake, release = n.Wait(id)
			events, err := s.Read(ctx, id, from, followBatch)
			if err != nil {
				if ctx.Err() == nil {
					yield(Event{}, err)
				}
				return
			}
			for _, e := range events {
				if !yield(e, nil) {
					return
				}
				from = e.Seq + 1
			}
			if len(events) == followBatch {
				continue
			}
			sum, err := s.Get(ctx, id)
			if err != nil {
				if ctx.Err() == nil {
					yield(Event{}, err)
				}
				return
			}
			if sum.LastSeq >= from {
				continue // appended since the Read
			}
			if sum.Status.Terminal() {
				return
			}
			var tick <-chan time.Time // nil, so never ready, unless polling
			if poll > 0 {
				if timer == nil {
					timer = time.NewTimer(poll)
				} else {
					timer.Reset(poll) // drops a tick of an earlier wait
				}
				tick = timer.C
			}
			select {
			case <-wake:
			case <-tick:
			case <-ctx.Done():
				return
			}
		}
	}
}
