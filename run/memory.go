package run

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"strconv"
	"sync"
	"time"
)

// MemoryStore is a [Store] that keeps runs in memory, for tests, examples
// and programs whose runs need not survive them. Create one with
// [NewMemoryStore]. It keeps every event of every run until it is garbage.
type MemoryStore struct {
	mu     sync.RWMutex
	runs   map[ID]*memRun
	order  []*memRun // creation order
	notify Notifier
	now    func() time.Time
	// records are the records kept beside the runs (see Records).
	records map[recordKey]Record
}

type memRun struct {
	sum    Summary
	events []Event
	index  int // position in order
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty memory store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{runs: make(map[ID]*memRun), now: time.Now}
}

// Create implements [Store.Create].
func (m *MemoryStore) Create(ctx context.Context, e Event) (Summary, bool, error) {
	if err := ctx.Err(); err != nil {
		return Summary{}, false, err
	}
	m.mu.Lock()
	if r, ok := m.runs[e.RunID]; ok {
		sum := r.sum.clone()
		m.mu.Unlock()
		return sum, false, nil
	}
	e, sum, err := PrepareCreate(e, m.now())
	if err != nil {
		m.mu.Unlock()
		return Summary{}, false, err
	}
	r := &memRun{sum: sum, events: []Event{e}, index: len(m.order)}
	m.runs[e.RunID] = r
	m.order = append(m.order, r)
	m.mu.Unlock()
	m.notify.Notify(e.RunID)
	return sum.clone(), true, nil
}

// Append implements [Store.Append].
func (m *MemoryStore) Append(ctx context.Context, id ID, last int64, events ...Event) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	r, ok := m.runs[id]
	if !ok {
		m.mu.Unlock()
		return 0, NotFound(id)
	}
	var err error
	r.events, r.sum, err = PrepareAppend(r.events, r.sum, last, events, m.now())
	seq := r.sum.LastSeq
	m.mu.Unlock()
	if err != nil {
		return 0, err
	}
	m.notify.Notify(id)
	return seq, nil
}

// Read implements [Store.Read].
func (m *MemoryStore) Read(ctx context.Context, id ID, from int64, limit int) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.runs[id]
	if !ok {
		return nil, NotFound(id)
	}
	from = max(from, 1)
	if from > int64(len(r.events)) {
		return nil, nil
	}
	events := r.events[from-1:]
	if limit > 0 && len(events) > limit {
		events = events[:limit]
	}
	return append([]Event(nil), events...), nil
}

// Get implements [Store.Get].
func (m *MemoryStore) Get(ctx context.Context, id ID) (Summary, error) {
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.runs[id]
	if !ok {
		return Summary{}, NotFound(id)
	}
	return r.sum.clone(), nil
}

// List implements [Store.List]. It scans every run: it is meant for
// thousands of runs, not millions. Its cursor is the creation index of the
// last run of the page.
func (m *MemoryStore) List(ctx context.Context, q Query) ([]Summary, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	start := len(m.order) - 1
	if q.Cursor != "" {
		i, err := strconv.Atoi(q.Cursor)
		if err != nil || i < 0 || i > len(m.order) {
			return nil, "", fmt.Errorf("%w: %q", ErrBadCursor, q.Cursor)
		}
		start = i - 1
	}
	limit := q.PageSize()
	var runs []Summary
	for i := start; i >= 0; i-- {
		r := m.order[i]
		if !q.Match(r.sum) {
			continue
		}
		if len(runs) == limit {
			return runs, strconv.Itoa(r.index + 1), nil
		}
		runs = append(runs, r.sum.clone())
	}
	return runs, "", nil
}

// clone returns the summary with its own copy of the tags, so that the
// caller may change them without changing the store's.
func (s Summary) clone() Summary {
	s.Tags = maps.Clone(s.Tags)
	return s
}

// Events implements [Store.Events] with [Follow].
func (m *MemoryStore) Events(ctx context.Context, id ID, from int64) iter.Seq2[Event, error] {
	return Follow(ctx, m, &m.notify, id, from)
}
