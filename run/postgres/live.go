package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"iter"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/byref/byref/run"
)

// Live deltas between processes. The process that executes a run
// publishes its deltas (PublishDelta); they travel as notifications on the
// schema's channel of deltas, the schema's name and deltaSuffix, and the
// listener of every Store hands them to the run's followers there (Live).
//
//   - Bounded: a notification carries one delta of at most
//     maxDeltaPayload bytes of JSON; a longer delta is cut into several,
//     each a delta of the same step and kind whose texts add up to the
//     whole (pieces are what deltas are).
//   - Never slowing a run: PublishDelta queues, and one goroutine per
//     Store sends what is queued in one statement. A full queue drops the
//     run's deltas until its next event.
//   - Never a text with a hole: a follower takes a message's deltas from
//     its beginning (Delta.Offset 0) as long as each begins where the one
//     before it ended. One that joined after a message began, or misses a
//     delta of it (its buffer was full, the listening connection was
//     lost, the publisher's queue was), drops the message from there; it
//     reads the completed message from the log instead.

const (
	// deltaSuffix ends the name of the channel of deltas.
	deltaSuffix = "/d"
	// maxDeltaPayload bounds a notification of a delta, in bytes
	// (PostgreSQL refuses 8000 and more).
	maxDeltaPayload = 7000
	// maxPublishQueue bounds the notifications a Store has yet to send.
	maxPublishQueue = 4096
	// maxLiveDeltas bounds the deltas held for one follower.
	maxLiveDeltas = 1024
)

// envelope is a notification of a delta.
type envelope struct {
	Run run.ID `json:"r"`
	// From names the publishing Store: a message is one publisher's
	// deltas with the same After. (Its Offsets keep the payloads of a
	// statement apart: PostgreSQL folds equal notifications of one
	// transaction into one.)
	From  string    `json:"p"`
	Delta run.Delta `json:"d"`
}

// publisher is the Store's queue of deltas to send.
type publisher struct {
	mu      sync.Mutex
	id      string
	queue   []string
	sending int              // notifications in the statement being sent
	skip    map[run.ID]int64 // runs whose deltas are dropped up to this After
	wake    chan struct{}
	started bool
	closed  bool // by Store.Close: no publisher starts any more
}

// PublishDelta implements [run.LiveStore.PublishDelta]: it queues the
// delta for the Store's publisher goroutine and returns at once.
func (s *Store) PublishDelta(id run.ID, d run.Delta) {
	if s.closed.Load() {
		return
	}
	p := &s.pub
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if after, ok := p.skip[id]; ok {
		if d.After <= after {
			return
		}
		delete(p.skip, id)
	}
	if !p.started {
		p.started, p.wake, p.id = true, make(chan struct{}, 1), newPublisherID()
		s.wg.Add(1)
		go s.publish()
	}
	n := len(p.queue)
	p.queue = p.encode(p.queue, id, d)
	if len(p.queue) > maxPublishQueue {
		p.queue = p.queue[:n]
		if p.skip == nil || len(p.skip) > cacheSize {
			p.skip = map[run.ID]int64{}
		}
		p.skip[id] = d.After
		return
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// encode appends the payloads of a delta to dst, cutting its text until
// each fits maxDeltaPayload. A delta that cannot fit (a run ID of
// thousands of bytes) is dropped.
func (p *publisher) encode(dst []string, id run.ID, d run.Delta) []string {
	b, err := json.Marshal(envelope{Run: id, From: p.id, Delta: d})
	if err != nil {
		return dst
	}
	if len(b) <= maxDeltaPayload {
		return append(dst, string(b))
	}
	cut := len(d.Text) / 2
	for cut > 0 && !utf8.RuneStart(d.Text[cut]) {
		cut--
	}
	if cut == 0 {
		return dst
	}
	first, rest := d, d
	first.Text, rest.Text, rest.Name = d.Text[:cut], d.Text[cut:], "" // the name is on the first piece
	rest.Offset = d.Offset + first.Len()
	return p.encode(p.encode(dst, id, first), id, rest)
}

// newPublisherID names a Store among the publishers of deltas.
func newPublisherID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// publish sends the queued deltas, all that are queued in one statement,
// until the Store closes.
func (s *Store) publish() {
	defer s.wg.Done()
	p := &s.pub
	for {
		select {
		case <-p.wake:
		case <-s.bg.Done():
			return
		}
		for {
			p.mu.Lock()
			batch := p.queue
			p.queue, p.sending = nil, len(batch)
			p.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			ctx, cancel := s.bound(s.bg)
			_, err := s.pool.Exec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, s.schema+deltaSuffix, batch)
			cancel()
			p.mu.Lock()
			p.sending = 0
			p.mu.Unlock()
			if err != nil && s.bg.Err() == nil {
				// Followers see the hole in the Offsets.
				s.log.Warn("postgres: dropped live deltas", "count", len(batch), "err", err)
			}
		}
	}
}

// deltas are a Store's followers of live deltas, by run.
type deltas struct {
	mu   sync.Mutex
	subs map[run.ID]map[*liveSub]struct{}
}

// liveSub is one follower's queue of deltas. Its fields but ch are
// guarded by deltas.mu: the listener drops there what the follower must
// not see, in the order the deltas were sent.
type liveSub struct {
	ch chan run.Delta
	// The message the follower is taking (its publisher and After) and
	// the Offset of its next delta; or, when cut, the message whose rest
	// is dropped. after is -1 before the first delta.
	from       string
	after, off int64
	cut        bool
}

func (l *deltas) subscribe(id run.ID) *liveSub {
	sub := &liveSub{ch: make(chan run.Delta, maxLiveDeltas), after: -1}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.subs == nil {
		l.subs = map[run.ID]map[*liveSub]struct{}{}
	}
	if l.subs[id] == nil {
		l.subs[id] = map[*liveSub]struct{}{}
	}
	l.subs[id][sub] = struct{}{}
	return sub
}

func (l *deltas) unsubscribe(id run.ID, sub *liveSub) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.subs[id], sub)
	if len(l.subs[id]) == 0 {
		delete(l.subs, id)
	}
}

