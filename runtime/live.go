package runtime

import (
	"bytes"
	"context"
	"iter"
	"sync"
	"time"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
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
	subs map[*follower]struct{}
	// recent are the deltas since the log's last event; size their cost.
	// full says some were not kept.
	recent []run.Event
	size   int
	full   bool
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

// hub returns the run's hub, making it (and hooking it to the recorder)
// on first use.
func (h *Handle) hub() *hub {
	if l := h.liveHub.Load(); l != nil {
		return l
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if l := h.liveHub.Load(); l != nil {
		return l
	}
	l := &hub{id: h.id, subs: map[*follower]struct{}{}}
	h.rec.mu.Lock()
	l.seq = h.rec.last
	prev := h.rec.tap
	h.rec.tap = func(evs []run.Event) {
		if prev != nil {
			prev(evs)
		}
		l.stored(evs)
	}
	h.rec.mu.Unlock()
	h.liveHub.Store(l)
	return l
}

// publish hands a delta to the run's followers. It never blocks on a
// follower.
func (h *Handle) publish(d run.Delta) { h.hub().publish(d) }

func (l *hub) publish(d run.Delta) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d.After = l.seq
	e := run.Event{RunID: l.id, Time: time.Now().UTC().Round(0), Data: d}
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
	l.seq = evs[len(evs)-1].Seq
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
		d := e.Data.(run.Delta)
		if d.After >= next {
			break
		}
		n++
		f.size -= len(d.Text) + liveCost
		if d.After != next-1 {
			continue
		}
		if k := len(out) - 1; join && k >= 0 {
			if last := out[k].Data.(run.Delta); last.Step == d.Step && last.What == d.What && last.CallID == d.CallID && d.Name == "" {
				last.Text += d.Text
				out[k].Data = last
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

// Events yields the run's events from sequence number from (1 for all):
// those stored, then live ones as they are appended, until the run ends or
// ctx is done. Interleaved with them, in order, come the run's live
// deltas (run.Delta, sequence number 0): each after the log event it
// follows and before the next. A follower that joins late reads the
// completed messages from the log, then the deltas from then on, starting
// with those of the message being written when it joined. One that falls
// behind by more than MaxLiveBuffer loses deltas (never log events) until
// the log's next event, which holds the completed message. The run never
// waits for a follower.
func (h *Handle) Events(ctx context.Context, from int64) iter.Seq2[run.Event, error] {
	return func(yield func(run.Event, error) bool) {
		l := h.hub()
		f := l.subscribe()
		defer l.unsubscribe(f)
		next := max(from, 1)
		read := true // the first read catches up with the log
		for {
			var evs []run.Event
			if read || l.last() >= next {
				// (A wake for a delta alone reads nothing.)
				read = false
				var err error
				evs, err = h.rec.store.Read(ctx, h.id, next, followBatch)
				if err != nil {
					if ctx.Err() == nil {
						yield(run.Event{}, err)
					}
					return
				}
			}
			for _, e := range evs {
				for _, d := range f.take(e.Seq) {
					if !yield(d, nil) {
						return
					}
				}
				if !yield(e, nil) {
					return
				}
				next = e.Seq + 1
			}
			if len(evs) == followBatch {
				read = true
				continue
			}
			for _, d := range f.take(next) {
				if !yield(d, nil) {
					return
				}
			}
			if h.rec.ended(next) {
				return
			}
			select {
			case <-f.wake:
			case <-ctx.Done():
				return
			}
		}
	}
}

// ended reports whether the run has reached a terminal status with every
// event before next read.
func (r *recorder) ended(next int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status.Terminal() && r.last < next
}

// generate is the step's model call: streamed when the model streams,
// with each piece published as a delta of the step.
func (h *Handle) generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	s, ok := h.model.(llm.Streamer)
	if !ok {
		return h.model.Generate(ctx, req)
	}
	step := h.st.Steps() + 1
	callID := ""
	return s.Stream(ctx, req, func(c llm.Chunk) error {
		if c.Reasoning != "" {
			h.publish(run.Delta{Step: step, What: run.DeltaReasoning, Text: c.Reasoning})
		}
		if c.Text != "" {
			h.publish(run.Delta{Step: step, What: run.DeltaText, Text: c.Text})
		}
		if tc := c.ToolCall; tc != nil {
			if tc.Name != "" {
				callID = tc.ID
			}
			if tc.Name != "" || tc.Arguments != "" {
				h.publish(run.Delta{Step: step, What: run.DeltaToolCall, CallID: callID, Name: tc.Name, Text: tc.Arguments})
			}
		}
		return nil
	})
}

// lineWriter publishes a snippet's output line by line as deltas; the
// last line, without its newline, when the snippet ends (flush). It
// redacts secrets' values with the redactor of when the snippet started.
type lineWriter struct {
	h      *Handle
	step   int
	callID string
	red    *variable.Redactor
	mu     sync.Mutex
	line   []byte
}

// maxLine cuts a line that never ends.
const maxLine = 4 << 10

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.line = append(w.line, p...)
			if len(w.line) >= maxLine {
				w.emit()
			}
			break
		}
		w.line = append(w.line, p[:i+1]...)
		p = p[i+1:]
		w.emit()
	}
	return n, nil
}

// flush publishes what is left of the last line.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.line) > 0 {
		w.emit()
	}
}

func (w *lineWriter) emit() {
	text := string(w.line)
	w.line = w.line[:0]
	if w.red != nil {
		text = w.red.Redact(text)
	}
	w.h.publish(run.Delta{Step: w.step, What: run.DeltaOutput, CallID: w.callID, Text: text})
}
