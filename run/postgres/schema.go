package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migration is one version of the schema. {s} stands for the quoted name
// of the store's schema.
type migration struct {
	description string
	sql         string
}

// migrations are the schema's versions: migrations[i] moves a schema from
// version i to i+1. Append new ones; never edit a published one. Keep
// them additive (new tables, new columns with defaults, new indexes), so
// that processes of the previous version keep working beside those of the
// new one during a rolling upgrade; a migration that cannot be additive
// must say so in the release notes.
var migrations = []migration{
	{"runs, their events and the records kept beside them", `
	CREATE TABLE {s}.runs (
		pk               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		id               text   NOT NULL UNIQUE,
		name             text   NOT NULL,
		session          text   NOT NULL,
		turn             text   NOT NULL,
		parent_run       text   NOT NULL,
		parent_tool_call text   NOT NULL,
		tags             jsonb  NOT NULL, -- an object of strings, as in run_created
		status           text   NOT NULL,
		reason           text   NOT NULL,
		created_at       bigint NOT NULL, -- Unix nanoseconds (exact, unlike timestamptz)
		updated_at       bigint NOT NULL,
		last_seq         bigint NOT NULL
	);
	CREATE INDEX runs_status  ON {s}.runs (status, pk);
	CREATE INDEX runs_session ON {s}.runs (session, pk);
	CREATE INDEX runs_parent  ON {s}.runs (parent_run, pk);
	CREATE INDEX runs_created ON {s}.runs (created_at);
	CREATE INDEX runs_tags    ON {s}.runs USING gin (tags jsonb_path_ops);
	CREATE TABLE {s}.events (
		run  bigint NOT NULL REFERENCES {s}.runs (pk) ON DELETE CASCADE,
		seq  bigint NOT NULL,
		type text   NOT NULL,
		time bigint NOT NULL, -- Unix nanoseconds
		data text   NOT NULL, -- the event's JSON (run.Event.MarshalJSON), byte for byte
		PRIMARY KEY (run, seq)
	);
	CREATE TABLE {s}.records (
		run   bigint NOT NULL REFERENCES {s}.runs (pk) ON DELETE CASCADE,
		kind  text   NOT NULL,
		key   text   NOT NULL,
		value text   NOT NULL, -- JSON
		PRIMARY KEY (kind, run, key)
	);`},
	{"replicas: their members, what each claims (runs it owns, work it does), and the commands forwarded to a run's owner", `
	CREATE TABLE {s}.replicas (
		id        text        PRIMARY KEY,
		host      text        NOT NULL, -- host name and process ID, for people
		joined_at timestamptz NOT NULL DEFAULT now()
	);
	CREATE TABLE {s}.claims (
		kind    text NOT NULL, -- "run" for the run a replica owns
		key     text NOT NULL,
		replica text NOT NULL,
		PRIMARY KEY (kind, key)
	);
	CREATE INDEX claims_replica ON {s}.claims (replica);
	CREATE TABLE {s}.commands (
		id      text    PRIMARY KEY,
		replica text    NOT NULL, -- the owner asked
		asker   text    NOT NULL,
		run     text    NOT NULL,
		request text    NOT NULL,
		reply   text,             -- null until answered
		gone    boolean NOT NULL DEFAULT false -- the owner stopped before answering
	);
	CREATE INDEX commands_replica ON {s}.commands (replica);`},
}

// SchemaVersion is the schema version this package writes: the highest
// version in the schema's schema_migrations table after [Open].
const SchemaVersion = 2

// migrate brings the schema to SchemaVersion in one transaction, under a
// transaction-scoped advisory lock, so that processes starting together
// migrate once. A schema of a newer version is refused.
func (s *Store) migrate(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('byref.migrate.' || $1))`, s.schema); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, s.sql(`CREATE SCHEMA IF NOT EXISTS {s};
		CREATE TABLE IF NOT EXISTS {s}.schema_migrations (
			version     integer     PRIMARY KEY,
			description text        NOT NULL,
			applied_at  timestamptz NOT NULL DEFAULT now()
		)`)); err != nil {
		return err
	}
	v, err := s.version(ctx, tx)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("the schema %s has version %d, newer than this program's %d; upgrade this program (byref) to the version that migrated it", s.schema, v, len(migrations))
	}
	for ; v < len(migrations); v++ {
		m := migrations[v]
		if _, err := tx.Exec(ctx, s.sql(m.sql)); err != nil {
			return fmt.Errorf("migrating the schema %s to version %d (%s): %w", s.schema, v+1, m.description, err)
		}
		if _, err := tx.Exec(ctx, s.sql(`INSERT INTO {s}.schema_migrations (version, description) VALUES ($1, $2)`), v+1, m.description); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// check refuses a schema that is not at SchemaVersion, for
// [Options.NoMigrate].
func (s *Store) check(ctx context.Context, pool *pgxpool.Pool) error {
	v, err := s.version(ctx, pool)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		v, err = 0, nil
	}
	switch {
	case err != nil:
		return err
	case v < SchemaVersion:
		return fmt.Errorf("the schema %s has version %d and this program needs %d; migrate it first: open the store once without Options.NoMigrate (byref serve --store URL does)", s.schema, v, SchemaVersion)
	case v > SchemaVersion:
		return fmt.Errorf("the schema %s has version %d, newer than this program's %d; upgrade this program (byref)", s.schema, v, SchemaVersion)
	}
	return nil
}

// version reads the schema's version.
func (s *Store) version(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var v int
	err := q.QueryRow(ctx, s.sql(`SELECT coalesce(max(version), 0) FROM {s}.schema_migrations`)).Scan(&v)
	return v, err
}
