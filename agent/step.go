package agent

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// Step is one turn of the model's instructions.
type Step struct {
	// Snippets are Go snippets (from fenced code blocks in the model's
	// text); they run first, in order.
	Snippets []string
	// Calls are tool calls exactly as the model sent them; they run after
	// the snippets, in order. A call to run_go runs its code as a snippet.
	Calls []ToolCall
	// Reason is the model's stated reason for the step, recorded in the
	// history (and in replay code as a comment). Optional.
	Reason string
}

// ToolCall is one call as a model sends it: llm.ToolCall, which is
// run.ToolCall, one type from the provider's answer through the step to
// the log (ID, the action's Name, the Arguments object as text).
type ToolCall = llm.ToolCall

// withRefs is c with the references as resolved, for a person.
func withRefs(c ToolCall, refs map[string]run.VariableRef) *run.ToolCall {
	c.References = refs
	return &c
}

// VariableChange is a variable a call created or changed, as the model sees
// it.
type VariableChange struct {
	// Name is the variable's name.
	Name string `json:"name"`
	// Type is its Go type.
	Type string `json:"type"`
	// Preview is its bounded, redacted preview after the change.
	Preview string `json:"preview"`
	// Change is "created", "assigned" or "modified".
	Change string `json:"change"`
}

// ToolResponse is the outcome of one call, to send back to the model.
type ToolResponse struct {
	// CallID and Name identify the call.
	CallID, Name string
	// Success reports whether the call ran and returned no error.
	Success bool
	// Error says what went wrong and how to fix the call.
	Error string
	// Stdout and Stderr are what the action wrote, bounded.
	Stdout, Stderr string
	// Variables are the variables the call created or changed.
	Variables []VariableChange
	// Result is the result's JSON in plain mode (Options.HideFromAI).
	Result json.RawMessage
	// Duration is how long the call ran.
	Duration time.Duration
	// Resolution is how the call's arguments were resolved (nil when they
	// could not be).
	Resolution *run.Resolution
	// Err is the typed failure behind Error, for the host: a
	// *RefusedError, an *ActionError, or a snippet's error (run_go). It is
	// not sent to the model.
	Err error

	resultVar string // the variable the result went to, for the log
	// start is when the call started, for the log.
	start time.Time
	// sampled is what the call spent of the run's model (an MCP server's
	// sampling requests), for the log and the run's usage.
	sampled llm.Usage
	// ran is what a run_go call ran, for the log; nil for any other
	// call, which keeps the response small.
	ran *ranSnippet
	// Failure is set when the action returned a *run.FailureError: the run
	// fails with it instead of going on.
	Failure *run.FailureError `json:"-"`
}

// ranSnippet is what a run_go call ran: its code, and the variables its
// snippet may have changed when it failed.
type ranSnippet struct {
	snippet *run.Snippet
	left    []VariableChange
}

// snippet returns the code a run_go call ran, or nil.
func (r *ToolResponse) snippet() *run.Snippet {
	if r.ran == nil {
		return nil
	}
	return r.ran.snippet
}

// left returns the variables a failed run_go snippet may have changed.
func (r *ToolResponse) left() []VariableChange {
	if r.ran == nil {
		return nil
	}
	return r.ran.left
}

// completed is the response's record in the log; its Kept is set by the
// caller when the content was kept as a variable.
func (r *ToolResponse) completed() run.ToolCallCompleted {
	return run.ToolCallCompleted{
		CallID: r.CallID, Success: r.Success, Error: r.Error, Duration: r.Duration, Stdout: r.Stdout, Stderr: r.Stderr,
		Created: infos(r.Variables, "created"), Modified: append(infos(r.Variables, "assigned", "modified"), infos(r.left(), "modified")...),
		Resolution: r.Resolution, Result: r.resultVar, Snippet: r.snippet(), Start: r.start, Usage: r.spent(),
	}
}

// spent is the call's sampled usage as the log records it, nil when none.
func (r *ToolResponse) spent() *run.Usage {
	if r.sampled == (llm.Usage{}) {
		return nil
	}
	u := usageEvent(r.sampled)
	return &u
}

