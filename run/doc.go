// Package run is the durable record of an agent run: its identity, its
// lifecycle, its append-only event log, the state derived from that log,
// and the interface of the stores that keep it. It imports only the
// standard library. It also declares the types a run's log shares with the
// model interface and the schemas, once: [Tool], [ToolCall] and [Thinking]
// (package llm and package schema name them by aliases).
//
// # Lifecycle
//
// A run has one [Status] at a time; [CanTransition] is the table of legal
// moves:
//
//	created → running → (awaiting ↔ running)* → completed | failed
//	completed → running                          a follow-up message
//	created | running | awaiting → cancelling → canceled
//	created | awaiting → failed                  a start fault, an await timeout
//
// While running, a [Phase] says where the loop is: prompted, planning,
// executing, synthesizing.
//
// # Events
//
// Every change is an [Event] appended to the run's log: a sequence number
// (1 for [RunCreated], then without gaps), a time, and a typed [Payload],
// one struct per [EventType]. Events encode to JSON as
// {"run":…,"seq":…,"time":…,"type":…,"data":{…}} and decode back into the
// concrete payload type.
//
// # Snapshots
//
// A [Snapshot] (status, phase, pending await, tool calls with durations,
// child runs, variable previews, last messages, result, token usage) is a
// pure fold of the events: [Fold] computes it from a log, and
// [Snapshot.Apply] keeps it up to date one event at a time. The log is the
// truth; snapshots are never stored.
//
// The step history is another fold: [History] turns the log into the
// [Instruction]s the run executed (calls with their resolved arguments,
// snippets with what they read and wrote, failures with what the model was
// told), which replay code and hosts read; [HistoryFolder] folds one event
// at a time.
//
// # Stores
//
// A [Store] keeps logs: it creates runs idempotently (a client-supplied ID
// that exists returns the existing run), appends batches atomically with
// optimistic concurrency (an appender states the last sequence number it
// knows; a stale one gets a [*ConflictError]), refuses illegal transitions,
// lists runs by status, tag, session, parent and time, and streams a run's
// events stored-then-live through an iterator. [NewMemoryStore] is the
// in-memory store; package run/sqlite is the durable one; package
// run/storetest is the conformance suite both pass.
package run
