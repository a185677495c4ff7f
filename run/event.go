package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// EventType names the kind of an [Event] on the wire: the "type" field of
// its JSON and of a server-sent event.
type EventType string

// The event types, one per [Payload] type.
const (
	EventRunCreated        EventType = "run_created"
	EventStatusChanged     EventType = "status_changed"
	EventPhaseChanged      EventType = "phase_changed"
	EventUserMessage       EventType = "user_message"
	EventAssistantMessage  EventType = "assistant_message"
	EventToolCallScheduled EventType = "tool_call_scheduled"
	EventToolCallCompleted EventType = "tool_call_completed"
	EventSnippetExecuted   EventType = "snippet_executed"
	EventVariableCreated   EventType = "variable_created"
	EventVariableModified  EventType = "variable_modified"
	EventAwaitRequested    EventType = "await_requested"
	EventAwaitResolved     EventType = "await_resolved"
	EventChildRunStarted   EventType = "child_run_started"
	EventChildRunFinished  EventType = "child_run_finished"
	EventProgress          EventType = "progress"
	EventContextCompacted  EventType = "context_compacted"
	EventResult            EventType = "result"
	EventUsage             EventType = "usage"
	EventError             EventType = "error"
)

// decoders maps each known event type to the decoder of its payload.
var decoders = map[EventType]func([]byte) (Payload, error){
	EventRunCreated:        decode[RunCreated],
	EventStatusChanged:     decode[StatusChanged],
	EventPhaseChanged:      decode[PhaseChanged],
	EventUserMessage:       decode[UserMessage],
	EventAssistantMessage:  decode[AssistantMessage],
	EventToolCallScheduled: decode[ToolCallScheduled],
	EventToolCallCompleted: decode[ToolCallCompleted],
	EventSnippetExecuted:   decode[SnippetExecuted],
	EventVariableCreated:   decode[VariableCreated],
	EventVariableModified:  decode[VariableModified],
	EventAwaitRequested:    decode[AwaitRequested],
	EventAwaitResolved:     decode[AwaitResolved],
	EventChildRunStarted:   decode[ChildRunStarted],
	EventChildRunFinished:  decode[ChildRunFinished],
	EventProgress:          decode[Progress],
	EventContextCompacted:  decode[ContextCompacted],
	EventResult:            decode[Result],
	EventUsage:             decode[Usage],
	EventError:             decode[Error],
}

// decodeLive decodes the payload of a live-only event (live.go).
var decodeLive func([]byte) (Payload, error)

func decode[P Payload](data []byte) (Payload, error) {
	var p P
	err := json.Unmarshal(data, &p)
	return p, err
}

// EventTypes returns every event type this version of the package knows, in
// the order they are declared.
func EventTypes() []EventType {
	return []EventType{EventRunCreated, EventStatusChanged, EventPhaseChanged,
		EventUserMessage, EventAssistantMessage, EventToolCallScheduled,
		EventToolCallCompleted, EventSnippetExecuted, EventVariableCreated,
		EventVariableModified, EventAwaitRequested, EventAwaitResolved,
		EventChildRunStarted, EventChildRunFinished, EventProgress, EventResult,
		EventUsage, EventError, EventContextCompacted}
}

// Known reports whether t is one of the event types above.
func (t EventType) Known() bool {
	_, ok := decoders[t]
	return ok
}

// Event is one entry of a run's append-only log.
//
// Its JSON form, used by stores and server-sent events, is
//
//	{"run":"run_…","seq":3,"time":"2026-11-21T10:00:00Z","type":"tool_call_completed","data":{…}}
//
// and decodes back into the payload's concrete type; a type this version
// does not know decodes into [Unknown]. Raw JSON fields inside payloads are
// compacted on the way.
type Event struct {
	// RunID is the run the event belongs to. [Store.Append] fills it in
	// when empty.
	RunID ID
	// Seq is the event's position in its run's log: 1 for [RunCreated],
	// then consecutive. Stores assign it.
	Seq int64
	// Time is when the event happened. Stores set a zero Time to their
	// clock at append, and return times in UTC without a monotonic reading.
	Time time.Time
	// Payload is what happened; its Kind is the event's type. The log's
	// JSON holds it under "data".
	Payload Payload
}

// Type returns the event's type, the Kind of its payload; "" if it has none.
func (e Event) Type() EventType {
	if e.Payload == nil {
		return ""
	}
	return e.Payload.Kind()
}

// wireEvent is the JSON shape of an Event.
type wireEvent struct {
	RunID ID              `json:"run"`
	Seq   int64           `json:"seq"`
	Time  time.Time       `json:"time"`
	Type  EventType       `json:"type"`
	Data  json.RawMessage `json:"data"`
}

// ErrInvalidEvent is the condition of an event that cannot be encoded,
// decoded or appended: no payload, an unknown type, a malformed body.
var ErrInvalidEvent = errors.New("run: invalid event")

// MarshalJSON encodes the event with its type and payload.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Payload == nil {
		return nil, fmt.Errorf("%w: event %d of run %q has no payload", ErrInvalidEvent, e.Seq, e.RunID)
	}
	w := wireEvent{RunID: e.RunID, Seq: e.Seq, Time: e.Time, Type: e.Payload.Kind()}
	if u, ok := e.Payload.(Unknown); ok {
		w.Data = u.Data
	} else {
		data, err := marshal(e.Payload)
		if err != nil {
			return nil, fmt.Errorf("run: encoding %s event: %w", w.Type, err)
		}
		w.Data = data
	}
	return marshal(w)
}

// marshal encodes v without escaping <, > and & (references read
// <<var:name>>), and without the trailing newline of an Encoder.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON decodes an event written by MarshalJSON into the concrete
// payload type its "type" names.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wireEvent
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	if w.Type == "" {
		return fmt.Errorf(`%w: no "type" field`, ErrInvalidEvent)
	}
	var p Payload = Unknown{Type: w.Type, Data: w.Data}
	dec, ok := decoders[w.Type]
	if !ok && w.Type.Live() {
		dec, ok = decodeLive, true
	}
	if ok {
		var err error
		if p, err = dec(w.Data); err != nil {
			return fmt.Errorf("%w: data of %s event %d: %w", ErrInvalidEvent, w.Type, w.Seq, err)
		}
	}
	*e = Event{RunID: w.RunID, Seq: w.Seq, Time: w.Time, Payload: p}
	return nil
}