// folded is completed for a bare State's history fold, which keeps only
// the variables' names: its Created and Modified are written into *buf,
// reused from one call to the next, instead of slices of their own.
func (r *ToolResponse) folded(buf *[]run.VariableInfo) run.ToolCallCompleted {
	b := (*buf)[:0]
	b = appendInfos(b, r.Variables, "created")
	k := len(b)
	b = appendInfos(b, r.Variables, "assigned", "modified")
	b = appendInfos(b, r.left(), "modified")
	*buf = b
	c := run.ToolCallCompleted{
		CallID: r.CallID, Success: r.Success, Error: r.Error, Duration: r.Duration, Stdout: r.Stdout, Stderr: r.Stderr,
		Resolution: r.Resolution, Result: r.resultVar, Snippet: r.snippet(), Start: r.start,
	}
	if k > 0 {
		c.Created = b[:k:k]
	}
	if len(b) > k {
		c.Modified = b[k:]
	}
	return c
}

// marshal is json.Marshal without HTML escaping, so that <<var:name>> stays
// readable for the model.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// StepResult is the outcome of a step.
type StepResult struct {
	// Step is the step's number, from 1.
	Step int
	// Snippets has one entry per snippet of Step.Snippets, in order.
	Snippets []SnippetResponse
	// Responses has one entry per call, in order.
	Responses []ToolResponse
	// Termination is set when the step called terminate successfully.
	Termination *action.Termination
}

func infos(changes []VariableChange, kinds ...string) []run.VariableInfo {
	return appendInfos(nil, changes, kinds...)
}

// appendInfos is infos appended to out.
func appendInfos(out []run.VariableInfo, changes []VariableChange, kinds ...string) []run.VariableInfo {
	for _, c := range changes {
		for _, k := range kinds {
			if c.Change == k {
				out = append(out, run.VariableInfo{Name: c.Name, Type: c.Type, Preview: c.Preview})
			}
		}
	}
	return out
}

func changes(created, modified []run.VariableInfo) []VariableChange {
	var out []VariableChange
	for _, v := range created {
		out = append(out, VariableChange{Name: v.Name, Type: v.Type, Preview: v.Preview, Change: string(variable.Created)})
	}
	for _, v := range modified {
		out = append(out, VariableChange{Name: v.Name, Type: v.Type, Preview: v.Preview, Change: string(variable.Modified)})
	}
	return out
}

// SnippetResponse is the outcome of one Go snippet, to send back to the
// model.
type SnippetResponse struct {
	// CallID is set when the snippet came through the run_go action.
	CallID string
	// Code is the snippet as run.
	Code string
	// Reads and Writes are the variables the static pass found the snippet
	// reading and writing.
	Reads, Writes []string
	// Success reports whether the snippet compiled and ran to the end.
	Success bool
	// Error says what went wrong, with snippet line:column where known.
	Error string
	// Stdout and Stderr are what the snippet printed, bounded.
	Stdout, Stderr string
	// Variables are the variables the snippet created or changed.
	Variables []VariableChange
	// Duration is how long it ran.
	Duration time.Duration
	// Err is the typed failure behind Error, for the host (for example an
	// *interp.CompileError, or an error wrapping context.DeadlineExceeded);
	// it is not sent to the model.
	Err error

	// start is when the snippet started, for the log.
	start time.Time
	// left are the variables a failed snippet may have changed in place
	// (changes that could not be undone), for the log.
	left []VariableChange
}

// executed is the snippet's record in the log, as the step's instruction
// n; its Kept is set by the caller when the content was kept as a variable.
func (s SnippetResponse) executed(n int) run.SnippetExecuted {
	return run.SnippetExecuted{
		Step: n, Snippet: run.Snippet{Code: s.Code, Reads: s.Reads, Writes: s.Writes},
		Success: s.Success, Error: s.Error, Duration: s.Duration, Stdout: s.Stdout, Stderr: s.Stderr,
		Created: infos(s.Variables, "created"), Modified: append(infos(s.Variables, "assigned", "modified"), infos(s.left, "modified")...),
		Start: s.start,
	}
}
