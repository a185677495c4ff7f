// Package sqlite is the embedded, durable [run.Store]: one SQLite file
// through modernc.org/sqlite, a pure-Go SQLite (no cgo).
//
//	s, err := sqlite.Open("runs.db", sqlite.Options{})
//	if err != nil { … }
//	defer s.Close()
//
// The file is in WAL mode: readers never wait for the writer, and an append
// whose call returned survives a crash of the process (with
// [Options.FullSync], also a power loss). Every Append is one transaction,
// so a batch (a step's events) is stored whole or not at all. Within the
// process, writes go through one connection and reads through a small pool;
// several processes may share a file, each waiting up to
// [Options.BusyTimeout] for the write lock.
//
// Subscriptions ([Store.Events]) are woken at once by appends through the
// same Store. Appends by another process sharing the file wake nobody: by
// default a subscriber sees them only when a later append in its own
// process wakes it, or when it starts. When other processes append (say,
// the workers of a distributed engine, with a server streaming events),
// set [Options.Poll]: a waiting subscriber then also re-reads every Poll,
// and so sees their appends, and their run's end, within about Poll.
//
// The schema is versioned with PRAGMA user_version and migrated by Open.
package sqlite