// received hands a notification of a delta to the run's followers that
// have its message without a hole up to it.
func (l *deltas) received(payload string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.subs) == 0 {
		return // nobody follows: not even worth decoding
	}
	var env envelope
	if err := json.Unmarshal([]byte(payload), &env); err != nil {
		return
	}
	d := env.Delta
	for sub := range l.subs[env.Run] {
		if env.From != sub.from || d.After != sub.after {
			// The next message: taken if this is its beginning.
			sub.from, sub.after, sub.off, sub.cut = env.From, d.After, 0, false
		}
		if sub.cut || d.Offset != sub.off {
			sub.cut = true // joined mid-message, or a delta was lost
			continue
		}
		select {
		case sub.ch <- d:
			sub.off += d.Len()
		default: // the follower is behind: the rest of this message is lost
			sub.cut = true
		}
	}
}

// closeAll drops every follower's subscription (their Live ends with the
// Store's reads).
func (l *deltas) closeAll() {
	l.mu.Lock()
	l.subs = nil
	l.mu.Unlock()
}

// Live implements [run.LiveStore.Live]: [Store.Events] with the deltas
// that any process published (PublishDelta) between the events, each
// after the event it follows (Delta.After). It yields the deltas of every
// message whose beginning (Offset 0) it received, from the moment it
// subscribed, which is before it reads the log: the first message of a
// run followed before it began streaming comes whole. A message whose
// beginning it missed is dropped, and one whose deltas do not follow each
// other (some were lost on the way: see the notes above) is cut where
// they were lost. A delta's Time is when this process received it.
func (s *Store) Live(ctx context.Context, id run.ID, from int64) iter.Seq2[run.Event, error] {
	return func(yield func(run.Event, error) bool) {
		sub := s.live.subscribe(id)
		defer s.live.unsubscribe(id, sub)
		// Subscribed before the log is read; an unknown run is an error.
		if _, err := (patient{s}).Get(ctx, id); err != nil {
			if ctx.Err() == nil {
				yield(run.Event{}, err)
			}
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		type next struct {
			e   run.Event
			err error
		}
		events, done := make(chan next), make(chan struct{})
		go func() {
			defer close(done)
			defer close(events)
			for e, err := range s.Events(ctx, id, from) {
				select {
				case events <- next{e, err}:
				case <-ctx.Done():
					return
				}
			}
		}()
		defer func() { cancel(); <-done }()

		pos := max(from, 1) - 1 // the last event yielded
		var held []run.Delta    // deltas after events not yet yielded
		var dropThrough int64   // held overflowed: drop the message's rest
		delta := func(d run.Delta) bool {
			return yield(run.Event{RunID: id, Time: time.Now().UTC().Round(0), Payload: d}, nil)
		}
		for {
			select {
			case n, ok := <-events:
				if !ok {
					return
				}
				if n.err != nil {
					yield(run.Event{}, n.err)
					return
				}
				if !yield(n.e, nil) {
					return
				}
				pos = n.e.Seq
				keep := held[:0]
				for _, d := range held {
					switch {
					case d.After == pos:
						if !delta(d) {
							return
						}
					case d.After > pos:
						keep = append(keep, d)
					}
				}
				held = keep
			case d := <-sub.ch:
				switch {
				case d.After < pos || d.After <= dropThrough: // in the log already; or cut
				case d.After == pos:
					if !delta(d) {
						return
					}
				case len(held) < maxLiveDeltas:
					held = append(held, d)
				default:
					dropThrough = d.After
				}
			}
		}
	}
}
