package main

import (
	"flag"
	"os"
	"time"
)

// temporalFlags are the flags with which byref serve runs its agent on
// Temporal, and byref worker hosts the runs. The Temporal SDK is built
// into byref only with the build tag temporal (temporal_on.go): a byref
// built without it refuses them, naming the tag (temporal_off.go).
type temporalFlags struct {
	hostPort  *string        // --temporal: the frontend's host:port; "" means in-process runs
	queue     *string        // --task-queue
	lostAfter *time.Duration // --worker-lost-after
}

// addTemporalFlags defines the flags on fs.
func addTemporalFlags(fs *flag.FlagSet) temporalFlags {
	return temporalFlags{
		hostPort:  fs.String("temporal", os.Getenv("BYREF_TEMPORAL"), ""),
		queue:     fs.String("task-queue", "byref", ""), // temporal.DefaultTaskQueue
		lostAfter: fs.Duration("worker-lost-after", 0, ""),
	}
}

// on reports whether runs go to Temporal.
func (f temporalFlags) on() bool { return *f.hostPort != "" }

// check refuses the flags where they cannot work: Temporal's workers and
// the servers that start runs share the run store, so it must be one all
// of them reach, a PostgreSQL database.
func (f temporalFlags) check(storeSpec string) error {
	if !isPostgresURL(storeSpec) {
		return usagef("--temporal needs --store postgres://… (or $BYREF_STORE): the workers and the servers share the run store, which a SQLite file cannot be across processes")
	}
	if *f.lostAfter < 0 {
		return usagef("--worker-lost-after %v: give a positive duration, e.g. 5s", *f.lostAfter)
	}
	return nil
}
