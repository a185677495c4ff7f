package agent

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// RunOptions configures one run. Only Task (or Input) is needed:
//
//	a.Run(ctx, agent.RunOptions{Task: "What is the weather?"})
//
// Its first fields are those of a [run.Spec], the declaration of the run
// that its log records ([RunOptions.Spec] returns them); a test keeps the
// two alike. The other fields are the run's identity, which its first
// event records beside the Spec, and what stays in the process: the model,
// the starting variables' values, the session's history, the parent's
// handle and the status hook. A RunOptions does not marshal as JSON
// (MarshalJSON says what to marshal instead): its Spec, SpecOf's event or
// temporal.SpecOf do.
type RunOptions struct {
	// Task is the initial prompt: what the model is asked to do.
	Task string
	// Instructions are added to the system prompt.
	Instructions string
	// ModelName names the model, as "provider:model", for the record (the
	// model itself is Model, or the agent's).
	ModelName string
	// Approval is the approval strategy; "" means ApproveNone.
	Approval Approval
	// NonInteractive runs refuse follow-ups.
	NonInteractive bool
	// Limits bound the run; the zero value means the agent's defaults.
	Limits
	// AwaitTimeout fails the run when an await (approval, question,
	// authorization, input) is not answered in time. Zero means no limit.
	AwaitTimeout time.Duration
	// ToolLimit offers the model at most this many of the available
	// actions at each step: those whose reference-only parameters a
	// variable made by the run fits, then the most relevant to the
	// conversation (BM25 over names, descriptions and parameter names).
	// Built-ins are always offered. Zero means all.
	ToolLimit int
	// Driven runs stop before every model call and every step, at every
	// await and at the end of every turn, and go on only when the engine
	// that drives them says so (Advance); awaits then keep no timer. An
	// engine that runs the loop across processes sets it (package
	// temporal); programs that run in one process leave it false.
	Driven bool
	// Actions is the allow-list of actions attached to the run; empty
	// means all of the agent's actions. terminate is always attached.
	Actions []string
	// InputSchema is the JSON Schema Input is validated against; nil for
	// none.
	InputSchema json.RawMessage
	// ResultSchema is the JSON Schema the result must match. The
	// terminate action's result follows it.
	ResultSchema json.RawMessage

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
	// Message is the protocol message that carried Task, as its client
	// sent it (an A2A message, as JSON), recorded with the run's first
	// run.UserMessage so that a protocol server shows the history as sent;
	// nil for none. The model never reads it.
	Message json.RawMessage
	// Input is structured input, given to the model as JSON and as the
	// variable "input". It is validated against InputSchema when set.
	Input json.RawMessage
	// Variables are this run's starting variables, after the agent's
	// (Options.Variables). To start a run from another run's variables,
	// pass that run's State().Specs().
	Variables []variable.Spec
	// Model overrides Options.Model for this run (ModelName names it in
	// the log).
	Model llm.Model
	// History is earlier conversation (a session's previous turns), sent to
	// the model between the system prompt and the task.
	History []llm.Message
	// NoSessionVariables starts the run without the variables its
	// session's earlier runs left (by default a run with a Session starts
	// with them; see "Sessions" in the package documentation).
	NoSessionVariables bool

	// Parent links a child run to the tool call of its parent run that
	// started it (AsAction sets it); nil for a top-level run.
	Parent *Parent

	// OnStatus is called after every status change is recorded, on the
	// goroutine that made it (the run's, or Cancel's or Resume's caller),
	// with no lock held: it may call back into the run. It should not
	// block: the run waits for it.
	OnStatus func(run.StatusChanged)

	// gone names the session's variables that did not come back, for the
	// system prompt (session.go).
	gone []string
}

// Spec returns the part of opts that the run's log records: the fields
// RunOptions shares with run.Spec.
func (opts RunOptions) Spec() run.Spec {
	return run.Spec{
		Task: opts.Task, Instructions: opts.Instructions, ModelName: opts.ModelName, Approval: opts.Approval,
		NonInteractive: opts.NonInteractive, Limits: opts.Limits, AwaitTimeout: opts.AwaitTimeout, ToolLimit: opts.ToolLimit,
		Driven: opts.Driven, Actions: opts.Actions, InputSchema: opts.InputSchema, ResultSchema: opts.ResultSchema,
	}
}

// withSpec returns opts with the fields of s.
func (opts RunOptions) withSpec(s run.Spec) RunOptions {
	opts.Task, opts.Instructions, opts.ModelName, opts.Approval = s.Task, s.Instructions, s.ModelName, s.Approval
	opts.NonInteractive, opts.Limits, opts.AwaitTimeout, opts.ToolLimit = s.NonInteractive, s.Limits, s.AwaitTimeout, s.ToolLimit
	opts.Driven, opts.Actions, opts.InputSchema, opts.ResultSchema = s.Driven, s.Actions, s.InputSchema, s.ResultSchema
	return opts
}

// errNotJSON is the error of RunOptions' MarshalJSON and UnmarshalJSON.
var errNotJSON = errors.New("agent: RunOptions is not JSON: its Model, Variables' Go values, Parent and OnStatus stay in the process, " +
	"and without them it would lose its identity and history silently; marshal opts.Spec() (the run.Spec a run's log records), " +
	"agent.SpecOf(opts) (the run's first event, identity included) or temporal.SpecOf(opts) (all that can travel), " +
	"and unmarshal into a run.Spec or read a run.RunCreated back with agent.OptionsOf")

// MarshalJSON refuses: a RunOptions holds what cannot be written (the
// model, the starting variables' Go values, the status hook), and marshal
// without them would drop its identity and history without a word. The
// error names what to marshal instead: opts.Spec(), SpecOf(opts) or
// temporal.SpecOf(opts).
func (RunOptions) MarshalJSON() ([]byte, error) { return nil, errNotJSON }

// UnmarshalJSON refuses, as MarshalJSON does: unmarshal into a run.Spec, or
// read a run's first event (run.RunCreated) and use OptionsOf.
func (*RunOptions) UnmarshalJSON([]byte) error { return errNotJSON }

// SpecOf returns the serializable spec of a run started with opts: the
// first event of its log. Restore reads it back (OptionsOf); the model,
// the status hook, the starting variables' values and the session history
// are process-local and not in it. The step limit is recorded with its
// default applied.
func SpecOf(opts RunOptions) run.RunCreated {
	c := run.RunCreated{Name: opts.Name, Session: opts.Session, Turn: opts.Turn, Tags: opts.Tags, Input: opts.Input, Options: opts.Spec()}
	c.Options.MaxSteps = withDefaults(opts.Limits).MaxSteps
	if opts.Parent != nil {
		c.ParentRun, c.ParentToolCall = opts.Parent.RunID, opts.Parent.CallID
	}
	return c
}

// OptionsOf returns the run options recorded in a run's first event, the
// inverse of SpecOf: set the process-local fields (Model, OnStatus,
// History) on the result.
func OptionsOf(id run.ID, c run.RunCreated) RunOptions {
	opts := RunOptions{ID: id, Session: c.Session, Turn: c.Turn, Name: c.Name, Tags: c.Tags, Input: c.Input}.withSpec(c.Options)
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
