package main

import (
	"context"
	"fmt"

	"github.com/byref/byref/run/postgres"
)

// serveAlone makes this byref serve the only one serving a PostgreSQL
// store, by a lock held until unlock. Servers in replicas are not built
// yet: a second server's Recover would mark the runs the first is running
// as interrupted, and a run's awaits, resumes and cancels work only in
// the process that runs it.
func serveAlone(ctx context.Context, s *postgres.Store, where string) (unlock func(), err error) {
	l, ok, err := s.TryLock(ctx, "byref serve")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("another byref serve is serving the runs in %s, and one server at a time may (servers in replicas are not built yet); stop it, or give this one another database", where)
	}
	return func() { l.Unlock(context.Background()) }, nil
}
