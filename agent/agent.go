package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// Start begins a run on the agent's model and store and returns at once.
// The run goes on in its own goroutine until it ends, is cancelled
// (Handle.Cancel) or the agent is closed: ctx bounds the start only, and
// its values are kept (actions see them through their context). Many runs
// may go on at once; each has its own State.
func (rt *Agent) Start(ctx context.Context, opts RunOptions) (*Handle, error) {
	h, err := rt.Create(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := h.Begin(ctx); err != nil && !errors.Is(err, errBegun) {
		return nil, err
	}
	return h, nil
}

var errBegun = errors.New("agent: the run has already begun")

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
	// The task, the conversation's first user message, is recorded with
	// the move that begins the run: a run restored after it has it.
	if err := h.rec.transitionFrom(ctx, run.StatusCreated, run.StatusRunning, "", nil, h.task()...); err != nil {
		err = fmt.Errorf("agent: run %s cannot begin: %w", h.id, err)
		h.end(Outcome{Status: h.rec.current(), Reason: err.Error()})
		return err
	}
	h.launch(ctx)
	return nil
}

// task is what records the run's task: the conversation's first user
// message.
func (h *Handle) task() []run.Payload {
	return []run.Payload{run.PhaseChanged{To: run.PhasePrompted}, run.UserMessage{Text: taskText(h.opts, h.st.opts.HideFromAI, h.st.opts.MaxMessage), Turn: h.opts.Turn, Message: h.opts.Message}}
}

// Create records a new run in the created status without starting it;
// Begin starts it. Start is Create then Begin. A run in the created status
// can be cancelled. The run's spec is recorded whole in its first event
// (run.RunCreated; see SpecOf).
func (rt *Agent) Create(ctx context.Context, opts RunOptions) (*Handle, error) {
	model := opts.Model
	if model == nil {
		model = rt.opts.Model
	}
	if model == nil {
		return nil, ErrNoModel
	}
	if opts.Task == "" && len(opts.Input) == 0 {
		return nil, errors.New("agent: RunOptions.Task (or Input) is empty; say what the model should do")
	}
	var resultValidator *schema.Validator
	if len(opts.ResultSchema) > 0 {
		v, err := schema.Compile(opts.ResultSchema)
		if err != nil {
			return nil, fmt.Errorf("agent: RunOptions.ResultSchema: %w", err)
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
				return nil, fmt.Errorf("agent: RunOptions.InputSchema: %w", err)
			}
			if err := v.Validate(opts.Input); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
			}
		}
	}
	sess, err := rt.startSession(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("agent: reading session %s: %w", opts.Session, err)
	}
	opts.gone = sess.gone
	st, err := rt.NewState(append(sess.specs, opts.Variables...)...)
	if err != nil {
		return nil, fmt.Errorf("agent: RunOptions.Variables: %w", err)
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
	sum, isNew, err := store.Create(ctx, run.Event{RunID: id, Payload: SpecOf(opts)})
	if err != nil {
		return nil, fmt.Errorf("agent: creating run %s: %w", id, err)
	}
	if !isNew {
		if h, ok := rt.live(id); ok { // created meanwhile by this agent
			return h, nil
		}
		return nil, fmt.Errorf("%w: run %s is in the store (status %s) but is not going on in this agent; Restore it to continue it", ErrRunExists, id, sum.Status)
	}
	h := &Handle{
		rt: rt, st: st, id: id, model: llm.WithRetry(model, opts.Limits.Retry), opts: opts, result: resultValidator,
		rec:     &recorder{store: store, id: id, last: sum.LastSeq, status: run.StatusCreated},
		done:    make(chan struct{}),
		awaited: make(chan struct{}, 1),
	}
	runConversation(h)
	h.rec.hook = h.statusHook(opts.OnStatus)
	h.drivenBy(opts.Driven)
	h.awaits = newAwaits(h.rec, h.drive, &h.opts)
	st.mu.Lock()
	st.s.record = storeLog{store: h.rec.store, id: h.id}
	st.s.attach(opts.Actions, opts.ResultSchema, !opts.NonInteractive)
	if input != nil {
		if _, _, taken := st.s.vars.Value(inputVariable); !taken {
			_ = st.s.define(variable.Spec{Name: inputVariable, Value: input, Description: "the run's structured input"}, st.s.step, "host")
		}
	}
	startVars := st.s.variableEvents(st.s.vars.Names(), true) // which the conversation folds as its starting variables
	st.mu.Unlock()

	if err := h.rec.append(ctx, startVars...); err != nil {
		_ = h.rec.transition(ctx, run.StatusFailed, "store: "+err.Error())
		return nil, fmt.Errorf("agent: recording run %s: %w", id, err)
	}
	if err := rt.track(h); err != nil {
		_ = h.rec.transition(ctx, run.StatusFailed, "the agent was closed before the run began")
		return nil, err
	}
	return h, nil
}

// startSession returns the variables a run of a session starts with (see
// sessions.start): those its session's earlier runs left, but the run's
// own (RunOptions.Variables, and its input).
func (rt *Agent) startSession(ctx context.Context, opts RunOptions) (sessionStart, error) {
	own := make([]string, 0, len(opts.Variables)+1)
	for _, s := range opts.Variables {
		own = append(own, s.Name)
	}
	if len(opts.Input) > 0 {
		own = append(own, inputVariable)
	}
	return rt.sessions.start(ctx, rt.store, opts, own, func(id run.ID, name string) (variable.Variable, bool) {
		if h, ok := rt.live(id); ok {
			return h.st.Variable(name)
		}
		return variable.Variable{}, false
	})
}

// inputVariable is the name of the variable holding a run's structured
// input.
const inputVariable = "input"

// Run starts a run and waits until it ends, or until it awaits an answer
// that Options.Answer does not give (the approval of an action declared
// NeedsApproval, a question to the user): then the Outcome's Status is
// awaiting, its Await says what the run awaits, and Resume answers it and
// waits again. When ctx is done first, Run returns the run's ID and status
// with ctx's error; the run goes on (Handle.Cancel, or Close, ends it).
func (rt *Agent) Run(ctx context.Context, opts RunOptions) (Outcome, error) {
	h, err := rt.Start(ctx, opts)
	if err != nil {
		return Outcome{}, err
	}
	return h.settle(ctx)
}
