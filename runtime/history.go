package runtime

import (
	"context"

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
// with no run (Runtime.NewState), of the events its steps would have
// logged, folded as its steps end. A step's instructions appear once the
// step has ended and been recorded. A store that cannot be read gives an
// empty history: use Handle.History for the error.
func (st *State) History() []Instruction {
	h, _ := st.fold(context.Background())
	return h
}

// fold folds the State's log.
func (st *State) fold(ctx context.Context) ([]Instruction, error) {
	st.mu.Lock()
	h := st.run
	if h == nil {
		defer st.mu.Unlock()
		return st.folded.Instructions(), nil
	}
	st.mu.Unlock()
	return h.History(ctx)
}

// History folds the run's log, read from its store, into the instructions
// it executed, in order (run.History); see State.History.
func (h *Handle) History(ctx context.Context) ([]run.Instruction, error) {
	events, err := h.rec.store.Read(ctx, h.id, 1, 0)
	if err != nil {
		return nil, err
	}
	return run.History(events), nil
}

// logStep folds the events of step n of a State with no run (and does
// nothing for a run's State), which has no store: what a run's log would hold of its instructions (the reason, the
// scheduled calls, the snippets' and calls' records). It keeps the fold,
// not the events. Callers hold execMu.
func (st *State) logStep(n int, step Step, res StepResult) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.change1 = nil
	if st.run != nil {
		return // a run's steps are in its log
	}
	f := &st.folded
	if step.Reason != "" {
		f.AssistantMessage(run.AssistantMessage{Step: n, Text: step.Reason})
	}
	for _, c := range step.Calls {
		f.ToolCallScheduled(run.ToolCallScheduled{Step: n, Call: logged(c)})
	}
	for _, s := range res.Snippets {
		f.SnippetExecuted(s.executed(n))
	}
	for i := range res.Responses {
		f.ToolCallCompleted(res.Responses[i].folded(&st.foldBuf))
	}
}
