package agent

import (
	"sync"
	"time"

	"github.com/byref/byref/run"
)

// MaxLiveBuffer bounds the deltas (run.Delta) held for one follower of a
// run that has not taken them yet, in bytes of text. A follower that falls
// further behind loses the deltas it has not taken and, until the log's
// next event, the ones after: it reads the completed messages from the
// log instead. A run never waits for a follower.
const MaxLiveBuffer = 256 << 10

// liveCost is what a buffered delta counts for beyond its text.
const liveCost = 64

// hub delivers a run's deltas to the followers of its Events, beside the
// log. It keeps the deltas since the log's last event (up to
// MaxLiveBuffer), so that a follower that joins while a message is being
// written gets it from its beginning.
type hub struct {
	id run.ID

	mu   sync.Mutex
	seq  int64 // the log's last sequence number
	off  int64 // the Offset of the next delta after event seq
	subs map[*follower]struct{}
	// recent are the deltas since the log's last event; size their cost.
	// full says some were not kept.
	recent []run.Event
	size   int
	full   bool
	// out is also handed every delta (Handle.PublishDeltas); nil for
	// none.
	out func(run.Delta)
}

// follower is one iteration of Handle.Events: the deltas published for it
// and not yet taken, bounded by MaxLiveBuffer.
type follower struct {
	mu      sync.Mutex
	pending []run.Event
	size    int
	behind  bool // deltas were dropped; none are kept until the next log event
	wake    chan struct{}
}

func (l *hub) publish(d run.Delta) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d.After, d.Offset = l.seq, l.off
	l.off += d.Len()
	e := run.Event{RunID: l.id, Time: time.Now().UTC().Round(0), Payload: d}
	cost := len(d.Text) + liveCost
	if !l.full && l.size+cost <= MaxLiveBuffer {
		l.recent = append(l.recent, e)
		l.size += cost
	} else {
		l.full = true
	}
	for f := range l.subs {
		f.push(e, cost)
	}
	if l.out != nil {
		l.out(d)
	}
}

// stored is told of each batch appended to the log (under the recorder's
// lock): it moves the sequence number on, and a follower that fell behind
// takes deltas again.
func (l *hub) stored(evs []run.Event) {
	if len(evs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq, l.off = evs[len(evs)-1].Seq, 0
	clear(l.recent)
	l.recent, l.size, l.full = l.recent[:0], 0, false
	for f := range l.subs {
		f.mu.Lock()
		f.behind = false
		f.mu.Unlock()
		f.signal()
	}
}

// last returns the log's last sequence number.
func (l *hub) last() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

func (l *hub) subscribe() *follower {
	f := &follower{wake: make(chan struct{}, 1)}
	l.mu.Lock()
	l.subs[f] = struct{}{}
	// The message being written, from its beginning (or, when it was too
	// long to keep, none of it: the log will have it whole).
	if !l.full {
		f.pending = append(f.pending, l.recent...)
		f.size = l.size
	}
	l.mu.Unlock()
	return f
}

func (l *hub) unsubscribe(f *follower) {
	l.mu.Lock()
	delete(l.subs, f)
	l.mu.Unlock()
}

// push adds a delta, or drops it (and what is pending) when the follower
// is too far behind.
func (f *follower) push(e run.Event, cost int) {
	f.mu.Lock()
	switch {
	case f.behind:
	case f.size+cost > MaxLiveBuffer:
		clear(f.pending)
		f.pending, f.size, f.behind = f.pending[:0], 0, true
	default:
		f.pending = append(f.pending, e)
		f.size += cost
	}
	f.mu.Unlock()
	f.signal()
}

func (f *follower) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// take removes and returns the pending deltas that come before the log
// event with sequence number next (those produced after event next-1),
// dropping older ones, which the events read since replace. A follower
// more than joinAfter deltas behind gets consecutive pieces of the same
// thing (step, kind and call) joined into one: fewer, longer deltas.
func (f *follower) take(next int64) []run.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	var out []run.Event
	join := len(f.pending) > joinAfter
	for _, e := range f.pending {
		d := e.Payload.(run.Delta)
		if d.After >= next {
			break
		}
		n++
		f.size -= len(d.Text) + liveCost
		if d.After != next-1 {
			continue
		}
		if k := len(out) - 1; join && k >= 0 {
			if last := out[k].Payload.(run.Delta); last.Step == d.Step && last.What == d.What && last.CallID == d.CallID && d.Name == "" {
				last.Text += d.Text
				out[k].Payload = last
				continue
			}
		}
		out = append(out, e)
	}
	if n > 0 {
		rest := copy(f.pending, f.pending[n:])
		clear(f.pending[rest:])
		f.pending = f.pending[:rest]
	}
	return out
}

// joinAfter is how many pending deltas a follower may have before the
// pieces it takes are joined.
const joinAfter = 16

// followBatch is how many log events Events reads at a time.
const followBatch = 256
