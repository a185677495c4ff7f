package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// Errors of Start, FollowUp and Cancel.
var (
	// ErrNoModel: neither Options.Model nor RunOptions.Model is set.
	ErrNoModel = errors.New("runtime: no model; set Options.Model or RunOptions.Model (llm.NewScripted for tests)")
	// ErrRunExists: RunOptions.ID names a run the store already holds and
	// that is not going on in this agent; Restore it instead.
	ErrRunExists = errors.New("runtime: the run already exists")
	// ErrInvalidInput: the input does not match RunOptions.InputSchema.
	ErrInvalidInput = errors.New("runtime: invalid input")
	// ErrNotFollowable: a follow-up was sent to a run that is not completed,
	// or that is non-interactive.
	ErrNotFollowable = errors.New("runtime: the run does not accept follow-ups")
	// ErrTerminal: the run has already ended (completed, failed or
	// canceled), so it cannot be cancelled.
	ErrTerminal = errors.New("runtime: the run has already ended")
)

// Defaults of Limits.
const (
	DefaultMaxSteps      = 25
	DefaultResultRetries = 2
	DefaultContextWindow = 128_000
	DefaultContextShare  = 0.75
	DefaultLargeResult   = 8_000
)

// Limits bound a run. The zero value means the defaults.
type Limits struct {
	// MaxSteps is the number of model calls after which the run (or the
	// turn, after a follow-up) completes with a null result. Zero means
	// DefaultMaxSteps.
	MaxSteps int
	// MaxTokens is the token budget of a turn (input plus output, as the
	// model reports them) after which it completes with a null result.
	// Zero means no budget.
	MaxTokens int64
	// ResultRetries is how many invalid results go back to the model before
	// the run completes with a null result. Zero means
	// DefaultResultRetries; negative means none.
	ResultRetries int
	// ContextWindow is the model's context window, in tokens. Zero means
	// DefaultContextWindow.
	ContextWindow int
	// ContextShare is the share of the window a request may fill before
	// the run compacts its context, between 0 and 1, when CompactAt is
	// zero. Zero, or a value outside that range, means
	// DefaultContextShare.
	ContextShare float64
	// CompactAt is the estimated size of a request, in tokens, past which
	// the run compacts its context before sending it: every message after
	// the task becomes one summary the runtime writes from the log, which
	// names each earlier step's variables by reference with a one-line
	// preview (the values stay in the variables). Zero means ContextShare
	// of ContextWindow.
	CompactAt int
	// ModelSummary adds, at a compaction, a summary the model writes of
	// the messages it folds (one model call without tools) to the one the
	// runtime writes; the log records the whole text. Off by default: the
	// runtime's summary costs no call and names every variable.
	ModelSummary bool
	// LargeResult is the size, in bytes, above which a tool result is
	// kept as a variable and the model gets its preview and reference.
	// Zero means DefaultLargeResult.
	LargeResult int
	// Retry is how model calls are retried on rate limits and provider
	// errors; the zero value is llm.RetryPolicy's default.
	Retry llm.RetryPolicy
}

func (l Limits) withDefaults() Limits {
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	if l.ResultRetries == 0 {
		l.ResultRetries = DefaultResultRetries
	}
	if l.ContextWindow <= 0 {
		l.ContextWindow = DefaultContextWindow
	}
	if l.ContextShare <= 0 || l.ContextShare > 1 {
		l.ContextShare = DefaultContextShare
	}
	if l.CompactAt <= 0 {
		l.CompactAt = int(float64(l.ContextWindow) * l.ContextShare)
	}
	if l.LargeResult <= 0 {
		l.LargeResult = DefaultLargeResult
	}
	return l
}

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

