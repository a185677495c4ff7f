package run

import (
	"encoding/json"
	"time"
)

// Spec declares a run: what its log records, the one type from the host to
// the log. agent.RunOptions holds the same fields and adds what stays in
// the process (the model, the starting variables' values, the session's
// history, hooks); its Spec method returns this part, and [RunCreated]
// records it whole. Restore, the server
// and workflow engines read it from the log instead of being handed the
// options again. The run's identity (name, session, turn, tags, input,
// parent) is recorded beside it, in RunCreated. Only Task (or an input) is
// needed; the zero value of every other field is documented.
type Spec struct {
	// Task is the initial prompt: what the model is asked to do.
	Task string `json:"task,omitempty"`
	// Instructions are added to the system prompt.
	Instructions string `json:"instructions,omitempty"`
	// ModelName names the model, as "provider:model", for the record (the
	// model itself is the runtime's).
	ModelName string `json:"model,omitempty"`
	// Approval is the approval strategy; "" means ApproveNone.
	Approval Approval `json:"approval,omitempty"`
	// NonInteractive runs refuse follow-ups. (The log records the
	// opposite, "interactive", as it always has.)
	NonInteractive bool `json:"-"`
	// Limits bound the run; the zero value means the runtime's defaults.
	Limits
	// AwaitTimeout fails the run when an await (approval, question,
	// authorization, input) is not answered in time. Zero means no limit.
	AwaitTimeout time.Duration `json:"await_timeout,omitempty"`
	// ToolLimit offers the model at most this many of the available
	// actions at each step: those whose reference-only parameters a
	// variable made by the run fits, then the most relevant to the
	// conversation (BM25 over names, descriptions and parameter names).
	// Built-ins are always offered. Zero means all.
	ToolLimit int `json:"tool_limit,omitempty"`
	// Driven runs stop before every model call and every step, at every
	// await and at the end of every turn, and go on only when the engine
	// that drives them says so; awaits then keep no timer. An engine that
	// runs the loop across processes sets it (package temporal); programs
	// that run in one process leave it false.
	Driven bool `json:"driven,omitempty"`
	// Actions is the allow-list of actions attached to the run; empty
	// means all of the runtime's actions. terminate is always attached.
	Actions []string `json:"actions,omitempty"`
	// InputSchema is the JSON Schema the run's input is validated against;
	// nil for none.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// ResultSchema is the JSON Schema the result must match. The
	// terminate action's result follows it.
	ResultSchema json.RawMessage `json:"result_schema,omitempty"`
}

// Approval is a run's approval strategy.
type Approval string

// The approval strategies.
const (
	// ApproveNone runs everything without asking (the default), except
	// actions declared with NeedsApproval.
	ApproveNone Approval = "none"
	// ApproveOnStart has the model state a plan first; nothing runs until a
	// human approves it.
	ApproveOnStart Approval = "on_start"
	// ApproveOnToolCall asks before every tool call and every snippet.
	ApproveOnToolCall Approval = "on_tool_call"
)

// Limits bound a run. The zero value of each field means the runtime's
// default (agent.DefaultMaxSteps and the others).
type Limits struct {
	// MaxSteps is the number of model calls after which the run (or the
	// turn, after a follow-up) completes with a null result. Zero means
	// the default.
	MaxSteps int `json:"max_steps,omitempty"`
	// MaxTokens is the token budget of a turn (input plus output, as the
	// model reports them) after which it completes with a null result.
	// Zero means no budget.
	MaxTokens int64 `json:"max_tokens,omitempty"`
	// ResultRetries is how many invalid results go back to the model before
	// the run completes with a null result. Zero means the default;
	// negative means none.
	ResultRetries int `json:"result_retries,omitempty"`
	// ContextWindow is the model's context window, in tokens. Zero means
	// the default.
	ContextWindow int `json:"context_window,omitempty"`
	// ContextShare is the share of the window a request may fill before
	// the run compacts its context, between 0 and 1, when CompactAt is
	// zero. Zero, or a value outside that range, means the default.
	ContextShare float64 `json:"context_share,omitempty"`
	// CompactAt is the estimated size of a request, in tokens, past which
	// the run compacts its context before sending it: every message after
	// the task becomes one summary the runtime writes from the log, which
	// names each earlier step's variables by reference with a one-line
	// preview (the values stay in the variables). Zero means ContextShare
	// of ContextWindow.
	CompactAt int `json:"compact_at,omitempty"`
	// ModelSummary adds, at a compaction, a summary the model writes of
	// the messages it folds (one model call without tools) to the one the
	// runtime writes; the log records the whole text. Off by default: the
	// runtime's summary costs no call and names every variable.
	ModelSummary bool `json:"model_summary,omitempty"`
	// LargeResult is the size, in bytes, above which a tool result is
	// kept as a variable and the model gets its preview and reference.
	// Zero means the default.
	LargeResult int `json:"large_result,omitempty"`
	// Retry is how model calls are retried on rate limits and provider
	// errors; the zero value is RetryPolicy's default.
	Retry RetryPolicy `json:"retry,omitzero"`
}

// RetryPolicy bounds the retries of model calls (llm.WithRetry, whose
// llm.RetryPolicy it is). The zero value means 3 attempts, a first delay
// of 500ms doubling up to 30s.
type RetryPolicy struct {
	// Attempts is the total number of calls, the first included; 0 means 3,
	// and 1 means no retry.
	Attempts int `json:"attempts,omitempty"`
	// Backoff is the delay before the first retry, doubled before each next
	// one; 0 means 500ms. Each delay gets up to 20% random jitter.
	Backoff time.Duration `json:"backoff,omitempty"`
	// MaxBackoff caps every delay, a provider's Retry-After included; 0
	// means 30s.
	MaxBackoff time.Duration `json:"max_backoff,omitempty"`
}

// specJSON is how the log writes a Spec: its fields as they are
// tagged, but for two that the log has always spelled differently, so that
// logs written before and after read alike: "interactive", the opposite of
// NonInteractive, and the retry policy as three flat fields. Retry, at the
// top level, hides Limits.Retry's "retry" (encoding/json lets the
// shallower of two fields with one name win), and is always empty.
type specJSON struct {
	specFields
	Interactive     bool          `json:"interactive,omitempty"`
	RetryAttempts   int           `json:"retry_attempts,omitempty"`
	RetryBackoff    time.Duration `json:"retry_backoff,omitempty"`
	RetryMaxBackoff time.Duration `json:"retry_max_backoff,omitempty"`
	Retry           *struct{}     `json:"retry,omitempty"`
}

// specFields is Spec without its methods.
type specFields Spec

// MarshalJSON writes o as the log records it (see Spec).
func (o Spec) MarshalJSON() ([]byte, error) {
	r := o.Retry
	return json.Marshal(specJSON{specFields: specFields(o), Interactive: !o.NonInteractive,
		RetryAttempts: r.Attempts, RetryBackoff: r.Backoff, RetryMaxBackoff: r.MaxBackoff})
}

// UnmarshalJSON reads o as the log records it.
func (o *Spec) UnmarshalJSON(b []byte) error {
	var w specJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*o = Spec(w.specFields)
	o.NonInteractive = !w.Interactive
	o.Retry = RetryPolicy{Attempts: w.RetryAttempts, Backoff: w.RetryBackoff, MaxBackoff: w.RetryMaxBackoff}
	return nil
}
