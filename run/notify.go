package run

import (
	"context"
	"iter"
	"sync"
)

// Notifier wakes the followers of runs when events are appended. Stores use
// it with [Follow] to implement [Store.Events] within one process. The zero
// Notifier is ready to use; it must not be copied after first use.
type Notifier struct {
	mu    sync.Mutex
	waits map[ID]chan struct{}
}

// Wait returns a channel that is closed by the next Notify of the run.
func (n *Notifier) Wait(id ID) <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch, ok := n.waits[id]
	if !ok {
		if n.waits == nil {
			n.waits = make(map[ID]chan struct{})
		}
		ch = make(chan struct{})
		n.waits[id] = ch
	}
	return ch
}

// Notify wakes every waiter of the run. Stores call it after an append has
// become visible to Read.
func (n *Notifier) Notify(id ID) {
	n.mu.Lock()
	ch, ok := n.waits[id]
	if ok {
		delete(n.waits, id)
	}
	n.mu.Unlock()
	if ok {
		close(ch)
	}
}

// followBatch is how many events Follow reads at a time.
const followBatch = 256

// Follow implements [Store.Events] over a store's Read and Get and a
// Notifier the store notifies after each append. Before each Read it takes
// the notifier's channel, so an append that Read missed wakes it: no event
// is missed, and reading by sequence number means none is yielded twice.
func Follow(ctx context.Context, s Store, n *Notifier, id ID, from int64) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		from := max(from, 1)
		for {
			wake := n.Wait(id)
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
			select {
			case <-wake:
			case <-ctx.Done():
				return
			}
		}
	}
}
