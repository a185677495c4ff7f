package runtime

import (
	"github.com/byref/byref/run"
	"slices"
	"time"
)

// InstructionKind says what kind of instruction a history entry records.
type InstructionKind string

// The kinds of instruction.
const (
	// KindCall is a JSON tool call.
	KindCall InstructionKind = "call"
	// KindSnippet is a Go snippet.
	KindSnippet InstructionKind = "snippet"
)

// Argument is one argument of a recorded call, as it was resolved: the
// log's record (run.Argument).
type Argument = run.Argument

// Instruction is one executed instruction of the step history: enough to
// turn a run into Go code that replays it.
type Instruction struct {
	// Step is the number of the step, from 1.
	Step int
	// Kind is KindCall or KindSnippet.
	Kind InstructionKind
	// Reason is the model's stated reason for the step, when it gave one.
	Reason string

	// CallID is the model's ID of the tool call.
	CallID string
	// Action is the called action's name.
	Action string
	// Arguments is the argument JSON exactly as the model sent it.
	Arguments string
	// Args are the resolved arguments in parameter order; empty when the
	// call failed before they were resolved.
	Args []Argument
	// Return is the variable the result was assigned to ("" when none).
	Return string
	// ReturnCreated reports that Return was created by this call.
	ReturnCreated bool

	// Code is the snippet's source.
	Code string
	// Reads and Writes are the variables a snippet reads and writes, from
	// the static pass made before running it.
	Reads, Writes []string

	// Created and Modified are the variables the instruction created and
	// changed (assigned or mutated in place).
	Created, Modified []string
	// Err is the error the model was told, or "" on success.
	Err string
	// Start is when the instruction started.
	Start time.Time
	// Duration is how long it ran.
	Duration time.Duration
}

// OK reports whether the instruction succeeded.
func (in Instruction) OK() bool { return in.Err == "" }

// History returns every executed instruction, failed ones included (with
// Err set), in execution order.
func (st *State) History() []Instruction {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Clone(st.history)
}
