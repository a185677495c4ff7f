// Package postgres is the [run.Store] that several processes and machines
// share: servers in replicas, Temporal workers on many hosts. It keeps
// runs in a PostgreSQL database through pgx (github.com/jackc/pgx/v5).
//
//	s, err := postgres.Open(ctx, "postgres://byref:secret@db:5432/byref", postgres.Options{})
//	if err != nil { … }
//	defer s.Close()
//
// # Appends
//
// An Append is one statement, atomic like any: it updates the run's row
// only if the log still ends where the appender says (so two processes
// never both extend a log, and a retried statement never stores a batch
// twice), inserts the events, and notifies the other processes. A Store
// remembers the runs it appended to, so that the writer of a run pays one
// round trip per append; otherwise it reads the run's row first.
//
// # Subscriptions
//
// [Store.Events] is woken by LISTEN/NOTIFY, not by polling: each Store
// holds one connection (outside its pool) that LISTENs on a channel named
// like the schema, and every Append notifies the run's ID on it, delivered
// when the append commits. An idle subscriber sends the database nothing.
// When that connection is lost, the Store reconnects with backoff and then
// wakes every subscriber, which reads from its last event on: none is lost
// and none is yielded twice. A subscription waits out a database that is
// down for up to [Options.Outage].
//
// # Live deltas
//
// A Store is also a [run.LiveStore]: [Store.PublishDelta] sends a run's
// live deltas (the model's text as it is written) to the followers of
// [Store.Live] in every process, through notifications on a second
// channel (the schema's name and "/d"), each at most 7000 bytes (a longer
// delta is cut into pieces that add up to it). Publishing never blocks the
// run; a follower that misses deltas drops the rest of the message, which
// the log holds whole. Temporal workers publish the deltas of the runs they
// host, and a server streams them for runs it does not hold.
//
// # Replicas
//
// [Store.NewReplica] makes a process one of the replicas that serve the
// store's runs (package server's Replicas): a replica holds a
// session-level advisory lock on its ID, on a connection of its own that
// also LISTENs on its channel (the schema's name, "/r/" and the ID), and
// waits for each other replica's lock with a blocking pg_advisory_lock on
// a connection of its own: no polling, and the database answers one
// waiter when a replica's session ends. That waiter takes the replica
// over in one transaction (its claims, the runs it owned among them, are
// the taker's). Commands for a run go to its owner through the commands
// table and a notification on the owner's channel; the answer comes back
// the same way. Connections: one per replica for its lease, and one per
// other replica.
//
// # Schema and upgrades
//
// The tables live in one PostgreSQL schema ([Options.Schema], "byref" by
// default). Its version is the highest row of its schema_migrations table
// (version, description, applied_at). Open applies the missing
// migrations in one transaction under an advisory lock, so replicas that
// start together migrate once; it refuses a schema newer than the
// program's. To migrate as a separate deployment step, run one process
// (say `byref serve --store URL` stopped once it listens, or a program
// calling Open) with a role that may change the schema, and open the
// store everywhere else with [Options.NoMigrate]. Migrations are additive,
// so processes of the previous version keep working during a rolling
// upgrade.
//
// # Connections
//
// The URL's parameters set the pool (pool_max_conns, default the larger
// of 4 and the number of CPUs; pool_max_conn_lifetime; …) and the
// connections (sslmode, connect_timeout, application_name, …): see
// pgxpool.ParseConfig. Every call is bounded by its context and by
// [Options.QueryTimeout]; a statement whose connection turns out to be
// lost is sent again on another.
package postgres
