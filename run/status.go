package run

import (
	"errors"
	"fmt"
	"strings"
)

// Status is where a run is in its lifecycle. The legal moves between
// statuses are listed by [CanTransition]:
//
//	created → running → (awaiting ↔ running)* → completed | failed
//	completed → running                         (a follow-up message)
//	created | running | awaiting → cancelling → canceled
//	created | awaiting → failed                 (a start fault, an await timeout)
type Status string

// The statuses of a run.
const (
	// StatusCreated is a run that has been recorded but not started.
	StatusCreated Status = "created"
	// StatusRunning is a run whose agent loop is working.
	StatusRunning Status = "running"
	// StatusAwaiting is a run paused for a human or an external system: an
	// approval, an answer, an authorization or input (see [AwaitRequested]).
	StatusAwaiting Status = "awaiting"
	// StatusCompleted is a run that finished, with a result or with a null
	// one when it could not do its task. A follow-up message moves it back
	// to running.
	StatusCompleted Status = "completed"
	// StatusFailed is a run stopped by a fault of the runtime, the model
	// provider or the store, or by an await that timed out. It is final.
	StatusFailed Status = "failed"
	// StatusCancelling is a run whose cancellation was requested and whose
	// running actions and snippets have not all returned yet.
	StatusCancelling Status = "cancelling"
	// StatusCanceled is a cancelled run. It is final.
	StatusCanceled Status = "canceled"
)

// Statuses returns every status, in lifecycle order.
func Statuses() []Status {
	return []Status{StatusCreated, StatusRunning, StatusAwaiting, StatusCompleted,
		StatusFailed, StatusCancelling, StatusCanceled}
}

// Valid reports whether s is one of the statuses above.
func (s Status) Valid() bool {
	_, ok := transitions[s]
	return ok
}

// Terminal reports whether s ends the run's activity: completed, failed or
// canceled. A completed run can still be reopened by a follow-up; failed and
// canceled are final.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCanceled
}

// Final reports whether no transition leaves s: failed and canceled.
func (s Status) Final() bool {
	return s.Valid() && len(transitions[s]) == 0
}

// transitions lists the legal targets of each status, in the order the
// error messages name them.
var transitions = map[Status][]Status{
	StatusCreated:    {StatusRunning, StatusFailed, StatusCancelling},
	StatusRunning:    {StatusAwaiting, StatusCompleted, StatusFailed, StatusCancelling},
	StatusAwaiting:   {StatusRunning, StatusFailed, StatusCancelling},
	StatusCompleted:  {StatusRunning},
	StatusFailed:     nil,
	StatusCancelling: {StatusCanceled},
	StatusCanceled:   nil,
}

// CanTransition reports whether a run may move from one status to another.
// Moving to the same status is never a transition.
//
// created → failed is legal so that a run whose start fails (its model
// cannot be reached, its store refuses the first write) fails with a reason
// instead of staying created forever. cancelling leads only to canceled:
// once cancellation is requested, a run that finishes its last step anyway
// still ends canceled.
func CanTransition(from, to Status) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

// Transition returns nil if a run may move from one status to another, and
// otherwise a [*TransitionError] that unwraps to [ErrIllegalTransition].
func Transition(from, to Status) error {
	if CanTransition(from, to) {
		return nil
	}
	return &TransitionError{From: from, To: to}
}

// ErrIllegalTransition is the condition of every [*TransitionError].
var ErrIllegalTransition = errors.New("run: illegal status transition")

// TransitionError is a refused status transition.
type TransitionError struct {
	From, To Status
}

// Error names the refused move and the legal ones.
func (e *TransitionError) Error() string {
	if !e.From.Valid() {
		return fmt.Sprintf("run: cannot move from unknown status %q to %q", e.From, e.To)
	}
	next := transitions[e.From]
	if len(next) == 0 {
		return fmt.Sprintf("run: cannot move from %s to %s: %s is final", e.From, e.To, e.From)
	}
	names := make([]string, len(next))
	for i, s := range next {
		names[i] = string(s)
	}
	return fmt.Sprintf("run: cannot move from %s to %s; from %s a run can move to: %s",
		e.From, e.To, e.From, strings.Join(names, ", "))
}

// Unwrap returns [ErrIllegalTransition].
func (e *TransitionError) Unwrap() error { return ErrIllegalTransition }

// Phase refines [StatusRunning]: where the agent loop is within a step.
// Phases are free to change in any order while a run is running; they are for
// display and carry no rules.
type Phase string

// The phases of a running run.
const (
	// PhasePrompted: input (a task or a follow-up) arrived and the loop is
	// about to ask the model.
	PhasePrompted Phase = "prompted"
	// PhasePlanning: the model is deciding what to do next.
	PhasePlanning Phase = "planning"
	// PhaseExecuting: tool calls or snippets are running.
	PhaseExecuting Phase = "executing"
	// PhaseSynthesizing: the model is writing its final answer or result.
	PhaseSynthesizing Phase = "synthesizing"
)

// Valid reports whether p is one of the phases above.
func (p Phase) Valid() bool {
	switch p {
	case PhasePrompted, PhasePlanning, PhaseExecuting, PhaseSynthesizing:
		return true
	}
	return false
}
