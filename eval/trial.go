package eval

import (
	"encoding/json"
	"time"

	"github.com/byref/byref/run"
)

// Trial is one run of a case: how it ended, what it did, and which
// expectations it failed.
type Trial struct {
	// Case is the case's name; Repetition counts from 1.
	Case       string `json:"case"`
	Repetition int    `json:"repetition"`
	// RunID is the run's ID in the runner's store.
	RunID run.ID `json:"run,omitempty"`
	// Status is how the run ended; FailureKind and Reason say why it
	// failed or has no result.
	Status      run.Status      `json:"status,omitempty"`
	FailureKind run.FailureKind `json:"failure_kind,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	// Result is the run's result as JSON; null when it has none.
	Result json.RawMessage `json:"result,omitempty"`
	// Steps counts the model calls; InputTokens, OutputTokens,
	// CacheReadTokens and CacheWriteTokens (the parts of InputTokens read
	// from and written to the provider's prompt cache) and Cost total them
	// (Cost from [Options].Price; 0 without one).
	Steps            int     `json:"steps"`
	InputTokens      int     `json:"input_tokens"`
	OutputTokens     int     `json:"output_tokens"`
	CacheReadTokens  int     `json:"cache_read_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens"`
	Cost             float64 `json:"cost"`
	// Latency is how long the run took, from start to end.
	Latency time.Duration `json:"latency"`
	// Trajectory is what the run did, step by step.
	Trajectory []Step `json:"trajectory,omitempty"`
	// Passed reports that the run met every expectation.
	Passed bool `json:"passed"`
	// Failures are the expectations the run did not meet, with the diff of
	// what was expected and what happened.
	Failures []Failure `json:"failures,omitempty"`
	// Skipped are the expectations not checked, with why (the judge is
	// off by default).
	Skipped []string `json:"skipped,omitempty"`
	// Error is what kept the trial from running or from ending normally: a
	// cassette miss (with its diff), a budget spent, a start refused.
	Error string `json:"error,omitempty"`

	// events is the run's log; leaks says which requests carried a
	// secret.
	events []run.Event
	leaks  []string
}

// Tokens returns the trial's input plus output tokens.
func (t *Trial) Tokens() int { return t.InputTokens + t.OutputTokens }

// Events returns the run's log, for Go predicates.
func (t *Trial) Events() []run.Event { return t.events }

// Failure is an expectation a trial did not meet.
type Failure struct {
	// Expectation describes the expectation, e.g. `result equals 142`.
	Expectation string `json:"expectation"`
	// Diff says what was expected and what happened.
	Diff string `json:"diff"`
}

// Step is one thing a run did: a tool call, a snippet, an answer in text,
// an await.
type Step struct {
	// Step is the model call the entry belongs to.
	Step int `json:"step"`
	// Kind is "call", "snippet", "text" or "await".
	Kind string `json:"kind"`
	// Action and Arguments are the call's action and its arguments as the
	// model sent them; Args how they were resolved.
	Action    string         `json:"action,omitempty"`
	Arguments string         `json:"arguments,omitempty"`
	Args      []run.Argument `json:"args,omitempty"`
	// Code is a snippet's code; Text an answer's text, or what an await
	// asked.
	Code string `json:"code,omitempty"`
	Text string `json:"text,omitempty"`
	// Success and Error are how a call or a snippet went.
	Success bool   `json:"success,omitempty"`
	Error   string `json:"error,omitempty"`
	// Answer is the answer to an await: approved, denied, or the reply.
	Answer string `json:"answer,omitempty"`

	callID string
}

// trajectory reads what a run did from its log.
func trajectory(events []run.Event) []Step {
	var out []Step
	calls := map[string]int{}
	awaits := map[string]int{}
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.AssistantMessage:
			if p.Text != "" {
				out = append(out, Step{Step: p.Step, Kind: "text", Text: p.Text})
			}
		case run.ToolCallScheduled:
			calls[p.Call.ID] = len(out)
			out = append(out, Step{Step: p.Step, Kind: "call", Action: p.Call.Name, Arguments: p.Call.Arguments, callID: p.Call.ID})
		case run.ToolCallCompleted:
			if i, ok := calls[p.CallID]; ok {
				out[i].Success, out[i].Error = p.Success, p.Error
				if p.Resolution != nil {
					out[i].Args = p.Resolution.Args
				}
				if p.Snippet != nil {
					out[i].Code = p.Snippet.Code
				}
			}
		case run.SnippetExecuted:
			out = append(out, Step{Step: p.Step, Kind: "snippet", Code: p.Snippet.Code, Success: p.Success, Error: p.Error})
		case run.AwaitRequested:
			s := Step{Kind: "await", Text: string(p.Await) + ": " + p.Message}
			if p.Call != nil {
				s.Action, s.Arguments = p.Call.Name, p.Call.Arguments
			}
			if p.Snippet != nil {
				s.Code = p.Snippet.Code
			}
			if n := len(out); n > 0 {
				s.Step = out[n-1].Step
			}
			awaits[p.ID] = len(out)
			out = append(out, s)
		case run.AwaitResolved:
			if i, ok := awaits[p.ID]; ok {
				a := string(p.Answer.Decision)
				if a == "" {
					a = p.Answer.Text
				}
				out[i].Answer = a
			}
		}
	}
	return out
}
