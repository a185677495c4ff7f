package agent

import (
	"bytes"
	"context"
	"iter"
	"sync"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

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

// PublishDeltas hands publish every live delta of the run from now on
// (each as Events yields it, Delta.After and Offset set), for as long as the handle
// lives, follow-ups included, besides the run's followers: a server in
// replicas publishes its runs' deltas through a run.LiveStore so that the
// replica that holds a client streams them. publish is called in the
// run's step, in order: it must not block (run.LiveStore.PublishDelta
// does not). A later call replaces publish.
func (h *Handle) PublishDeltas(publish func(run.Delta)) {
	l := h.hub()
	l.mu.Lock()
	l.out = publish
	l.mu.Unlock()
}

// publish hands a delta to the run's followers. It never blocks on a
// follower.
func (h *Handle) publish(d run.Delta) { h.hub().publish(d) }

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
