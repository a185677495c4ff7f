package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/byref/byref/llm"
	// bedrock: specs; llm/providers leaves Bedrock out for its AWS SDK.
	_ "github.com/byref/byref/llm/bedrock"
	_ "github.com/byref/byref/llm/providers"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/postgres"
	"github.com/byref/byref/run/sqlite"
)

// defaultDB is the SQLite file runs are recorded in when --db is not given.
func defaultDB() string {
	if p := os.Getenv("BYREF_DB"); p != "" {
		return p
	}
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "byref-runs.db"
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "byref", "runs.db")
}

// openStore opens (creating) the SQLite file at path.
func openStore(path string) (*sqlite.Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating the directory of the run database: %w (pass --db to put it elsewhere)", err)
		}
	}
	s, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		return nil, fmt.Errorf("opening the run database %s: %w", path, err)
	}
	return s, nil
}

// openExisting opens the SQLite file at path, which must exist.
func openExisting(path string) (*sqlite.Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no run database at %s; pass --db with the file your runs were recorded in (or set BYREF_DB)", path)
	}
	return openStore(path)
}

// servedStore is the store byref serve records runs in: run/sqlite's or
// run/postgres's.
type servedStore interface {
	run.Store
	Close() error
}

// isPostgresURL reports whether --store names a PostgreSQL database.
func isPostgresURL(spec string) bool {
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://")
}

// openServed opens the store of byref serve: the PostgreSQL database of a
// postgres:// URL (migrating its schema), else the SQLite file at spec.
// where names it for messages, without a password.
func openServed(ctx context.Context, spec string) (store servedStore, where string, err error) {
	if !isPostgresURL(spec) {
		s, err := openStore(spec)
		return s, spec, err
	}
	where = spec
	if u, err := url.Parse(spec); err == nil {
		where = u.Redacted()
	}
	s, err := postgres.Open(ctx, spec, postgres.Options{})
	if err != nil {
		return nil, where, fmt.Errorf("opening the run store %s: %w", where, err)
	}
	return s, where, nil
}

// openModel opens the model named by spec ("provider:model"), the built-in
// scripted model ("scripted": no API key, no network; it runs one Go
// snippet and returns its value), or one of the scripted models the
// command knows ("scripted:NAME", for tests); either with "?delay=100ms"
// answers after that delay, as a provider would. Every command that takes
// --model opens it here.
func openModel(spec string) (llm.Model, error) {
	if spec == "" {
		spec = os.Getenv("BYREF_MODEL")
	}
	if spec == "" {
		return nil, usagef("no model; pass --model provider:name (e.g. --model openai:gpt-4o-mini, with OPENAI_API_KEY set), --model scripted (built in: no key, no network), or set BYREF_MODEL")
	}
	if rest, ok := strings.CutPrefix(spec, "scripted"); ok && (rest == "" || rest[0] == '?') {
		spec = scriptedSpec + rest // scripted?delay=100ms
	}
	if name, ok := strings.CutPrefix(spec, "scripted:"); ok {
		return scriptedModel(name)
	}
	return llm.Open(spec)
}
