package temporal

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// TestRunSpecReadsTheEarlierForm reads a workflow input written before the
// run's options moved into RunSpec.Spec (testdata/runspec-before-spec.json,
// as that version's encoding/json wrote it): a workflow started then and
// replayed by a newer worker must keep its options and its history's tool
// names.
func TestRunSpecReadsTheEarlierForm(t *testing.T) {
	b, err := os.ReadFile("testdata/runspec-before-spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var s RunSpec
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	want := run.Spec{
		Task: "Sum the orders.", InputSchema: json.RawMessage(`{
    "type": "object"
  }`), ResultSchema: json.RawMessage(`{
    "type": "number"
  }`), Actions: []string{"fetch", "sum"}, NonInteractive: true, Instructions: "Be brief.",
		ModelName: "openai:gpt-4o-mini", Approval: run.Approval("on_tool_call"), AwaitTimeout: time.Minute, ToolLimit: 5,
		Limits: run.Limits{MaxSteps: 7, MaxTokens: 9000, ResultRetries: 2, ContextWindow: 64000, ContextShare: 0.5,
			CompactAt: 1000, ModelSummary: true, LargeResult: 4096,
			Retry: run.RetryPolicy{Attempts: 4, Backoff: time.Second, MaxBackoff: 8 * time.Second}},
	}
	if !reflect.DeepEqual(s.Spec, want) {
		t.Errorf("Spec read from the earlier form:\n got %+v\nwant %+v", s.Spec, want)
	}
	if s.ID != "run-1" || s.Name != "weekly" || s.Tags["team"] != "ops" || len(s.History) != 3 {
		t.Errorf("identity or history lost: %+v", s)
	}
	call := s.History[1].ToolCalls
	if want := []llm.ToolCall{{ID: "c1", Name: "fetch", Arguments: `{"page":1}`, Signature: "sig"}}; !reflect.DeepEqual(call, want) {
		t.Errorf("history's tool call: got %+v, want fetch c1 with its arguments and signature", call)
	}
	if th := s.History[1].Thinking; len(th) != 1 || th[0].Signature != "ts" {
		t.Errorf("history's thinking: got %+v", th)
	}

	// The current form reads back as written.
	again, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var s2 RunSpec
	if err := json.Unmarshal(again, &s2); err != nil {
		t.Fatal(err)
	}
	if third, _ := json.Marshal(s2); string(third) != string(again) {
		t.Errorf("the current form does not read back:\n got %s\nwant %s", third, again)
	}
}
