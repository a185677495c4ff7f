package postgres

import (
	"context"
	"fmt"

	"github.com/byref/byref/run"
	"github.com/jackc/pgx/v5/pgconn"
)

// PutRecord implements [run.Records.PutRecord] in one statement.
func (s *Store) PutRecord(ctx context.Context, r run.Record) error {
	if s.fenced.Load() {
		return ErrLeaseLost
	}
	if err := run.CheckRecord(r); err != nil {
		return err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var tag pgconn.CommandTag
	err := s.retry(ctx, func() (err error) {
		tag, err = s.pool.Exec(ctx, s.sql(`INSERT INTO {s}.records (run, kind, key, value)
			SELECT pk, $2, $3, $4 FROM {s}.runs WHERE id = $1
			ON CONFLICT (kind, run, key) DO UPDATE SET value = excluded.value`), r.Run, r.Kind, r.Key, string(r.Value))
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("postgres: putting record %s/%s of run %q: %w", r.Kind, r.Key, r.Run, err)
	case tag.RowsAffected() == 0:
		return run.NotFound(r.Run)
	}
	return nil
}

// DeleteRecord implements [run.Records.DeleteRecord].
func (s *Store) DeleteRecord(ctx context.Context, id run.ID, kind, key string) (bool, error) {
	if s.fenced.Load() {
		return false, ErrLeaseLost
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var tag pgconn.CommandTag
	err := s.retry(ctx, func() (err error) {
		tag, err = s.pool.Exec(ctx, s.sql(`DELETE FROM {s}.records WHERE kind = $2 AND key = $3
			AND run = (SELECT pk FROM {s}.runs WHERE id = $1)`), id, kind, key)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("postgres: deleting record %s/%s of run %q: %w", kind, key, id, err)
	}
	return tag.RowsAffected() > 0, nil
}

// ListRecords implements [run.Records.ListRecords].
func (s *Store) ListRecords(ctx context.Context, kind string, id run.ID) ([]run.Record, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	q := `SELECT r.id, c.key, c.value FROM {s}.records c JOIN {s}.runs r ON r.pk = c.run WHERE c.kind = $1`
	args := []any{kind}
	if id != "" {
		q += ` AND r.id = $2`
		args = append(args, id)
	}
	var out []run.Record
	err := s.retry(ctx, func() error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, s.sql(q+` ORDER BY r.id COLLATE "C", c.key COLLATE "C"`), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r := run.Record{Kind: kind}
			var value string
			if err := rows.Scan(&r.Run, &r.Key, &value); err != nil {
				return err
			}
			r.Value = []byte(value)
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: listing records %s: %w", kind, err)
	}
	return out, nil
}
