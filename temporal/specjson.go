package temporal

import (
	"encoding/json"
	"time"

	"github.com/byref/byref/run"
)

// UnmarshalJSON reads a RunSpec, including one written before the run's
// recorded options moved into RunSpec.Spec: a workflow started then and
// replayed by a newer worker has its input in that form, with the
// options as flat keys, the limits and retry policy under Go's field
// names, and each history tool call's name under "Name" (now "action").
// Read as the current form alone, those options and names would be lost.
func (s *RunSpec) UnmarshalJSON(b []byte) error {
	type plain RunSpec // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var old struct {
		Spec           json.RawMessage `json:"spec"`
		Task           string          `json:"task"`
		InputSchema    json.RawMessage `json:"input_schema"`
		ResultSchema   json.RawMessage `json:"result_schema"`
		Actions        []string        `json:"actions"`
		NonInteractive bool            `json:"non_interactive"`
		Instructions   string          `json:"instructions"`
		ModelName      string          `json:"model_name"`
		Limits         *oldLimits      `json:"limits"`
		Approval       run.Approval    `json:"approval"`
		AwaitTimeout   time.Duration   `json:"await_timeout"`
		ToolLimit      int             `json:"tool_limit"`
		History        []struct {
			ToolCalls []struct{ Name string } `json:"ToolCalls"`
		} `json:"history"`
	}
	if err := json.Unmarshal(b, &old); err != nil {
		return err
	}
	*s = RunSpec(p)
	if old.Spec != nil {
		return nil // the current form
	}
	s.Spec = run.Spec{
		Task: old.Task, InputSchema: old.InputSchema, ResultSchema: old.ResultSchema, Actions: old.Actions,
		NonInteractive: old.NonInteractive, Instructions: old.Instructions, ModelName: old.ModelName,
		Approval: old.Approval, AwaitTimeout: old.AwaitTimeout, ToolLimit: old.ToolLimit,
	}
	if l := old.Limits; l != nil {
		s.Spec.Limits = run.Limits{
			MaxSteps: l.MaxSteps, MaxTokens: l.MaxTokens, ResultRetries: l.ResultRetries,
			ContextWindow: l.ContextWindow, ContextShare: l.ContextShare, CompactAt: l.CompactAt,
			ModelSummary: l.ModelSummary, LargeResult: l.LargeResult,
			Retry: run.RetryPolicy{Attempts: l.Retry.Attempts, Backoff: l.Retry.Backoff, MaxBackoff: l.Retry.MaxBackoff},
		}
	}
	for i, m := range old.History {
		for j, c := range m.ToolCalls {
			if i < len(s.History) && j < len(s.History[i].ToolCalls) && s.History[i].ToolCalls[j].Name == "" {
				s.History[i].ToolCalls[j].Name = c.Name
			}
		}
	}
	return nil
}

// oldLimits is run.Limits as a RunSpec wrote it before it had JSON keys of
// its own: Go's field names.
type oldLimits struct {
	MaxSteps      int
	MaxTokens     int64
	ResultRetries int
	ContextWindow int
	ContextShare  float64
	CompactAt     int
	ModelSummary  bool
	LargeResult   int
	Retry         struct {
		Attempts   int
		Backoff    time.Duration
		MaxBackoff time.Duration
	}
}