// Outcome is how a run (or its latest turn, after a follow-up) ended.
type Outcome struct {
	// RunID is the run's ID.
	RunID run.ID
	// Status is completed, failed or canceled.
	Status run.Status
	// Result is the result's JSON: the literal null when the run completed
	// without one (it could not do its task, or hit a limit).
	Result json.RawMessage
	// Reason says why the run failed, was canceled, or has a null result.
	Reason string
	// ResultVariable names the variable the model gave as the result by
	// reference, or "".
	ResultVariable string
	// Redacted reports that the result is a secret or derived from one:
	// Result is null for everybody but the host, which reads the value in
	// Go from ResultVariable (variable.As, runtime.Value).
	Redacted bool
	// Steps is the number of model calls made.
	Steps int
	// Usage totals the tokens the model reported, with the parts of the
	// input its provider's prompt cache read and wrote.
	Usage llm.Usage
	// Cost is what Usage cost, in dollars, at the model's price in
	// Options.Prices; 0 when the model has none.
	Cost float64
}

// OK reports whether the run completed with a non-null result.
func (o Outcome) OK() bool {
	return o.Status == run.StatusCompleted && len(o.Result) > 0 && string(o.Result) != "null"
}

// ResultAs decodes an outcome's result into a T.
func ResultAs[T any](o Outcome) (T, error) {
	var v T
	if !o.OK() {
		return v, fmt.Errorf("runtime: run %s has no result (%s: %s)", o.RunID, o.Status, o.Reason)
	}
	if err := json.Unmarshal(o.Result, &v); err != nil {
		return v, fmt.Errorf("runtime: the result of run %s is not a %T: %w", o.RunID, v, err)
	}
	return v, nil
}

// ResultSchemaFor returns the JSON Schema of T, for RunOptions.ResultSchema
// (pair it with ResultAs). It panics if T cannot be JSON, a programmer's
// error.
func ResultSchemaFor[T any]() json.RawMessage {
	s, err := schema.For(reflect.TypeFor[T]())
	if err != nil {
		panic(fmt.Sprintf("runtime.ResultSchemaFor: %v", err))
	}
	return s
}

