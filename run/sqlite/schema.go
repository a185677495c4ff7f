package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are the schema's versions: migrations[i] moves a database
// from user_version i to i+1. Append new ones; never edit a published one.
var migrations = []string{
	// 1: runs, their tags, their events.
	`CREATE TABLE runs (
		pk               INTEGER PRIMARY KEY,
		id               TEXT    NOT NULL UNIQUE,
		name             TEXT    NOT NULL,
		session          TEXT    NOT NULL,
		turn             TEXT    NOT NULL,
		parent_run       TEXT    NOT NULL,
		parent_tool_call TEXT    NOT NULL,
		tags             TEXT    NOT NULL, -- JSON object, as in run_created
		status           TEXT    NOT NULL,
		reason           TEXT    NOT NULL,
		created_at       INTEGER NOT NULL, -- Unix nanoseconds
		updated_at       INTEGER NOT NULL,
		last_seq         INTEGER NOT NULL
	);
	CREATE INDEX runs_status  ON runs (status, pk);
	CREATE INDEX runs_session ON runs (session, pk);
	CREATE INDEX runs_parent  ON runs (parent_run, pk);
	CREATE INDEX runs_created ON runs (created_at);
	CREATE TABLE run_tags (
		key   TEXT    NOT NULL,
		value TEXT    NOT NULL,
		run   INTEGER NOT NULL, -- runs.pk
		PRIMARY KEY (key, value, run)
	) WITHOUT ROWID;
	CREATE TABLE events (
		run  INTEGER NOT NULL, -- runs.pk
		seq  INTEGER NOT NULL,
		type TEXT    NOT NULL,
		time INTEGER NOT NULL, -- Unix nanoseconds
		data TEXT    NOT NULL, -- the event's JSON (run.Event.MarshalJSON)
		PRIMARY KEY (run, seq)
	) WITHOUT ROWID;`,
	// 2: records kept beside the runs (run.Records).
	`CREATE TABLE records (
		run   INTEGER NOT NULL, -- runs.pk
		kind  TEXT    NOT NULL,
		key   TEXT    NOT NULL,
		value TEXT    NOT NULL, -- JSON
		PRIMARY KEY (kind, run, key)
	) WITHOUT ROWID;`,
}

// SchemaVersion is the schema version this package writes: the database's
// PRAGMA user_version after Open.
const SchemaVersion = 2

// migrate brings the database to SchemaVersion, each migration in its own
// transaction. A database from a newer version of the package is refused.
func migrate(ctx context.Context, db *sql.DB) error {
	for {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var v int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			tx.Rollback()
			return err
		}
		switch {
		case v == len(migrations):
			return tx.Rollback()
		case v > len(migrations):
			tx.Rollback()
			return fmt.Errorf("sqlite: the database has schema version %d, newer than this package's %d; upgrade byref", v, len(migrations))
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("sqlite: migrating the schema to version %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
}
