// Package storetest is the conformance suite of [run.Store]: every store,
// the memory store, the SQLite one and the PostgreSQL one alike, must pass
// [Run].
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) run.Store { return mystore.New(t.TempDir()) })
//	}
//
// The suite checks idempotent creation, gap-free sequence numbers, refused
// conflicting and illegal appends, atomic batches, reads from a sequence
// number, list filters and paging, subscriptions that switch from stored to
// live events without gaps or duplicates, concurrent appenders and
// subscribers (run it with -race), not-found errors, and the round trip of
// every event kind with every field set ([EveryKind]).
package storetest
