package run

import (
	"context"
	"encoding/json"
	"iter"
)

// EventDelta is the type of [Delta] events. It is live-only: followers of
// a running run see such events as they happen, and no store holds them
// (Append refuses them). It is not among [EventTypes], the types of a log.
const EventDelta EventType = "delta"

// Live reports whether events of type t are live-only: followers see
// them, stores never hold them.
func (t EventType) Live() bool { return t == EventDelta }

// DeltaKind says what a [Delta] is a piece of.
type DeltaKind string

// The kinds of deltas.
const (
	// DeltaText is the next piece of the model's answer text.
	DeltaText DeltaKind = "text"
	// DeltaReasoning is the next piece of the model's stated reasoning.
	DeltaReasoning DeltaKind = "reasoning"
	// DeltaToolCall is the next piece of a tool call's JSON arguments, as
	// the model writes them; the first piece names the tool.
	DeltaToolCall DeltaKind = "tool_call"
	// DeltaOutput is a line a snippet printed (with its newline), as it
	// ran.
	DeltaOutput DeltaKind = "output"
)

// Delta is a piece of what a run is producing, for the people watching
// it: the model's text, reasoning and tool-call arguments as the provider
// streams them, and a snippet's output line by line. It is live-only (see
// [EventDelta]): the log keeps each completed message once (the
// [AssistantMessage], the [ToolCallScheduled], the [SnippetExecuted]),
// and a follower that missed deltas (it joined late, or fell behind) reads
// those instead. Its Event has sequence number 0.
type Delta struct {
	// Step is the step the delta belongs to: the step whose model call is
	// streaming, or whose snippet is running.
	Step int `json:"step"`
	// What says what the delta is a piece of.
	What DeltaKind `json:"kind"`
	// CallID names the tool call a DeltaToolCall belongs to, as the
	// provider named it (empty when the provider names calls only at the
	// end), or the snippet a DeltaOutput comes from: the run_go call's ID,
	// or "snippet-STEP-N" for the Nth code block of the run.
	CallID string `json:"call_id,omitempty"`
	// Name is the tool's name, on the first piece of a call.
	Name string `json:"name,omitempty"`
	// Text is the piece itself.
	Text string `json:"text"`
	// After is the sequence number of the last event of the log when the
	// delta was produced: the delta comes after that event and before the
	// next.
	After int64 `json:"after"`
	// Offset is where the delta begins among the run's deltas with the
	// same After (the message being written): the bytes of the Names and
	// Texts of those before it. The deltas of a message run from Offset 0
	// without a hole, so that a follower in another process tells whether
	// it has a message from its beginning and whether a piece was lost
	// on the way (see [LiveStore]).
	Offset int64 `json:"offset"`
}

// Len is the bytes of the message that the delta holds: its Name's and
// its Text's. The next delta of its message has Offset d.Offset+d.Len().
func (d Delta) Len() int64 { return int64(len(d.Name) + len(d.Text)) }

// Kind returns [EventDelta].
func (Delta) Kind() EventType { return EventDelta }

func (Delta) isPayload() {}

func init() {
	// A delta's JSON (over a server's stream) decodes into a Delta, but
	// it is not a type of the log (see EventTypes).
	decodeLive = func(data []byte) (Payload, error) {
		var d Delta
		err := json.Unmarshal(data, &d)
		return d, err
	}
}

// LiveStore is implemented by stores that also carry the live deltas of
// runs between processes, such as run/postgres: the process that executes
// a run publishes its deltas, and a follower in any process sees them
// between the run's events. Servers and engines probe for it with a type
// assertion.
type LiveStore interface {
	Store
	// PublishDelta hands a delta of a run to its followers in every
	// process. It never blocks the run: a delta that cannot be sent at
	// once is dropped with those after it until the run's next event (its
	// followers read the completed message from the log).
	PublishDelta(id ID, d Delta)
	// Live follows a run as Events does, with the deltas published by
	// any process between its events: each after the event it follows
	// (Delta.After) and before the next. It yields a message's deltas
	// from its beginning (Offset 0) without a hole: a follower that
	// joined after a message began drops that message's deltas, one that
	// misses a delta drops the rest of its message, and a delta that
	// reaches it after the event that completes its message is dropped
	// (the event holds the message whole).
	Live(ctx context.Context, id ID, from int64) iter.Seq2[Event, error]
}
