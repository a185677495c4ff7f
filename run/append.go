package run

import (
	"fmt"
	"time"
)

// PrepareCreate checks the first event of a new run for [Store.Create] and
// returns it numbered (Seq 1) and timestamped (now when its Time is zero,
// in UTC without a monotonic reading), with the run's initial summary.
// It is for Store implementations, so that every store checks alike.
func PrepareCreate(e Event, now time.Time) (Event, Summary, error) {
	c, ok := e.Payload.(RunCreated)
	switch {
	case e.RunID == "":
		return Event{}, Summary{}, fmt.Errorf("%w: a run needs an ID (use run.NewID)", ErrInvalidEvent)
	case !ok:
		return Event{}, Summary{}, fmt.Errorf("%w: a run's first event must be run_created, not %q", ErrInvalidEvent, e.Type())
	case e.Seq != 0 && e.Seq != 1:
		return Event{}, Summary{}, fmt.Errorf("%w: run_created has sequence number 1, not %d", ErrInvalidEvent, e.Seq)
	}
	e.Seq = 1
	e.Time = stamp(e.Time, now)
	return e, Summary{
		ID: e.RunID, Name: c.Name, Session: c.Session, Turn: c.Turn,
		ParentRun: c.ParentRun, ParentToolCall: c.ParentToolCall, Tags: c.Tags,
		Status: StatusCreated, CreatedAt: e.Time, UpdatedAt: e.Time, LastSeq: 1,
	}, nil
}

// PrepareAppend checks events for [Store.Append] against the run's current
// summary and the caller's expected last sequence number, and appends them
// to dst numbered, attributed to the run and timestamped (now when zero, in
// UTC without a monotonic reading). It returns the extended dst and the
// run's summary after them; on error it returns dst unchanged, the summary
// unchanged and an error as documented by Append. It is for Store
// implementations, so that every store checks alike.
func PrepareAppend(dst []Event, s Summary, last int64, events []Event, now time.Time) ([]Event, Summary, error) {
	if last != s.LastSeq {
		return dst, s, &ConflictError{RunID: s.ID, Expected: last, Actual: s.LastSeq}
	}
	if s.Status.Final() {
		return dst, s, fmt.Errorf("%w: %s is %s; no event can be appended", ErrFinished, s.ID, s.Status)
	}
	n := len(dst)
	next := s
	for i, e := range events {
		if err := check(next, e, i); err != nil {
			return dst[:n], s, err
		}
		e.RunID = s.ID
		e.Seq = next.LastSeq + 1
		e.Time = stamp(e.Time, now)
		if sc, ok := e.Payload.(StatusChanged); ok {
			next.Status, next.Reason = sc.To, sc.Reason
		}
		next.LastSeq = e.Seq
		next.UpdatedAt = e.Time
		dst = append(dst, e)
	}
	return dst, next, nil
}

// check checks the i-th event of a batch against the run as it stands.
func check(s Summary, e Event, i int) error {
	if e.RunID != "" && e.RunID != s.ID {
		return fmt.Errorf("%w: event %d of the batch belongs to run %q, not %q", ErrInvalidEvent, i, e.RunID, s.ID)
	}
	switch p := e.Payload.(type) {
	case nil:
		return fmt.Errorf("%w: event %d of the batch has no payload", ErrInvalidEvent, i)
	case RunCreated:
		return fmt.Errorf("%w: event %d of the batch is run_created; use Create", ErrInvalidEvent, i)
	case Unknown:
		return fmt.Errorf("%w: event %d of the batch has unknown type %q", ErrInvalidEvent, i, p.Type)
	case Delta:
		return fmt.Errorf("%w: event %d of the batch is a delta, which is live-only: the log keeps the completed message", ErrInvalidEvent, i)
	case StatusChanged:
		if s.Status.Final() {
			return fmt.Errorf("%w: %s is %s; event %d of the batch cannot follow", ErrFinished, s.ID, s.Status, i)
		}
		if p.From != s.Status {
			return fmt.Errorf("%w: event %d of the batch moves from %s but %s is %s",
				ErrInvalidEvent, i, p.From, s.ID, s.Status)
		}
		return Transition(p.From, p.To)
	}
	if s.Status.Final() {
		return fmt.Errorf("%w: %s is %s; event %d of the batch cannot follow", ErrFinished, s.ID, s.Status, i)
	}
	return nil
}

// stamp returns t, or now when t is zero, in UTC without a monotonic reading.
func stamp(t, now time.Time) time.Time {
	if t.IsZero() {
		t = now
	}
	return t.Round(0).UTC()
}
