package runtime

import (
	"encoding/json"
	"time"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// RunOptions configures one run. Only Task (or Input) is needed.
type RunOptions struct {
	// ID is the run's ID. A client-supplied ID makes Start idempotent: a
	// second Start with the same ID returns the existing run. Empty means
	// a new run.NewID().
	ID run.ID
	// Session groups runs into a conversation; Turn is this run's turn.
	Session run.SessionID
	Turn    run.TurnID
	// Name is a human-readable name.
	Name string
	// Tags are queryable key-value pairs.
	Tags map[string]string
	// Task is the initial prompt: what the model is asked to do.
	Task string
	// Message is the protocol message that carried Task, as its client
	// sent it (an A2A message, as JSON), recorded with the run's first
	// run.UserMessage so that a protocol server shows the history as sent;
	// nil for none. The model never reads it.
	Message json.RawMessage
	// Input is structured input, given to the model as JSON and as the
	// variable "input". It is validated against InputSchema when set.
	Input       json.RawMessage
	InputSchema json.RawMessage
	// ResultSchema is the JSON Schema the result must match (see
	// ResultSchemaFor). The terminate action's result follows it.
	ResultSchema json.RawMessage
	// Variables are this run's starting variables, after the agent's
	// (Options.Variables). To start a run from another run's variables,
	// pass that run's State().Specs().
	Variables []variable.Spec
	// Actions is the allow-list of actions attached to the run; empty
	// means all of the runtime's actions. terminate is always attached.
	Actions []string
	// NonInteractive runs refuse follow-ups.
	NonInteractive bool
	// Instructions are added to the system prompt.
	Instructions string
	// Model overrides Options.Model for this run.
	Model llm.Model
	// ModelName is recorded with the run, e.g. "openai:gpt-4o-mini".
	ModelName string
	// Limits bound the run.
	Limits Limits
	// Approval is the approval strategy; "" means ApproveNone.
	Approval Approval
	// AwaitTimeout fails the run when an await (approval, question,
	// authorization, input) is not answered in time. Zero means no limit.
	AwaitTimeout time.Duration
	// ToolLimit offers the model at most this many of the available
	// actions at each step: those whose reference-only parameters a
	// variable made by the run fits, then the most relevant to the
	// conversation (BM25 over names, descriptions and parameter names).
	// Built-ins are always offered. Zero means all.
	ToolLimit int
	// History is earlier conversation (a session's previous turns), sent to
	// the model between the system prompt and the task.
	History []llm.Message

	// Parent links a child run to the tool call of its parent run that
	// started it (AgentAction sets it); nil for a top-level run.
	Parent *Parent
	// Driven runs stop before every model call and every step, at every
	// await and at the end of every turn, and go on only when Advance is
	// called; awaits then keep no timer (Expire ends them). An engine that
	// runs the loop across processes uses it (package temporal); programs
	// that run in one process leave it false.
	Driven bool

	// OnStatus is called after every status change is recorded, on the
	// goroutine that made it (the run's, or Cancel's or Resume's caller),
	// with no lock held: it may call back into the run. It should not
	// block: the run waits for it.
	OnStatus func(run.StatusChanged)
}

// SpecOf returns the serializable spec of a run started with opts: the
// first event of its log. Restore reads it back (OptionsOf); the model,
// the status hook, the starting variables' values and the session history
// are process-local and not in it.
func SpecOf(opts RunOptions) run.RunCreated {
	c := run.RunCreated{
		Name: opts.Name, Session: opts.Session, Turn: opts.Turn, Tags: opts.Tags, Input: opts.Input,
		Options: run.RunOptions{
			Task: opts.Task, Instructions: opts.Instructions, Model: opts.ModelName, Interactive: !opts.NonInteractive,
			Approval: string(opts.Approval), MaxSteps: opts.Limits.withDefaults().MaxSteps, MaxTokens: opts.Limits.MaxTokens,
			ResultRetries: opts.Limits.ResultRetries, ContextWindow: opts.Limits.ContextWindow, ContextShare: opts.Limits.ContextShare,
			CompactAt: opts.Limits.CompactAt, ModelSummary: opts.Limits.ModelSummary, LargeResult: opts.Limits.LargeResult, RetryAttempts: opts.Limits.Retry.Attempts, RetryBackoff: opts.Limits.Retry.Backoff,
			RetryMaxBackoff: opts.Limits.Retry.MaxBackoff, AwaitTimeout: opts.AwaitTimeout, ToolLimit: opts.ToolLimit,
			Driven: opts.Driven, Actions: opts.Actions, InputSchema: opts.InputSchema, ResultSchema: opts.ResultSchema,
		},
	}
	if opts.Parent != nil {
		c.ParentRun, c.ParentToolCall = opts.Parent.RunID, opts.Parent.CallID
	}
	return c
}

// OptionsOf returns the run options recorded in a run's first event, the
// inverse of SpecOf: set the process-local fields (Model, OnStatus,
// History) on the result.
func OptionsOf(id run.ID, c run.RunCreated) RunOptions {
	o := c.Options
	opts := RunOptions{
		ID: id, Session: c.Session, Turn: c.Turn, Name: c.Name, Tags: c.Tags, Task: o.Task, Input: c.Input,
		InputSchema: o.InputSchema, ResultSchema: o.ResultSchema, Actions: o.Actions, NonInteractive: !o.Interactive,
		Instructions: o.Instructions, ModelName: o.Model, Approval: Approval(o.Approval), AwaitTimeout: o.AwaitTimeout,
		ToolLimit: o.ToolLimit, Driven: o.Driven,
		Limits: Limits{
			MaxSteps: o.MaxSteps, MaxTokens: o.MaxTokens, ResultRetries: o.ResultRetries, ContextWindow: o.ContextWindow,
			ContextShare: o.ContextShare, CompactAt: o.CompactAt, ModelSummary: o.ModelSummary, LargeResult: o.LargeResult,
			Retry: llm.RetryPolicy{Attempts: o.RetryAttempts, Backoff: o.RetryBackoff, MaxBackoff: o.RetryMaxBackoff},
		},
	}
	if c.ParentRun != "" {
		opts.Parent = &Parent{RunID: c.ParentRun, CallID: c.ParentToolCall}
	}
	return opts
}

// Structured input is the variable input: the task names it with its
// preview, never pastes it whole (in plain mode, where the model cannot use
// a variable, it gets the JSON, cut to limit bytes).
func taskText(opts RunOptions, plain bool, limit int) string {
	text := opts.Task
	if len(opts.Input) > 0 {
		if text != "" {
			text += "\n\n"
		}
		if plain {
			return text + "Input:\n" + clip(string(opts.Input), limit)
		}
		var v any
		_ = json.Unmarshal(opts.Input, &v)
		text += "Input: the variable input, " + variable.Preview(v, variable.DefaultPreviewLimit)
	}
	return text
}

// Parent links a child run to the tool call of its parent run that
// started it. The IDs are recorded in the child's first event.
type Parent struct {
	// RunID is the parent run's ID; CallID is the ID of its tool call.
	RunID  run.ID
	CallID string
	// Run is the parent run when it goes on in this process: the child's
	// start and end are recorded in its log, and a child of an agent with
	// no store of its own records beside it. Nil when only the IDs are
	// known.
	Run *Handle
}
