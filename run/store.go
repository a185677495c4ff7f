package run

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"
)

// Store keeps the logs of runs. [NewMemoryStore] is the in-memory one,
// package run/sqlite the embedded durable one and package run/postgres the
// one several processes share; all pass run/storetest.
//
// # Who calls what
//
// The runtime creates a run (Create) and is the only writer of its log
// (Append), one batch per step. Servers and inspectors read: Get, List,
// Read, and Events to follow a run live.
//
// # Guarantees
//
// All methods are safe for concurrent use. A run's log is append-only:
// sequence numbers start at 1 (the [RunCreated] event), have no gaps, and
// an event, once Append returned, never changes. An Append is atomic: all of
// its events are stored or none. Stores check every [StatusChanged] against
// the run's current status and [CanTransition], so a stored log always has a
// legal lifecycle.
//
// Events hold their payloads by value, but payload slices and maps are
// shared between the appender, the store and readers (by the memory store):
// nobody may modify them after Append.
type Store interface {
	// Create records a new run whose first event (sequence number 1) is
	// e, and returns its summary with created true. e.RunID is required
	// (a client-supplied ID, or [NewID]), e.Payload must be a [RunCreated],
	// and e.Seq must be 0 or 1. If a run with that ID exists, Create
	// changes nothing and returns the existing run's summary with created
	// false and a nil error, whatever e holds: creation is idempotent.
	Create(ctx context.Context, e Event) (s Summary, created bool, err error)

	// Append adds events to the end of a run's log in one atomic write and
	// returns the new last sequence number. last is the sequence number of
	// the last event the caller knows of; the events get last+1, last+2, …
	// (their Seq fields are ignored), the run's ID (their RunID must be
	// empty or equal) and, when zero, the store's time. If the log has
	// moved on, or last is beyond its end, Append stores nothing and returns
	// a [*ConflictError]. It returns an error wrapping [ErrRunNotFound],
	// [ErrFinished] (the run is failed or canceled), [ErrIllegalTransition]
	// or [ErrInvalidEvent] (no payload, a RunCreated, a foreign RunID, a
	// StatusChanged whose From is not the current status).
	Append(ctx context.Context, id ID, last int64, events ...Event) (int64, error)

	// Read returns the run's events with Seq >= from, in order, at most
	// limit of them (all when limit <= 0). To continue after the last event
	// seen, pass its Seq+1. A from past the end returns no events and no
	// error.
	Read(ctx context.Context, id ID, from int64, limit int) ([]Event, error)

	// Get returns the run's summary.
	Get(ctx context.Context, id ID) (Summary, error)

	// List returns the runs matching q, newest (latest created) first, at
	// most q.Limit of them, and a cursor for the next page: "" when there
	// is none.
	List(ctx context.Context, q Query) (runs []Summary, next string, err error)

	// Events follows a run's log: it yields the events with Seq >= from
	// that are stored, then the events appended later, in order, each
	// exactly once and without gaps. The subscription starts when the
	// iteration starts (not when Events is called): an event whose Append
	// returned before that is among the stored ones, and any later one is
	// yielded live, whatever the interleaving.
	//
	// The iteration ends when the loop breaks, when ctx is done (silently:
	// check ctx.Err()), when an error is yielded (ErrRunNotFound, a store
	// failure), or when the run's status is terminal and every event up to
	// then has been yielded. A follow-up that reopens a completed run needs
	// a new subscription.
	Events(ctx context.Context, id ID, from int64) iter.Seq2[Event, error]
}

