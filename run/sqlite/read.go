package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/byref/byref/run"
)

// Read implements [run.Store.Read].
func (s *Store) Read(ctx context.Context, id run.ID, from int64, limit int) ([]run.Event, error) {
	if limit <= 0 {
		limit = -1 // no limit in SQLite
	}
	rows, err := s.r.QueryContext(ctx, `SELECT e.data FROM runs r LEFT JOIN events e
		ON e.run = r.pk AND e.seq >= ? WHERE r.id = ? ORDER BY e.seq LIMIT ?`, from, id, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading run %q: %w", id, err)
	}
	defer rows.Close()
	var events []run.Event
	found := false
	for rows.Next() {
		found = true
		var data *string
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("sqlite: reading run %q: %w", id, err)
		}
		if data == nil {
			continue // the run, without events from `from`
		}
		var e run.Event
		if err := e.UnmarshalJSON([]byte(*data)); err != nil {
			return nil, fmt.Errorf("sqlite: reading run %q: %w", id, err)
		}
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: reading run %q: %w", id, err)
	}
	if !found {
		return nil, run.NotFound(id)
	}
	return events, nil
}

// Get implements [run.Store.Get].
func (s *Store) Get(ctx context.Context, id run.ID) (run.Summary, error) {
	_, sum, err := getRun(ctx, s.r, id)
	if err != nil && !errors.Is(err, run.ErrRunNotFound) {
		err = fmt.Errorf("sqlite: getting run %q: %w", id, err)
	}
	return sum, err
}

// List implements [run.Store.List]. Each tag filter is a join on an index
// of (key, value, run); its cursor is the position of the last run of the
// page in creation order. It refuses a query with more than
// [run.MaxQueryTags] tag filters.
func (s *Store) List(ctx context.Context, q run.Query) ([]run.Summary, string, error) {
	if len(q.Tags) > run.MaxQueryTags {
		return nil, "", fmt.Errorf("sqlite: listing runs: the query has %d tag filters, and at most %d are allowed (each is a join); filter by fewer tags", len(q.Tags), run.MaxQueryTags)
	}
	var sb strings.Builder
	var args []any
	sb.WriteString("SELECT " + prefixed("r.", runColumns) + " FROM runs r")
	i := 0
	for k, v := range q.Tags {
		fmt.Fprintf(&sb, " JOIN run_tags t%d ON t%d.run = r.pk AND t%d.key = ? AND t%d.value = ?", i, i, i, i)
		args = append(args, k, v)
		i++
	}
	sb.WriteString(" WHERE 1")
	if len(q.Statuses) > 0 {
		// A status has many runs; when tags are given, their index is the
		// better start, so keep the planner off the status index (+).
		col := " AND r.status"
		if len(q.Tags) > 0 {
			col = " AND +r.status"
		}
		sb.WriteString(col + " IN (?" + strings.Repeat(", ?", len(q.Statuses)-1) + ")")
		for _, st := range q.Statuses {
			args = append(args, st)
		}
	}
	if q.Session != "" {
		sb.WriteString(" AND r.session = ?")
		args = append(args, q.Session)
	}
	if q.ParentRun != "" {
		sb.WriteString(" AND r.parent_run = ?")
		args = append(args, q.ParentRun)
	}
	if !q.CreatedAfter.IsZero() {
		sb.WriteString(" AND r.created_at >= ?")
		args = append(args, q.CreatedAfter.UnixNano())
	}
	if !q.CreatedBefore.IsZero() {
		sb.WriteString(" AND r.created_at < ?")
		args = append(args, q.CreatedBefore.UnixNano())
	}
	if q.Cursor != "" {
		pk, err := strconv.ParseInt(q.Cursor, 10, 64)
		if err != nil || pk <= 0 {
			return nil, "", fmt.Errorf("%w: %q", run.ErrBadCursor, q.Cursor)
		}
		sb.WriteString(" AND r.pk < ?")
		args = append(args, pk)
	}
	limit := q.PageSize()
	sb.WriteString(" ORDER BY r.pk DESC LIMIT ?")
	args = append(args, limit+1)
	rows, err := s.r.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, "", fmt.Errorf("sqlite: listing runs: %w", err)
	}
	defer rows.Close()
	var runs []run.Summary
	var lastPK int64
	for rows.Next() {
		pk, sum, err := scanSummary(rows)
		if err != nil {
			return nil, "", fmt.Errorf("sqlite: listing runs: %w", err)
		}
		if len(runs) == limit {
			return runs, strconv.FormatInt(lastPK, 10), nil
		}
		runs = append(runs, sum)
		lastPK = pk
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("sqlite: listing runs: %w", err)
	}
	return runs, "", nil
}

// prefixed qualifies each column of a comma-separated list.
func prefixed(prefix, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// Events implements [run.Store.Events] with [run.FollowPoll]: it is live
// for appends made through this Store and, with [Options.Poll], for those
// of other processes sharing the file.
func (s *Store) Events(ctx context.Context, id run.ID, from int64) iter.Seq2[run.Event, error] {
	return run.FollowPoll(ctx, s, &s.notify, id, from, s.poll)
}

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func jsonUnmarshal(s string, v any) error {
	return json.Unmarshal([]byte(s), v)
}
