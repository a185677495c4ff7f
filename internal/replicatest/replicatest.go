// Package replicatest starts servers in replicas for tests: each replica
// as a process of its own would be, with its own PostgreSQL store (its own
// pool and listening connection, under an application name of its own),
// its own agents' runtimes, and its own server, joined to the others on
// one database.
//
//	url := pgtest.Start(t).Database(t)
//	a := replicatest.Start(t, url, server.Options{}, agents)
//	b := replicatest.Start(t, url, server.Options{}, agents)
//	… // a's runs answered through b
//	a.Kill(t) // its session ends without a word: b takes its runs over
package replicatest

import (
	"context"
	"fmt"
	neturl "net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/postgres"
	"github.com/byref/byref/server"
	"github.com/jackc/pgx/v5"
)

// Replica is one server of the replicas.
type Replica struct {
	Server  *server.Server
	Store   *postgres.Store
	Replica *postgres.Replica
	// App is the application name of the replica's database sessions.
	App string
}

var apps atomic.Int64

// Start starts a replica on the database at url: a store of its own, the
// agents agents returns for it (their runtimes must record into the store
// it is given), and a server with opts and those, on which mount mounts
// other protocols (a2a.Mount), joined (Recover). The server and the store
// are closed when the test ends.
func Start(t testing.TB, url string, opts server.Options, agents func(store run.Store) []server.Agent, mount ...func(*server.Server) error) *Replica {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	app := fmt.Sprintf("replica_%d", apps.Add(1))
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	store, err := postgres.Open(ctx, u.String(), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := store.NewReplica()
	if err != nil {
		t.Fatal(err)
	}
	opts.Store, opts.Replicas, opts.Agents = store, rep, agents(store)
	s, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		store.Close()
	})
	for _, m := range mount {
		if err := m(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	return &Replica{Server: s, Store: store, Replica: rep, App: app}
}

// Kill ends every database session of the replica, as the death of its
// process would: its lock is released, the other replicas take its runs
// over, and the replica learns it lost its lease (its server abandons its
// runs). It returns once the replica knows.
func (r *Replica) Kill(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	conn, err := pgx.Connect(ctx, pgtest.Start(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, r.App).Scan(&n); err != nil || n == 0 {
		t.Fatalf("ending the sessions of %s: %d ended, %v", r.App, n, err)
	}
	select {
	case <-r.Replica.Lost():
	case <-ctx.Done():
		t.Fatalf("replica %s did not learn it lost its lease", r.App)
	}
}