// Summary is a run as listings show it: its identity and where it stands,
// without folding its log. Use [LoadSnapshot] for the whole state.
type Summary struct {
	ID             ID                `json:"id"`
	Name           string            `json:"name,omitempty"`
	Session        SessionID         `json:"session,omitempty"`
	Turn           TurnID            `json:"turn,omitempty"`
	ParentRun      ID                `json:"parent_run,omitempty"`
	ParentToolCall string            `json:"parent_tool_call,omitempty"`
	Tags           map[string]string `json:"tags,omitempty"`
	Status         Status            `json:"status"`
	// Reason is the reason of the latest status change.
	Reason    string    `json:"reason,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// LastSeq is the sequence number of the latest event.
	LastSeq int64 `json:"last_seq"`
}

// Query selects runs for [Store.List]. Its zero value lists every run, a
// page of [DefaultListLimit].
type Query struct {
	// Statuses keeps runs in any of these statuses; empty for all.
	Statuses []Status
	// Tags keeps runs that have every one of these tags with these values:
	// at most MaxQueryTags of them (run/sqlite refuses more, since each is
	// a join).
	Tags map[string]string
	// Session keeps the runs of one session; "" for all.
	Session SessionID
	// ParentRun keeps the children of one run; "" for all.
	ParentRun ID
	// CreatedAfter and CreatedBefore keep runs created at or after, and
	// before, these times; zero for no bound.
	CreatedAfter, CreatedBefore time.Time
	// Limit is the page size: DefaultListLimit when <= 0, at most
	// MaxListLimit.
	Limit int
	// Cursor continues a listing where the previous page ended: pass the
	// next value List returned, with the same filters.
	Cursor string
}

// Page sizes of [Store.List].
const (
	DefaultListLimit = 50
	MaxListLimit     = 1000
)

// MaxQueryTags is the most tag filters a [Query] may hold.
const MaxQueryTags = 16

// PageSize returns the effective page size of q.
func (q Query) PageSize() int {
	switch {
	case q.Limit <= 0:
		return DefaultListLimit
	case q.Limit > MaxListLimit:
		return MaxListLimit
	}
	return q.Limit
}

// Match reports whether a summary passes q's filters (not its cursor).
// Stores may use it to filter.
func (q Query) Match(s Summary) bool {
	if len(q.Statuses) > 0 && !containsStatus(q.Statuses, s.Status) {
		return false
	}
	if q.Session != "" && s.Session != q.Session {
		return false
	}
	if q.ParentRun != "" && s.ParentRun != q.ParentRun {
		return false
	}
	if !q.CreatedAfter.IsZero() && s.CreatedAt.Before(q.CreatedAfter) {
		return false
	}
	if !q.CreatedBefore.IsZero() && !s.CreatedAt.Before(q.CreatedBefore) {
		return false
	}
	for k, v := range q.Tags {
		if got, ok := s.Tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func containsStatus(list []Status, s Status) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Conditions of store errors; test them with errors.Is.
var (
	// ErrRunNotFound: no run has the ID.
	ErrRunNotFound = errors.New("run: not found")
	// ErrConflict: an Append expected another end of the log; see
	// [*ConflictError].
	ErrConflict = errors.New("run: conflicting append")
	// ErrFinished: the run is failed or canceled and its log is closed.
	ErrFinished = errors.New("run: run is finished")
	// ErrBadCursor: a List cursor this store did not hand out.
	ErrBadCursor = errors.New("run: bad list cursor")
)

// ConflictError is an Append whose expected last sequence number was not
// the log's.
type ConflictError struct {
	RunID ID
	// Expected is the last sequence number the appender passed; Actual
	// the log's.
	Expected, Actual int64
}

// Error says what the log holds and how to recover.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("run: conflicting append to %s: expected last event %d, the log ends at %d; "+
		"read the events after %d and retry", e.RunID, e.Expected, e.Actual, e.Expected)
}

// Unwrap returns [ErrConflict].
func (e *ConflictError) Unwrap() error { return ErrConflict }

// NotFound returns an error wrapping [ErrRunNotFound] that names the run.
// Stores use it so that every store words the condition alike.
func NotFound(id ID) error {
	return fmt.Errorf("%w: no run %q", ErrRunNotFound, id)
}

// LoadSnapshot reads a run's whole log and folds it.
func LoadSnapshot(ctx context.Context, s Store, id ID) (Snapshot, error) {
	events, err := s.Read(ctx, id, 1, 0)
	if err != nil {
		return Snapshot{}, err
	}
	return Fold(events), nil
}
