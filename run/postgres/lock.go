package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Lock is an exclusive session lock on a name, held by one process of
// all those sharing the store's schema (see [Store.TryLock]).
type Lock struct {
	conn    *pgx.Conn
	timeout time.Duration // the store's Options.QueryTimeout
}

// TryLock takes the lock named name, within the store's schema, if no
// other session holds it, and reports whether it did. The lock is a
// session-level advisory lock on a connection of its own, taken out of
// the pool: it is released by [Lock.Unlock], which closes that
// connection, when the process dies (its session ends), and when the
// connection is lost (the database restarts): for work one process at a
// time may do (a migration job, a scheduler). Replicas hold such locks on
// their IDs (see [Store.NewReplica]).
func (s *Store) TryLock(ctx context.Context, name string) (*Lock, bool, error) {
	return s.lock(ctx, name, false)
}

// WaitLock is TryLock that waits for the lock while another session holds
// it, until ctx is done. The wait is one statement the database answers
// when the lock is free: it sends nothing meanwhile. Replicas wait so for
// each other's locks, to take over a replica that stopped.
func (s *Store) WaitLock(ctx context.Context, name string) (*Lock, error) {
	l, _, err := s.lock(ctx, name, true)
	return l, err
}

func (s *Store) lock(ctx context.Context, name string, wait bool) (*Lock, bool, error) {
	actx, cancel := s.bound(ctx)
	pc, err := s.pool.Acquire(actx)
	cancel()
	if err != nil {
		return nil, false, fmt.Errorf("postgres: locking %q: %w", name, err)
	}
	conn := pc.Hijack()
	q, qctx := `SELECT pg_try_advisory_lock(hashtext($1), hashtext($2))`, ctx
	if wait {
		q = `SELECT true FROM pg_advisory_lock(hashtext($1), hashtext($2))`
	} else {
		var cancel context.CancelFunc
		qctx, cancel = s.bound(ctx)
		defer cancel()
	}
	var ok bool
	if err := conn.QueryRow(qctx, q, s.schema, name).Scan(&ok); err != nil || !ok {
		conn.Close(context.Background())
		if err != nil {
			return nil, false, fmt.Errorf("postgres: locking %q: %w", name, err)
		}
		return nil, false, nil
	}
	return &Lock{conn: conn, timeout: s.timeout}, true, nil
}

// Unlock releases the lock, then closes its session. The release is a
// statement the database has answered when Unlock returns (closing the
// session alone would release the lock only once the server has seen
// the session end): the next TryLock of another session gets it.
func (l *Lock) Unlock(ctx context.Context) error {
	if !l.conn.IsClosed() {
		uctx, cancel := context.WithTimeout(ctx, l.timeout)
		_, _ = l.conn.Exec(uctx, `SELECT pg_advisory_unlock_all()`)
		cancel()
	}
	return l.conn.Close(ctx)
}
