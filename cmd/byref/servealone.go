package main

import (
	"context"
	"fmt"
	"io"

	"github.com/byref/byref/run/postgres"
)

// serveAlone makes this byref serve the only one serving a PostgreSQL
// store, by a lock held until unlock. Servers in replicas are not built
// yet: a second server's Recover would mark the runs the first is running
// as interrupted, and a run's awaits, resumes and cancels work only in
// the process that runs it. A standby waits for the lock instead of
// giving up: when the serving process dies, its session ends, the lock is
// free, and the standby takes over (Recover restores the runs that were
// awaiting, as after a restart).
func serveAlone(ctx context.Context, s *postgres.Store, where string, standby bool, stdout io.Writer) (unlock func(), err error) {
	l, ok, err := s.TryLock(ctx, "byref serve")
	if err != nil {
		return nil, err
	}
	if !ok && !standby {
		return nil, fmt.Errorf("another byref serve is serving the runs in %s, and one server at a time may (servers in replicas are not built yet); stop it, give this one another database, or pass --standby to take over when it stops", where)
	}
	if !ok {
		fmt.Fprintf(stdout, "byref: another byref serve is serving the runs in %s; standing by to take over when it stops\n", where)
		if l, err = s.WaitLock(ctx, "byref serve"); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("stopped while standing by: %w", ctx.Err())
			}
			return nil, err
		}
		fmt.Fprintln(stdout, "byref: the other byref serve stopped; taking over")
	}
	return func() { l.Unlock(context.Background()) }, nil
}