// Start begins a run on the agent's model and store and returns at once.
// The run goes on in its own goroutine until it ends, is cancelled
// (Handle.Cancel) or the agent is closed: ctx bounds the start only, and
// its values are kept (actions see them through their context). Many runs
// may go on at once; each has its own State.
func (rt *Runtime) Start(ctx context.Context, opts RunOptions) (*Handle, error) {
	h, err := rt.Create(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := h.Begin(ctx); err != nil && !errors.Is(err, errBegun) {
		return nil, err
	}
	return h, nil
}

var errBegun = errors.New("runtime: the run has already begun")

// Begin starts the loop of a run made by Create. As with Start, ctx bounds
// the start only and its values are kept. It returns an error when the run
// is not in the created status (it has begun, or was cancelled).
func (h *Handle) Begin(ctx context.Context) error {
	h.mu.Lock()
	if h.begun {
		h.mu.Unlock()
		return errBegun
	}
	h.begun = true
	h.mu.Unlock()
	if err := h.rec.transition(ctx, run.StatusRunning, ""); err != nil {
		err = fmt.Errorf("runtime: run %s cannot begin: %w", h.id, err)
		h.end(Outcome{Status: h.rec.current(), Reason: err.Error()})
		return err
	}
	if err := h.rec.append(ctx, run.PhaseChanged{To: run.PhasePrompted}, run.UserMessage{Text: taskText(h.opts, h.st.opts.HideFromAI, h.st.opts.MaxMessage), Turn: h.opts.Turn, Message: h.opts.Message}); err != nil {
		h.end(h.storeFault(ctx, err))
		return err
	}
	h.launch(ctx)
	return nil
}

// Create records a new run in the created status without starting it;
// Begin starts it. Start is Create then Begin. A run in the created status
// can be cancelled. The run's spec is recorded whole in its first event
// (run.RunCreated; see SpecOf).
func (rt *Runtime) Create(ctx context.Context, opts RunOptions) (*Handle, error) {
	model := opts.Model
	if model == nil {
		model = rt.opts.Model
	}
	if model == nil {
		return nil, ErrNoModel
	}
	if opts.Task == "" && len(opts.Input) == 0 {
		return nil, errors.New("runtime: RunOptions.Task (or Input) is empty; say what the model should do")
	}
	var resultValidator *schema.Validator
	if len(opts.ResultSchema) > 0 {
		v, err := schema.Compile(opts.ResultSchema)
		if err != nil {
			return nil, fmt.Errorf("runtime: RunOptions.ResultSchema: %w", err)
		}
		resultValidator = v
	}
	var input any
	if len(opts.Input) > 0 {
		if err := json.Unmarshal(opts.Input, &input); err != nil {
			return nil, fmt.Errorf("%w: not JSON: %v", ErrInvalidInput, err)
		}
		if len(opts.InputSchema) > 0 {
			v, err := schema.Compile(opts.InputSchema)
			if err != nil {
				return nil, fmt.Errorf("runtime: RunOptions.InputSchema: %w", err)
			}
			if err := v.Validate(opts.Input); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
			}
		}
	}
	st, err := rt.NewState(opts.Variables...)
	if err != nil {
		return nil, fmt.Errorf("runtime: RunOptions.Variables: %w", err)
	}
	if opts.ID != "" {
		if h, ok := rt.live(opts.ID); ok {
			return h, nil
		}
	}
	id := opts.ID
	if id == "" {
		id = run.NewID()
	}
	store := rt.store
	if opts.Parent != nil && opts.Parent.Run != nil && rt.opts.Store == nil {
		// An agent with no store of its own records its child runs
		// beside their parent.
		store = opts.Parent.Run.rec.store
	}
	sum, isNew, err := store.Create(ctx, run.Event{RunID: id, Data: SpecOf(opts)})
	if err != nil {
		return nil, fmt.Errorf("runtime: creating run %s: %w", id, err)
	}
	if !isNew {
		if h, ok := rt.live(id); ok { // created meanwhile by this agent
			return h, nil
		}
		return nil, fmt.Errorf("%w: run %s is in the store (status %s) but is not going on in this agent; Restore it to continue it", ErrRunExists, id, sum.Status)
	}
	h := &Handle{
		rt: rt, st: st, id: id, model: llm.WithRetry(model, opts.Limits.Retry), opts: opts, result: resultValidator,
		rec:  &recorder{store: store, id: id, last: sum.LastSeq, status: run.StatusCreated, hook: opts.OnStatus},
		done: make(chan struct{}),
	}
	h.drivenBy(opts.Driven)
	st.mu.Lock()
	st.run, st.record = h, runLog{h}
	st.attach(opts.Actions, opts.ResultSchema, !opts.NonInteractive)
	if input != nil {
		if _, _, taken := st.vars.Value(inputVariable); !taken {
			_ = st.define(variable.Spec{Name: inputVariable, Value: input, Description: "the run's structured input"}, st.step, "host")
		}
	}
	h.ctx.starting = st.vars.Names()
	startVars := st.variableEvents(h.ctx.starting, true)
	st.mu.Unlock()

	h.messages = append([]llm.Message{llm.SystemMessage("")}, opts.History...)
	h.messages = append(h.messages, llm.UserMessage(taskText(opts, rt.opts.HideFromAI, rt.opts.MaxMessage)))
	if err := h.rec.append(ctx, startVars...); err != nil {
		_ = h.rec.transition(ctx, run.StatusFailed, "store: "+err.Error())
		return nil, fmt.Errorf("runtime: recording run %s: %w", id, err)
	}
	if err := rt.track(h); err != nil {
		_ = h.rec.transition(ctx, run.StatusFailed, "the agent was closed before the run began")
		return nil, err
	}
	return h, nil
}

// inputVariable is the name of the variable holding a run's structured
// input.
const inputVariable = "input"

// Run starts a run and waits for it to end.
func (rt *Runtime) Run(ctx context.Context, opts RunOptions) (Outcome, error) {
	h, err := rt.Start(ctx, opts)
	if err != nil {
		return Outcome{}, err
	}
	return h.Wait(ctx)
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
