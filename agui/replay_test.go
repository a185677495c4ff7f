package agui_test

import (
	"strings"
	"testing"

	"github.com/byref/byref/codegen"
	"github.com/byref/byref/run"
)

// A front-end tool's round trip leaves a log that says the client
// answered the call: the run's snapshot marks it, and its replay code
// uses the tool message's content as the call's result.
func TestFrontendToolInLogAndReplay(t *testing.T) {
	s, ts := startAGUI(t)
	tools := `[{"name":"book","description":"Book seats.","parameters":{"type":"object","properties":{"city":{"type":"string"},"seats":{"type":"integer"}},"required":["city","seats"]}}]`
	status, first := post(t, ts.URL+"/agui/frontend", `{"threadId":"th-replay","runId":"r1","tools":`+tools+`,"messages":[{"id":"u1","role":"user","content":"Book two seats."}]}`)
	callID := ""
	for _, e := range first {
		if e["type"] == "TOOL_CALL_START" {
			callID, _ = e["toolCallId"].(string)
		}
	}
	if callID == "" {
		t.Fatalf("no TOOL_CALL_START in %v", first)
	}
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	if status, _ = post(t, ts.URL+"/agui/frontend", `{"threadId":"th-replay","runId":"r2","tools":`+tools+`,"messages":[{"id":"u1","role":"user","content":"Book two seats."},{"id":"t1","role":"tool","toolCallId":"`+callID+`","content":"booked 2 seats, ref \"X1\""}]}`); status != 200 {
		t.Fatalf("status %d", status)
	}
	runs, _, err := s.Store().List(t.Context(), run.Query{Session: "th-replay"})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v %v", runs, err)
	}
	events, err := s.Store().Read(t.Context(), runs[0].ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	snap := run.Fold(events)
	if snap.Status != run.StatusCompleted || len(snap.ToolCalls) != 1 || !snap.ToolCalls[0].Client {
		t.Fatalf("the snapshot does not show the call as the client's: %s %+v", snap.Status, snap.ToolCalls)
	}
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	src, err := codegen.Generate(rec, codegen.Options{Main: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if !strings.Contains(string(src), "book into book_result, answered by the client") || !strings.Contains(string(src), "book_result := `booked 2 seats, ref \"X1\"`") {
		t.Fatalf("the replay does not use the client's answer:\n%s", src)
	}
}
