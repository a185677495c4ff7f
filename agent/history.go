package agent

import (
	"context"
	"errors"
	"sync"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// InstructionKind says what kind of instruction a history entry records
// (run.InstructionKind: the history is a fold of the run's log).
type InstructionKind = run.InstructionKind

// The kinds of instruction.
const (
	// KindCall is a JSON tool call.
	KindCall = run.KindCall
	// KindSnippet is a Go snippet.
	KindSnippet = run.KindSnippet
)

// Argument is one argument of a recorded call, as it was resolved: the
// log's record (run.Argument).
type Argument = run.Argument

// Instruction is one executed instruction of the step history
// (run.Instruction), folded from the run's log by run.History.
type Instruction = run.Instruction

// History returns every executed instruction, failed ones included (with
// Err set), in execution order. It is a fold of the run's log
// (run.History): for a run, of the events in its store, so that a run
// restored after a restart has the steps it made before it; for a State
// with no run (Agent.NewState), of the events its steps would have
// logged, folded as its steps end. A step's instructions appear once the
// step has ended and been recorded. A run's history has the steps its
// model asked for, not those a host gave its State with Execute. A store
// that cannot be read gives an empty history: use Handle.History for the
// error.
func (st *State) History() []Instruction {
	h, _ := st.fold(context.Background())
	return h
}

// fold folds the State's log.
func (st *State) fold(ctx context.Context) ([]Instruction, error) {
	st.mu.Lock()
	l := st.s.ownLog()
	st.mu.Unlock()
	return l.history(ctx)
}

// ownLog returns the State's own log, which History reads and a step
// with no gate (a host's Execute) is recorded in: a bare State folds its
// own steps (foldLog); a State a run holds has that run's log in its
// store (storeLog), which only the run's loop writes.
func (sc *scope) ownLog() stepLog {
	if sc.record == nil {
		sc.record = &foldLog{}
	}
	return sc.record
}

// runLog is a run's log, in its store, whose fold is its conversation
// with the model: where the steps the run's loop asks for (through its
// gate) are recorded.
type runLog struct{ h *Handle }

// step appends step n's records to the run's log (what its snippets and
// calls did, the variables they changed, the results kept as variables),
// which gives their results to the model: the run's conversation applies
// them as they are appended. The model's answer that asked for
// the step (its message and the calls it scheduled) is in the log
// already: the loop recorded it before the step ran, so that a restored
// run knows what was under way. A run that failed during the step (an
// await timed out) or whose agent was closed records nothing: what the
// step's calls say then is not what they did, and a restored run must not
// find an awaited call failed.
func (l runLog) step(ctx context.Context, _ int, _ Step, res StepResult) error {
	h := l.h
	if h.awaits.fatalReason() != "" || errors.Is(context.Cause(ctx), ErrClosed) {
		return nil
	}
	if err := h.rec.append(ctx, h.st.stepEvents(res, withDefaults(h.opts.Limits))...); err != nil {
		return err
	}
	// What the step's calls spent of the run's model counts in its usage
	// once their records are in the log.
	for _, r := range res.Responses {
		if r.sampled != (llm.Usage{}) {
			h.mu.Lock()
			h.usage = h.usage.Add(r.sampled)
			h.mu.Unlock()
		}
	}
	return nil
}

func (l runLog) history(ctx context.Context) ([]Instruction, error) { return l.h.History(ctx) }

// storeLog is a run's log as the State the run holds knows it: where it
// is (the run's store and ID), to read the run's history back from; the
// State keeps no link to the run itself. It records no step: the run's
// steps are recorded by its loop (runLog), and a host's Execute on the
// run's State is not one of them: the model did not ask for it, so
// neither the run's log nor its conversation gets it.
type storeLog struct {
	store run.Store
	id    run.ID
}

func (storeLog) step(context.Context, int, Step, StepResult) error { return nil }

func (l storeLog) history(ctx context.Context) ([]Instruction, error) {
	events, err := l.store.Read(ctx, l.id, 1, 0)
	if err != nil {
		return nil, err
	}
	return run.History(events), nil
}

// foldLog is the log of a State with no run, which has no store: the fold
// of the events its steps would have logged (the reason, the scheduled
// calls, the snippets' and calls' records), not the events.
type foldLog struct {
	mu     sync.Mutex
	folded run.HistoryFolder
	// buf holds the variables of the call being folded.
	buf []run.VariableInfo
}

// step folds step n: the events a run would have logged, its reason and
// scheduled calls included.
func (l *foldLog) step(_ context.Context, n int, step Step, res StepResult) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := &l.folded
	if step.Reason != "" {
		f.AssistantMessage(run.AssistantMessage{Step: n, Text: step.Reason})
	}
	for _, c := range step.Calls {
		f.ToolCallScheduled(run.ToolCallScheduled{Step: n, Call: c})
	}
	for _, s := range res.Snippets {
		f.SnippetExecuted(s.executed(n))
	}
	for i := range res.Responses {
		f.ToolCallCompleted(res.Responses[i].folded(&l.buf))
	}
	return nil
}

func (l *foldLog) history(context.Context) ([]Instruction, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.folded.Instructions(), nil
}

// History folds the run's log, read from its store, into the instructions
// it executed, in order (run.History); see State.History.
func (h *Handle) History(ctx context.Context) ([]run.Instruction, error) {
	return storeLog{store: h.rec.store, id: h.id}.history(ctx)
}
