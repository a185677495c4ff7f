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
	// ErrBusy: the runtime already has a run in progress.
	ErrBusy = errors.New("runtime: a run is already in progress on this runtime; wait for it or use another Runtime")
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
	// ContextShare is the share of the window the conversation may fill
	// before the oldest turns are dropped (the system prompt and the task
	// are kept), between 0 and 1. Zero, or a value outside that range,
	// means DefaultContextShare.
	ContextShare float64
	// LargeResult is the size, in characters, above which a tool result is
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
	// Input is structured input, given to the model as JSON and as the
	// variable "input". It is validated against InputSchema when set.
	Input       json.RawMessage
	InputSchema json.RawMessage
	// ResultSchema is the JSON Schema the result must match (see
	// ResultSchemaFor). The terminate action's result follows it.
	ResultSchema json.RawMessage
	// Values are visible to actions through ContextValue but never to the
	// model: a user ID, a tenant, credentials.
	Values map[string]any
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

	// parent links a child run to the call that started it.
	parent *parentLink
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
	// Steps is the number of model calls made.
	Steps int
	// Usage totals the tokens the model reported.
	Usage llm.Usage
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

type valuesKey struct{}

// ContextValue returns the value RunOptions.Values holds for key, as seen by
// an action running in that run.
func ContextValue[T any](ctx context.Context, key string) (T, bool) {
	var zero T
	values, _ := ctx.Value(valuesKey{}).(map[string]any)
	v, ok := values[key].(T)
	if !ok {
		return zero, false
	}
	return v, true
}

// Start begins a run on the runtime's model and store and returns at once;
// the run goes on in its own goroutine until it ends or ctx is cancelled.
// A runtime runs one run at a time (follow-ups continue it).
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

// Begin starts the loop of a run made by Create. Cancelling ctx cancels the
// run (use a context that lives as long as the run should, not a
// request's). It returns an error when the run is not in the created
// status (it has begun, or was cancelled).
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
	if err := h.rec.append(ctx, run.PhaseChanged{To: run.PhasePrompted}, run.UserMessage{Text: taskText(h.opts), Turn: h.opts.Turn}); err != nil {
		h.end(h.storeFault(ctx, err))
		return err
	}
	h.launch(ctx)
	return nil
}

// Create records a new run in the created status without starting it;
// Begin starts it. Start is Create then Begin. A run in the created status
// can be cancelled.
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

	rt.runMu.Lock()
	defer rt.runMu.Unlock()
	if opts.ID != "" {
		if h, ok := rt.runs[opts.ID]; ok {
			return h, nil
		}
	}
	if rt.active != nil && !rt.active.finished() {
		return nil, ErrBusy
	}
	id := opts.ID
	if id == "" {
		id = run.NewID()
	}
	store := rt.store()
	created := run.RunCreated{
		Name: opts.Name, Session: opts.Session, Turn: opts.Turn, Tags: opts.Tags, Input: opts.Input,
		ParentRun: parentRun(opts), ParentToolCall: parentCall(opts),
		Options: run.RunOptions{
			Model: opts.ModelName, Interactive: !opts.NonInteractive, Approval: string(opts.Approval), MaxSteps: opts.Limits.withDefaults().MaxSteps,
			MaxTokens: opts.Limits.MaxTokens, Actions: opts.Actions, InputSchema: opts.InputSchema, ResultSchema: opts.ResultSchema,
		},
	}
	sum, isNew, err := store.Create(ctx, run.Event{RunID: id, Data: created})
	if err != nil {
		return nil, fmt.Errorf("runtime: creating run %s: %w", id, err)
	}
	if !isNew {
		return nil, fmt.Errorf("runtime: run %s already exists in the store (status %s) but was not started by this runtime", id, sum.Status)
	}
	h := &Handle{
		rt: rt, id: id, model: llm.WithRetry(model, opts.Limits.Retry), opts: opts, result: resultValidator,
		rec:  &recorder{store: store, id: id, last: sum.LastSeq, status: run.StatusCreated, hook: opts.OnStatus},
		done: make(chan struct{}),
	}
	h.drivenBy(opts.Driven)
	rt.mu.Lock()
	rt.attach(opts.Actions, opts.ResultSchema, !opts.NonInteractive)
	if input != nil {
		// The variable input is the run's: a later run's input replaces
		// an earlier run's, never a variable of the host's.
		if _, _, taken := rt.vars.Value(inputVariable); !taken || rt.inputOwned {
			if err := rt.define(variable.Spec{Name: inputVariable, Value: input, Description: "the run's structured input"}, rt.step, "host"); err == nil {
				rt.inputOwned = true
			}
		}
	}
	startVars := rt.variableEvents(rt.vars.Names(), true)
	rt.mu.Unlock()

	h.messages = append([]llm.Message{llm.SystemMessage("")}, opts.History...)
	h.messages = append(h.messages, llm.UserMessage(taskText(opts)))
	if err := h.rec.append(ctx, startVars...); err != nil {
		_ = h.rec.transition(ctx, run.StatusFailed, "store: "+err.Error())
		return nil, fmt.Errorf("runtime: recording run %s: %w", id, err)
	}
	// Registered only once recorded: a failed Create leaves the runtime
	// free for another run.
	if rt.runs == nil {
		rt.runs = map[run.ID]*Handle{}
	}
	rt.runs[id] = h
	rt.active = h
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

func parentRun(opts RunOptions) run.ID {
	if opts.parent == nil {
		return ""
	}
	return opts.parent.run
}

func parentCall(opts RunOptions) string {
	if opts.parent == nil {
		return ""
	}
	return opts.parent.callID
}

func taskText(opts RunOptions) string {
	text := opts.Task
	if len(opts.Input) > 0 {
		if text != "" {
			text += "\n\n"
		}
		text += "Input (also the variable input):\n" + string(opts.Input)
	}
	return text
}
