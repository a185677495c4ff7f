package run

import (
	"slices"
	"time"
)

// InstructionKind says what kind of instruction a history entry records.
type InstructionKind string

// The kinds of instruction.
const (
	// KindCall is a JSON tool call.
	KindCall InstructionKind = "call"
	// KindSnippet is a Go snippet, from the model's text or a call of the
	// built-in run_go.
	KindSnippet InstructionKind = "snippet"
)

// Instruction is one executed instruction of a run's step history: enough
// to turn a run into Go code that replays it. [History] folds a run's log
// into its instructions.
type Instruction struct {
	// Step is the number of the step, from 1.
	Step int
	// Kind is KindCall or KindSnippet.
	Kind InstructionKind
	// Reason is the model's stated reason for the step (its text), when it
	// gave one.
	Reason string

	// CallID is the model's ID of the tool call (for a snippet, of the
	// run_go call that carried it, if any).
	CallID string
	// Action is the called action's name ("" for a snippet).
	Action string
	// Arguments is the argument JSON the call ran with: as the model sent
	// it, or as an approver edited it.
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
	// changed (assigned or mutated in place). Created includes the
	// variable a result too large for the conversation was kept in.
	Created, Modified []string
	// Err is the error the model was told, or "" on success.
	Err string
	// Start is when the instruction started; zero in logs written before
	// it was recorded.
	Start time.Time
	// Duration is how long it ran.
	Duration time.Duration
	// Compacted reports that the model's context was compacted
	// ([ContextCompacted]) before this instruction: from here the model
	// read the earlier steps as a summary.
	Compacted bool
}

// OK reports whether the instruction succeeded.
func (in Instruction) OK() bool { return in.Err == "" }

// History folds a run's events into the instructions it executed, failed
// ones included, in execution order. It is a pure function of the log: the
// live run and a run restored after a restart give the same history.
//
// One instruction comes from each [ToolCallCompleted] and each
// [SnippetExecuted]. A call scheduled but never completed (a plan the user
// rejected, a step cut short by a crash) is not an instruction. A call that
// asked for authorization or input and was run again after the answer is
// one instruction, the last attempt; its awaits are in the log.
func History(events []Event) []Instruction {
	var f HistoryFolder
	for _, e := range events {
		f.Apply(e)
	}
	return f.Instructions()
}

// HistoryFolder folds a run's events into its instructions one event at a
// time, for a caller that reads a log incrementally. The zero value is
// ready to use; a HistoryFolder is not safe for concurrent use.
type HistoryFolder struct {
	// ins holds the instructions, as entries, in chunks of growing size,
	// each allocated once: a long history is not copied as it grows.
	ins [][]entry
	n   int
	// strs holds the instructions' Created and Modified names, carved
	// from chunks of growing size as ins is: a call's names are not an
	// allocation of their own.
	strs []string
	// reason is the text of the model's latest answer, made at reasonStep.
	reason     string
	reasonStep int
	// pending are the calls scheduled and not yet completed, in order.
	pending []pendingCall
	// compacted is set by a compaction until the next instruction.
	compacted bool
	// approvals maps the ID of an await for the approval of a call to the
	// call's ID.
	approvals map[string]string
}

type pendingCall struct {
	step int
	call ToolCall
}

// Apply folds the next event of the log.
func (f *HistoryFolder) Apply(e Event) {
	switch p := e.Payload.(type) {
	case Usage:
		// A new answer of the model: the previous one's text is no
		// longer the reason of what follows.
		f.reason, f.reasonStep = "", 0
	case AssistantMessage:
		f.AssistantMessage(p)
	case ToolCallScheduled:
		f.ToolCallScheduled(p)
	case AwaitRequested:
		if p.Await == AwaitApproval && p.Call != nil {
			if f.approvals == nil {
				f.approvals = map[string]string{}
			}
			f.approvals[p.ID] = p.Call.ID
		}
	case AwaitResolved:
		id, ok := f.approvals[p.ID]
		if !ok {
			break
		}
		delete(f.approvals, p.ID)
		if p.Answer.Decision == Approved && p.Answer.Arguments != "" {
			if i := f.find(id); i >= 0 {
				f.pending[i].call.Arguments = p.Answer.Arguments
			}
		}
	case ToolCallCompleted:
		f.ToolCallCompleted(p)
	case SnippetExecuted:
		f.SnippetExecuted(p)
	case ContextCompacted:
		f.compacted = true
	}
}

// AssistantMessage is Apply of an event of that type, for a producer that
// holds the payload typed (and need not box it in an Event). So are the
// three methods that follow.
func (f *HistoryFolder) AssistantMessage(p AssistantMessage) {
	f.reason, f.reasonStep = p.Text, p.Step
}

// ToolCallScheduled is Apply of an event of that type.
func (f *HistoryFolder) ToolCallScheduled(p ToolCallScheduled) {
	f.pending = append(f.pending, pendingCall{step: p.Step, call: p.Call})
}

// ToolCallCompleted is Apply of an event of that type.
func (f *HistoryFolder) ToolCallCompleted(p ToolCallCompleted) {
	e := f.next()
	f.completed(e, &p)
	e.compacted, f.compacted = f.compacted, false
}

