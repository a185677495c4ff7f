package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// maxBackoff bounds the wait between two tries after a lost connection.
const maxBackoff = 2 * time.Second

// statementTries is how many times a statement is sent when the
// connection it went to turns out to be lost.
const statementTries = 3

// retry calls fn, again (at once, on another connection of the pool) when
// it failed because its connection was lost, at most statementTries times.
// Every statement the Store sends is safe to send twice: reads, and writes
// whose conditions make a second application a no-op.
func (s *Store) retry(ctx context.Context, fn func() error) error {
	if s.closed.Load() {
		return errClosed
	}
	var err error
	for range statementTries {
		if err = fn(); err == nil || !lostConnection(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// lostConnection reports whether err says the connection or the server
// went away (the server restarts, the session was ended, the network
// failed), not that the statement was wrong: trying again later, on a
// new connection, may succeed.
func lostConnection(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08") // connection_exception
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return pgconn.SafeToRetry(err) || errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// sleep waits d, or until ctx is done (then it returns false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
