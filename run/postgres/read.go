package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/byref/byref/run"
	"github.com/jackc/pgx/v5"
)

// Read implements [run.Store.Read].
func (s *Store) Read(ctx context.Context, id run.ID, from int64, limit int) ([]run.Event, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var lim any // NULL: no limit
	if limit > 0 {
		lim = limit
	}
	var events []run.Event
	found := false
	err := s.retry(ctx, func() error {
		events, found = events[:0], false
		rows, err := s.pool.Query(ctx, s.sql(`SELECT e.data FROM {s}.runs r LEFT JOIN {s}.events e
			ON e.run = r.pk AND e.seq >= $2 WHERE r.id = $1 ORDER BY e.seq LIMIT $3::bigint`), id, from, lim)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			found = true
			data := rows.RawValues()[0]
			if data == nil {
				continue // the run, without events from `from`
			}
			var e run.Event
			if err := e.UnmarshalJSON(data); err != nil {
				return err
			}
			events = append(events, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: reading run %q: %w", id, err)
	}
	if !found {
		return nil, run.NotFound(id)
	}
	return events, nil
}

// Get implements [run.Store.Get].
func (s *Store) Get(ctx context.Context, id run.ID) (run.Summary, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.get(ctx, id)
}

// runColumns are the columns scanSummary reads, in order.
const runColumns = `pk, id, name, session, turn, parent_run, parent_tool_call, tags::text,
	status, reason, created_at, updated_at, last_seq`

// scanSummary reads a row of runColumns.
func scanSummary(row pgx.Row) (pk int64, sum run.Summary, err error) {
	var tags string
	var created, updated int64
	err = row.Scan(&pk, &sum.ID, &sum.Name, &sum.Session, &sum.Turn, &sum.ParentRun,
		&sum.ParentToolCall, &tags, &sum.Status, &sum.Reason, &created, &updated, &sum.LastSeq)
	if err != nil {
		return 0, sum, err
	}
	sum.CreatedAt = time.Unix(0, created).UTC()
	sum.UpdatedAt = time.Unix(0, updated).UTC()
	if tags != "{}" {
		if err := json.Unmarshal([]byte(tags), &sum.Tags); err != nil {
			return 0, sum, fmt.Errorf("tags of run %q: %w", sum.ID, err)
		}
	}
	return pk, sum, nil
}

// get reads a run's summary within ctx.
func (s *Store) get(ctx context.Context, id run.ID) (run.Summary, error) {
	var sum run.Summary
	err := s.retry(ctx, func() (err error) {
		_, sum, err = scanSummary(s.pool.QueryRow(ctx, s.sql(`SELECT `+runColumns+` FROM {s}.runs WHERE id = $1`), id))
		return err
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return sum, run.NotFound(id)
	case err != nil:
		return sum, fmt.Errorf("postgres: getting run %q: %w", id, err)
	}
	return sum, nil
}

// List implements [run.Store.List]. Tag filters are one containment test
// (tags @> {...}) on a GIN index; the cursor is the position of the last
// run of the page in creation order. It refuses a query with more than
// [run.MaxQueryTags] tag filters, as run/sqlite does.
func (s *Store) List(ctx context.Context, q run.Query) ([]run.Summary, string, error) {
	if len(q.Tags) > run.MaxQueryTags {
		return nil, "", fmt.Errorf("postgres: listing runs: the query has %d tag filters, and at most %d are allowed; filter by fewer tags", len(q.Tags), run.MaxQueryTags)
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var sb strings.Builder
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	sb.WriteString(`SELECT ` + runColumns + ` FROM {s}.runs WHERE true`)
	if len(q.Tags) > 0 {
		tags, err := json.Marshal(q.Tags)
		if err != nil {
			return nil, "", err
		}
		sb.WriteString(" AND tags @> " + arg(string(tags)) + "::text::jsonb")
	}
	if len(q.Statuses) > 0 {
		statuses := make([]string, len(q.Statuses))
		for i, st := range q.Statuses {
			statuses[i] = string(st)
		}
		sb.WriteString(" AND status = ANY(" + arg(statuses) + "::text[])")
	}
	if q.Session != "" {
		sb.WriteString(" AND session = " + arg(string(q.Session)))
	}
	if q.ParentRun != "" {
		sb.WriteString(" AND parent_run = " + arg(string(q.ParentRun)))
	}
	if !q.CreatedAfter.IsZero() {
		sb.WriteString(" AND created_at >= " + arg(q.CreatedAfter.UnixNano()))
	}
	if !q.CreatedBefore.IsZero() {
		sb.WriteString(" AND created_at < " + arg(q.CreatedBefore.UnixNano()))
	}
	if q.Cursor != "" {
		pk, err := strconv.ParseInt(q.Cursor, 10, 64)
		if err != nil || pk <= 0 {
			return nil, "", fmt.Errorf("%w: %q", run.ErrBadCursor, q.Cursor)
		}
		sb.WriteString(" AND pk < " + arg(pk))
	}
	limit := q.PageSize()
	sb.WriteString(" ORDER BY pk DESC LIMIT " + arg(limit+1))
	var runs []run.Summary
	var next string
	err := s.retry(ctx, func() error {
		runs, next = runs[:0], ""
		// Planned for each query's values (an unnamed statement): a cached
		// generic plan cannot tell a rare tag from a common one, and scanned
		// 100,000 runs for a page of 50.
		rows, err := s.pool.Query(ctx, s.sql(sb.String()), append([]any{pgx.QueryExecModeExec}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var lastPK int64
		for rows.Next() {
			pk, sum, err := scanSummary(rows)
			if err != nil {
				return err
			}
			if len(runs) == limit {
				next = strconv.FormatInt(lastPK, 10)
				break
			}
			runs = append(runs, sum)
			lastPK = pk
		}
		return rows.Err()
	})
	if err != nil {
		return nil, "", fmt.Errorf("postgres: listing runs: %w", err)
	}
	return runs, next, nil
}

// Events implements [run.Store.Events] with [run.Follow]: it is woken by
// the appends of every process sharing the schema (see the listener), and
// it waits out a lost database for up to Options.Outage.
func (s *Store) Events(ctx context.Context, id run.ID, from int64) iter.Seq2[run.Event, error] {
	return run.Follow(ctx, patient{s}, &s.notify, id, from)
}

// patient is the Store as a subscription reads it: its reads wait out a
// lost connection, retrying with backoff for up to Options.Outage.
type patient struct{ *Store }

// Read implements [run.Store.Read], waiting out a lost connection.
func (p patient) Read(ctx context.Context, id run.ID, from int64, limit int) ([]run.Event, error) {
	return waitOut(ctx, p.Store, func() ([]run.Event, error) { return p.Store.Read(ctx, id, from, limit) })
}

// Get implements [run.Store.Get], waiting out a lost connection.
func (p patient) Get(ctx context.Context, id run.ID) (run.Summary, error) {
	return waitOut(ctx, p.Store, func() (run.Summary, error) { return p.Store.Get(ctx, id) })
}

// waitOut calls fn until it succeeds, fails for another reason than a lost
// connection, the store closes, ctx is done or Options.Outage has passed
// since the first failure.
func waitOut[T any](ctx context.Context, s *Store, fn func() (T, error)) (T, error) {
	var since time.Time
	delay := 50 * time.Millisecond
	for {
		v, err := fn()
		if err == nil || !lostConnection(err) || s.closed.Load() || ctx.Err() != nil {
			return v, err
		}
		if since.IsZero() {
			since = time.Now()
		} else if time.Since(since) > s.outage {
			return v, err
		}
		if !sleep(ctx, delay) {
			return v, err
		}
		delay = min(2*delay, maxBackoff)
	}
}
