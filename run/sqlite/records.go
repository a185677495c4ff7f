package sqlite

import (
	"context"
	"fmt"

	"github.com/byref/byref/run"
)

var _ run.Records = (*Store)(nil)

// PutRecord implements [run.Records.PutRecord].
func (s *Store) PutRecord(ctx context.Context, r run.Record) error {
	if err := run.CheckRecord(r); err != nil {
		return err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: putting record %s/%s of run %q: %w", r.Kind, r.Key, r.Run, err)
	}
	defer tx.Rollback()
	pk, _, err := getRun(ctx, tx, r.Run)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO records (run, kind, key, value) VALUES (?, ?, ?, ?)
		ON CONFLICT (kind, run, key) DO UPDATE SET value = excluded.value`, pk, r.Kind, r.Key, string(r.Value)); err != nil {
		return fmt.Errorf("sqlite: putting record %s/%s of run %q: %w", r.Kind, r.Key, r.Run, err)
	}
	return tx.Commit()
}

// DeleteRecord implements [run.Records.DeleteRecord].
func (s *Store) DeleteRecord(ctx context.Context, id run.ID, kind, key string) (bool, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM records WHERE kind = ? AND key = ?
		AND run = (SELECT pk FROM runs WHERE id = ?)`, kind, key, id)
	if err != nil {
		return false, fmt.Errorf("sqlite: deleting record %s/%s of run %q: %w", kind, key, id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// ListRecords implements [run.Records.ListRecords].
func (s *Store) ListRecords(ctx context.Context, kind string, id run.ID) ([]run.Record, error) {
	q := `SELECT runs.id, records.key, records.value FROM records JOIN runs ON runs.pk = records.run
		WHERE records.kind = ?`
	args := []any{kind}
	if id != "" {
		q += ` AND runs.id = ?`
		args = append(args, id)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY runs.id, records.key`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing records %s: %w", kind, err)
	}
	defer rows.Close()
	var out []run.Record
	for rows.Next() {
		r := run.Record{Kind: kind}
		var value string
		if err := rows.Scan(&r.Run, &r.Key, &value); err != nil {
			return nil, fmt.Errorf("sqlite: listing records %s: %w", kind, err)
		}
		r.Value = []byte(value)
		out = append(out, r)
	}
	return out, rows.Err()
}