// entry is an instruction as a folder keeps it, expanded by Instructions:
// what only a snippet has is kept aside, so that the entry of a call
// takes three quarters of an Instruction's memory (224 bytes rather than
// 296), for as long as the history is kept.
type entry struct {
	step                                        int
	reason, callID, action, arguments, ret, err string
	args                                        []Argument
	created, modified                           []string
	start                                       time.Time
	duration                                    time.Duration
	// snippet is what a snippet has; nil for a call.
	snippet       *snippetEntry
	returnCreated bool
	compacted     bool
}

type snippetEntry struct {
	code          string
	reads, writes []string
}

// instruction expands e.
func (e *entry) instruction() Instruction {
	in := Instruction{Step: e.step, Kind: KindCall, Reason: e.reason, CallID: e.callID, Action: e.action, Arguments: e.arguments,
		Return: e.ret, ReturnCreated: e.returnCreated, Created: e.created, Modified: e.modified, Err: e.err, Start: e.start, Duration: e.duration,
		Compacted: e.compacted}
	in.Args = e.args
	if s := e.snippet; s != nil {
		in.Kind, in.Code, in.Reads, in.Writes = KindSnippet, s.code, s.reads, s.writes
	}
	return in
}

// next appends an entry and returns it, to be filled in place.
func (f *HistoryFolder) next() *entry {
	if k := len(f.ins); k == 0 || len(f.ins[k-1]) == cap(f.ins[k-1]) {
		size := 4
		if k > 0 {
			size = min(2*cap(f.ins[k-1]), 256)
		}
		f.ins = append(f.ins, make([]entry, 0, size))
	}
	k := len(f.ins) - 1
	f.ins[k] = f.ins[k][:len(f.ins[k])+1]
	f.n++
	return &f.ins[k][len(f.ins[k])-1]
}

// SnippetExecuted is Apply of an event of that type.
func (f *HistoryFolder) SnippetExecuted(p SnippetExecuted) {
	e := entry{step: p.Step, reason: f.reasonOf(p.Step),
		snippet: &snippetEntry{code: p.Snippet.Code, reads: p.Snippet.Reads, writes: p.Snippet.Writes},
		created: kept(f.names(p.Created), p.Kept), modified: f.names(p.Modified),
		err: p.Error, start: p.Start, duration: p.Duration}
	if !p.Success && e.err == "" {
		e.err = "the snippet failed"
	}
	e.compacted, f.compacted = f.compacted, false
	*f.next() = e
}

// Instructions returns the instructions folded so far. The slice is the
// caller's; its instructions share their slices with the events.
func (f *HistoryFolder) Instructions() []Instruction {
	if f.n == 0 {
		return nil
	}
	out := make([]Instruction, 0, f.n)
	for _, c := range f.ins {
		for i := range c {
			out = append(out, c[i].instruction())
		}
	}
	return out
}

// Len returns the number of instructions folded so far.
func (f *HistoryFolder) Len() int { return f.n }

// find returns the index of the first pending call with the ID, or -1.
func (f *HistoryFolder) find(id string) int {
	return slices.IndexFunc(f.pending, func(c pendingCall) bool { return c.call.ID == id })
}

func (f *HistoryFolder) reasonOf(step int) string {
	if step == f.reasonStep {
		return f.reason
	}
	return ""
}

// completed turns a call's completion into its instruction.
func (f *HistoryFolder) completed(e *entry, p *ToolCallCompleted) {
	var c pendingCall
	if i := f.find(p.CallID); i >= 0 {
		c = f.pending[i]
		f.pending = slices.Delete(f.pending, i, i+1)
	} else {
		c.call.ID = p.CallID
	}
	*e = entry{step: c.step, reason: f.reasonOf(c.step), callID: p.CallID,
		created: kept(f.names(p.Created), p.Kept), modified: f.names(p.Modified), err: p.Error, start: p.Start, duration: p.Duration}
	if !p.Success && e.err == "" {
		e.err = "the call failed"
	}
	if s := p.Snippet; s != nil {
		// A call of run_go, run as a snippet.
		e.snippet = &snippetEntry{code: s.Code, reads: s.Reads, writes: s.Writes}
		return
	}
	e.action, e.arguments = c.call.Name, c.call.Arguments
	if p.Resolution != nil {
		e.args = p.Resolution.Args
	}
	e.ret = p.Result
	e.returnCreated = p.Result != "" && slices.Contains(e.created, p.Result)
}

// names returns the names of infos (nil for none), in a slice of f.strs
// whose capacity ends with it, so that kept's append copies it.
func (f *HistoryFolder) names(infos []VariableInfo) []string {
	if len(infos) == 0 {
		return nil
	}
	if cap(f.strs)-len(f.strs) < len(infos) {
		f.strs = make([]string, 0, max(min(2*cap(f.strs), 256), 4, len(infos)))
	}
	start := len(f.strs)
	for _, v := range infos {
		f.strs = append(f.strs, v.Name)
	}
	return f.strs[start:len(f.strs):len(f.strs)]
}

func kept(created []string, name string) []string {
	if name == "" {
		return created
	}
	return append(created, name)
}
