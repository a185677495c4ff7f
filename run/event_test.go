package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/run"
	"github.com/byref/byref/run/storetest"
)

func TestEventJSONRoundTripEveryKind(t *testing.T) {
	payloads := append([]run.Payload{run.RunCreated{Name: "n", Session: "s", Turn: "t",
		ParentRun: "p", ParentToolCall: "c", Tags: map[string]string{"a": "b"},
		Input: json.RawMessage(`{"x":1}`), Options: run.Spec{ModelName: "m", Actions: []string{"a"}}}},
		storetest.EveryKind()...)
	seen := map[run.EventType]bool{}
	for i, p := range payloads {
		e := run.Event{RunID: "run_a", Seq: int64(i + 1), Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Payload: p}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", p.Kind(), err)
		}
		var back run.Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", p.Kind(), err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Errorf("%s does not round-trip:\n%s\n%#v", p.Kind(), b, back)
		}
		if back.Type() != p.Kind() || !strings.Contains(string(b), `"type":"`+string(p.Kind())+`"`) {
			t.Errorf("%s: type %q in %s", p.Kind(), back.Type(), b)
		}
		seen[p.Kind()] = true
	}
	for _, k := range run.EventTypes() {
		if !seen[k] {
			t.Errorf("no round trip of %s: add it to storetest.EveryKind", k)
		}
		if !k.Known() {
			t.Errorf("%s is not Known", k)
		}
	}
}

func TestEventJSONShape(t *testing.T) {
	e := run.Event{RunID: "run_a", Seq: 3, Time: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC),
		Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Duration: time.Second}}
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"run":"run_a","seq":3,"time":"2026-11-21T10:00:00Z","type":"tool_call_completed",` +
		`"data":{"call_id":"c1","success":true,"duration":1000000000}}`
	if string(b) != want {
		t.Fatalf("MarshalJSON =\n%s\nwant\n%s", b, want)
	}
}

func TestEventUnknownTypeSurvives(t *testing.T) {
	in := `{"run":"run_a","seq":4,"time":"2026-11-21T10:00:00Z","type":"from_the_future","data":{"x":[1,2]}}`
	var e run.Event
	if err := json.Unmarshal([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	u, ok := e.Payload.(run.Unknown)
	if !ok || u.Type != "from_the_future" || string(u.Data) != `{"x":[1,2]}` || e.Type().Known() {
		t.Fatalf("decoded %#v", e)
	}
	out, err := e.MarshalJSON()
	if err != nil || string(out) != in {
		t.Fatalf("re-encoded %s, %v", out, err)
	}
	var s run.Snapshot
	s.Apply(e)
	if s.LastSeq != 4 || s.Status != "" {
		t.Fatalf("an unknown event changed more than LastSeq: %+v", s)
	}
}

func TestEventJSONErrors(t *testing.T) {
	if _, err := (run.Event{RunID: "run_a"}).MarshalJSON(); !errors.Is(err, run.ErrInvalidEvent) {
		t.Errorf("MarshalJSON without payload: %v, want ErrInvalidEvent", err)
	}
	for _, in := range []string{
		`[]`,
		`{"seq":1,"data":{}}`,
		`{"seq":1,"type":"status_changed","data":{"from":7}}`,
		`{"seq":1,"type":"usage","data":"nope"}`,
	} {
		var e run.Event
		if err := json.Unmarshal([]byte(in), &e); !errors.Is(err, run.ErrInvalidEvent) {
			t.Errorf("Unmarshal(%s) = %v, want ErrInvalidEvent", in, err)
		}
	}
}

func TestEventReferencesNotEscaped(t *testing.T) {
	e := run.Event{Payload: run.ToolCallScheduled{Call: run.ToolCall{ID: "c", Name: "a", Arguments: `{"p":"<<var:x>>"}`}}}
	b, err := e.MarshalJSON()
	if err != nil || !strings.Contains(string(b), `<<var:x>>`) {
		t.Fatalf("MarshalJSON = %s, %v; want the reference readable", b, err)
	}
}

// TestDeltaIsLiveOnly: a delta round-trips through JSON as a Delta, is
// not a type of the log, and no store takes one.
func TestDeltaIsLiveOnly(t *testing.T) {
	e := run.Event{RunID: "r", Payload: run.Delta{Step: 2, What: run.DeltaText, Text: "Hel", After: 7}}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back run.Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d, ok := back.Payload.(run.Delta); !ok || d.Text != "Hel" || d.After != 7 || !back.Type().Live() {
		t.Fatalf("decoded %#v from %s", back.Payload, b)
	}
	if slices.Contains(run.EventTypes(), run.EventDelta) {
		t.Error("EventTypes lists the live-only delta")
	}
	s := run.NewMemoryStore()
	ctx := context.Background()
	if _, _, err := s.Create(ctx, run.Event{RunID: "r", Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "r", 1, run.Event{Payload: run.Delta{Text: "x"}}); !errors.Is(err, run.ErrInvalidEvent) {
		t.Fatalf("Append(delta) = %v, want run.ErrInvalidEvent", err)
	}
}
