package run_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

// recordedOptions is a run's options as logs have recorded them since the
// first release: flat keys, "interactive" rather than its opposite, the
// retry policy as three fields.
const recordedOptions = `{"task":"Weather?","instructions":"Be brief.","model":"openai:gpt-4o-mini",
	"approval":"on_tool_call","interactive":true,"max_steps":7,"max_tokens":9000,"result_retries":1,
	"context_window":64000,"context_share":0.5,"compact_at":30000,"model_summary":true,"large_result":4000,
	"retry_attempts":2,"retry_backoff":1000000000,"retry_max_backoff":5000000000,"await_timeout":60000000000,
	"tool_limit":3,"driven":true,"actions":["get_weather"],"input_schema":{"type":"object"},
	"result_schema":{"type":"string"}}`

var recordedValue = run.Spec{
	Task: "Weather?", Instructions: "Be brief.", ModelName: "openai:gpt-4o-mini", Approval: run.ApproveOnToolCall,
	Limits: run.Limits{MaxSteps: 7, MaxTokens: 9000, ResultRetries: 1, ContextWindow: 64000, ContextShare: 0.5,
		CompactAt: 30000, ModelSummary: true, LargeResult: 4000,
		Retry: run.RetryPolicy{Attempts: 2, Backoff: time.Second, MaxBackoff: 5 * time.Second}},
	AwaitTimeout: time.Minute, ToolLimit: 3, Driven: true, Actions: []string{"get_weather"},
	InputSchema: json.RawMessage(`{"type":"object"}`), ResultSchema: json.RawMessage(`{"type":"string"}`),
}

// TestSpecReadsRecordedLogs: options recorded in the log's format
// read back whole, and are written in it again, key for key.
func TestSpecReadsRecordedLogs(t *testing.T) {
	var got run.Spec
	if err := json.Unmarshal([]byte(recordedOptions), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recordedValue) {
		t.Errorf("read\n%+v\nwant\n%+v", got, recordedValue)
	}
	b, err := json.Marshal(recordedValue)
	if err != nil {
		t.Fatal(err)
	}
	var written, recorded map[string]any
	if err := json.Unmarshal(b, &written); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(recordedOptions), &recorded)
	if !reflect.DeepEqual(written, recorded) {
		t.Errorf("written as\n%s\nwant the keys of\n%s", b, recordedOptions)
	}

	// A run that refuses follow-ups was recorded without "interactive".
	var quiet run.Spec
	if err := json.Unmarshal([]byte(`{"task":"t"}`), &quiet); err != nil || !quiet.NonInteractive {
		t.Errorf("options without interactive read as %+v, %v; want NonInteractive", quiet, err)
	}
	if b, _ := json.Marshal(run.Spec{Task: "t", NonInteractive: true}); string(b) != `{"task":"t"}` {
		t.Errorf("a non-interactive run's options are written as %s", b)
	}
}
