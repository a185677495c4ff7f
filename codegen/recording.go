package codegen

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// runGoName is the built-in action whose calls are snippets (the
// runtime's RunGoName).
const runGoName = "run_go"

// Recording is a run as Generate needs it: its variables, the instructions
// it executed in order, its result, and the Go identities of the actions
// it called and the types it touched. Build one from a run's log with
// FromEvents; its fields are plain data, so a caller can adjust it (give a
// starting value, drop a step) before generating.
type Recording struct {
	// RunID names the run in the generated comments; optional.
	RunID run.ID
	// Actions are the Go identities of the actions the run called (by
	// JSON or from snippets), by action name, as the log records them.
	// Generate reads their functions (to call them by import path, or
	// through the generated Actions struct) and signatures.
	Actions map[string]run.GoAction
	// Types describes the named types the run touched, by name in the
	// log's form (run.GoType), so that their values can be written as Go
	// literals; a value of a type not described here is decoded from its
	// JSON (replay.JSON) instead.
	Types map[string]run.NamedType
	// Packages are the import paths of the host packages the run's prompt
	// and snippets named, by the name they were named under
	// (variable.PackageQualifier): "model2" -> "example.com/b/model". A
	// snippet's code is copied into the replay as written, so the replay
	// imports each package it names under that name. FromEvents reads
	// them from the variables' types; a caller adds the ones a log does
	// not show (Generate names them when it needs one).
	Packages map[string]string
	// Variables are the run's variables in creation order. Starting ones
	// (Start) become parameters of Replay.
	Variables []Variable
	// Steps are the executed instructions in execution order, failed and
	// denied ones included.
	Steps []Instruction
	// Result is the run's result as JSON; nil when none was recorded.
	Result json.RawMessage
}

// Variable is one variable of a recorded run.
type Variable struct {
	// Name is the variable's name, a Go identifier.
	Name string
	// Type is its Go type in the log's form, qualified by import path
	// (run.GoType): "[]example.com/shop.Item".
	Type string
	// Secret variables are never written as literals: they stay parameters,
	// and a generated main reads them from the environment.
	Secret bool
	// Start reports a starting variable: one the host set rather than a
	// step (step 0, before the first instruction).
	Start bool
	// Tainted variables hold a value derived from a secret, which the log
	// does not record.
	Tainted bool
	// Handle reports a handle (a *sql.DB, a client, a connection, a
	// file): a live resource the log does not record, which a generated
	// main asks the host to supply.
	Handle bool
	// Value is the starting value as JSON, for a generated main. Nil when it
	// is unknown (too large, secret, derived from a secret, a handle, or
	// not JSON-representable).
	Value json.RawMessage
}

// InstructionKind says what kind of instruction a step of a recording is.
type InstructionKind = run.InstructionKind

// The kinds of instruction.
const (
	// KindCall is a JSON tool call.
	KindCall = run.KindCall
	// KindSnippet is a Go snippet (in a step, or a call of run_go).
	KindSnippet = run.KindSnippet
)

// Instruction is one executed instruction, a call or a snippet as the log
// recorded it ([run.Instruction]: for a call, Args are the resolved
// arguments the call is written from, and Arguments the JSON, for comments
// only), with what the replay adds around it.
type Instruction struct {
	run.Instruction
	// Notes are comment lines that go before the instruction: approvals,
	// answers to questions, edited arguments.
	Notes []string
	// Denied is the reason an approver refused the call; a denied call is
	// left out of the replay, as a comment.
	Denied string
	// Child is the child run the call started, for an agent used as an
	// action; nil for an ordinary call.
	Child *ChildRun
	// Answer is the user's answer to a call of the built-in ask_user, which
	// the replay assigns to the call's result instead of asking again; nil
	// when the recording does not hold it (Generate then fails, naming
	// the call).
	Answer *string
	// ClientAnswer is the answer the run's client gave a call it ran
	// itself (an AG-UI front end's tool: run.AwaitRequested.Client), as
	// JSON: the replay uses it as the call's result, since there is no Go
	// function to call. Nil for other calls; a client's call without it
	// fails Generate, naming the call.
	ClientAnswer json.RawMessage
	// Client reports a call the run's client ran and answered.
	Client bool
}

// ChildRun is a run started by a tool call of the recorded run.
type ChildRun struct {
	ID     run.ID
	Name   string
	Status run.Status
	// Result is the child's result as JSON, the call's result in the parent.
	Result json.RawMessage
	Error  string
}

// ErrEvents is the condition of an event log FromEvents cannot use.
var ErrEvents = errors.New("codegen: unusable event log")

// FromEvents builds a recording from a run's event log, as a store
// returns it (run.Store.Read) or a run streams it: no action set is
// needed, since the log records each action's Go identity
// (run.GoAction) on its first completed call, how every call's arguments
// were resolved (run.Resolution), and the types of the variables
// (VariableCreated.GoType) and of the named types they use
// (run.NamedType).
//
// Child runs (ChildRunStarted/Finished) attach to the call that started
// them; approvals and questions (AwaitRequested/Resolved) become notes, and
// a denied call is marked Denied. The user's answer to a call of the
// built-in ask_user becomes its Answer, and the answer the run's client
// gave a call it ran itself (an AG-UI front end's tool) its ClientAnswer.
//
// The log is not trusted: every variable name, return target and reference
// it holds must be a valid variable name ([variable.ValidName]), or
// FromEvents fails with ErrEvents.
func FromEvents(events []run.Event) (*Recording, error) {
	f := &fold{
		rec:   &Recording{Actions: map[string]run.GoAction{}, Types: map[string]run.NamedType{}, Packages: map[string]string{}},
		calls: map[string]*pending{}, reasons: map[int]string{}, notes: map[string][]string{}, denied: map[string]string{},
		children: map[string]*ChildRun{}, awaits: map[string]run.AwaitRequested{}, questionOf: map[string]string{},
		answers: map[string]string{}, clientAnswers: map[string]json.RawMessage{}, index: map[string]int{}, vars: map[string]int{},
	}
	rec := f.rec
	for _, e := range events {
		if rec.RunID == "" {
			rec.RunID = e.RunID
		}
		if err := checkNames(e.Payload); err != nil {
			return nil, fmt.Errorf("%w: event %d (%s): %w", ErrEvents, e.Seq, e.Type(), err)
		}
		switch p := e.Payload.(type) {
		case run.AssistantMessage:
			f.reasons[p.Step] = p.Text
		case run.ToolCallScheduled:
			f.started = true
			c := p.Call
			f.calls[c.ID] = &pending{step: p.Step, call: c}
			if c.Name == action.AskUserName {
				f.asking = append(f.asking, c.ID)
			}
		case run.AwaitRequested:
			f.awaitRequested(p)
		case run.AwaitResolved:
			f.awaitResolved(p)
		case run.ChildRunStarted:
			f.children[p.CallID] = &ChildRun{ID: p.Child, Name: p.Name}
		case run.ChildRunFinished:
			f.childFinished(p)
		case run.VariableCreated:
			f.variableCreated(p)
		case run.VariableModified:
			f.types(p.Types)
			alignPackages(p.Variable.Type, p.GoType, rec.Packages)
		case run.SnippetExecuted:
			f.snippetExecuted(p)
		case run.ToolCallCompleted:
			if err := f.toolCallCompleted(p); err != nil {
				return nil, fmt.Errorf("%w: event %d: %w", ErrEvents, e.Seq, err)
			}
		case run.Result:
			rec.Result = p.Value
		case run.ContextCompacted:
			f.notes[""] = append(f.notes[""], fmt.Sprintf("The model's context was compacted after step %d: the messages before became a summary naming the variables, which stayed.", p.Step))
		}
	}
	// Calls denied before they ran have no completion event.
	for id, why := range f.denied {
		if pc := f.calls[id]; pc != nil {
			in := Instruction{Instruction: run.Instruction{Step: pc.step, Kind: KindCall, Reason: f.reasons[pc.step], CallID: id,
				Action: pc.call.Name, Arguments: pc.call.Arguments, Err: "denied: " + why}, Denied: why, Notes: f.take(id)}
			rec.Steps = append(rec.Steps, in)
		}
	}
	return rec, nil
}

// pending is a call scheduled and not yet completed.
type pending struct {
	step int
	call run.ToolCall
}

// fold is FromEvents' state while it reads a log.
type fold struct {
	rec        *Recording
	calls      map[string]*pending
	reasons    map[int]string
	notes      map[string][]string // by call ID; "" for the next instruction
	denied     map[string]string
	children   map[string]*ChildRun
	awaits     map[string]run.AwaitRequested
	asking     []string          // ask_user calls scheduled, not completed, in order
	questionOf map[string]string // await ID -> the ask_user call it asks for
	answers    map[string]string // ask_user call ID -> the user's answer
	// clientAnswers holds, by call ID, the answers of the calls the
	// run's client ran (nil until answered).
	clientAnswers map[string]json.RawMessage
	index         map[string]int // call ID -> index in rec.Steps
	vars          map[string]int // name -> index in rec.Variables
	started       bool
}

// take returns the notes of the call id (and those for the next
// instruction), and forgets them.
func (f *fold) take(id string) []string {
	n := f.notes[id]
	delete(f.notes, id)
	if id != "" {
		n = append(f.notes[""], n...)
		delete(f.notes, "")
	}
	return n
}

func (f *fold) types(nts []run.NamedType) {
	for _, nt := range nts {
		f.rec.Types[nt.Name] = nt
	}
}

func (f *fold) identity(id run.GoAction) {
	if id.Name != "" {
		f.types(id.Types)
		alignPackages(id.Shown, id.Type, f.rec.Packages)
		id.Types = nil
		f.rec.Actions[id.Name] = id
	}
}

func (f *fold) awaitRequested(p run.AwaitRequested) {
	f.awaits[p.ID] = p
	// A question with no call is ask_user's: calls run one at a time, so
	// it is the first ask_user call not yet completed.
	if p.Await == run.AwaitQuestion && p.Call == nil && len(f.asking) > 0 {
		f.questionOf[p.ID] = f.asking[0]
		return
	}
	if p.Client && p.Call != nil {
		f.clientAnswers[p.Call.ID] = nil // said where the call is written
		return
	}
	if p.Await != run.AwaitApproval && p.Await != run.AwaitAuthorization {
		f.notes[""] = append(f.notes[""], fmt.Sprintf("The run asked (%s): %s", p.Await, oneLine(p.Message)))
	}
}

func (f *fold) awaitResolved(p run.AwaitResolved) {
	req := f.awaits[p.ID]
	id := ""
	if req.Call != nil {
		id = req.Call.ID
	}
	switch {
	case f.questionOf[p.ID] != "":
		f.answers[f.questionOf[p.ID]] = p.Answer.Text
	case req.Client && req.Call != nil:
		f.clientAnswers[id] = p.Answer.Input
	case req.Await == run.AwaitQuestion || req.Await == run.AwaitInput:
		ans := p.Answer.Text
		if ans == "" && len(p.Answer.Input) > 0 {
			ans = string(p.Answer.Input)
		}
		f.notes[""] = append(f.notes[""], "Answer: "+oneLine(ans))
	case p.Answer.Decision == run.Denied:
		why := p.Answer.Reason
		if why == "" {
			why = "no reason given"
		}
		f.denied[id] = why
	default:
		what := "the plan"
		if req.Call != nil {
			what = "this call"
		} else if req.Snippet != nil {
			what = "this snippet"
		}
		n := fmt.Sprintf("Approved: %s (%s %s).", what, req.Await, p.ID)
		if p.Answer.Arguments != "" && req.Call != nil {
			n += " The approver edited the arguments to " + oneLine(p.Answer.Arguments) + "."
			if pc := f.calls[id]; pc != nil {
				pc.call.Arguments = p.Answer.Arguments
			}
		}
		f.notes[id] = append(f.notes[id], n)
	}
}

func (f *fold) childFinished(p run.ChildRunFinished) {
	c := f.children[p.CallID]
	if c == nil {
		c = &ChildRun{ID: p.Child}
		f.children[p.CallID] = c
	}
	c.Status, c.Result, c.Error = p.Status, p.Result, p.Error
	if i, ok := f.index[p.CallID]; ok {
		f.rec.Steps[i].Child = c
	}
}

func (f *fold) variableCreated(p run.VariableCreated) {
	f.types(p.Types)
	alignPackages(p.Variable.Type, p.GoType, f.rec.Packages)
	if _, ok := f.vars[p.Variable.Name]; ok {
		return
	}
	t := p.GoType
	if t == "" {
		t = p.Variable.Type
	}
	v := Variable{Name: p.Variable.Name, Type: t, Secret: p.Secret, Tainted: p.Tainted, Handle: p.Handle, Start: p.Step == variable.HostStep && !f.started}
	if v.Start && !p.Secret && !p.Tainted {
		v.Value = p.Value
	}
	f.vars[v.Name] = len(f.rec.Variables)
	f.rec.Variables = append(f.rec.Variables, v)
}

func (f *fold) snippetExecuted(p run.SnippetExecuted) {
	f.started = true
	for _, id := range p.Actions {
		f.identity(id)
	}
	in := Instruction{Instruction: run.Instruction{Step: p.Step, Kind: KindSnippet, Reason: f.reasons[p.Step],
		Code: interp.NormalizeCode(p.Snippet.Code), Reads: p.Snippet.Reads, Writes: p.Snippet.Writes,
		Created: names(p.Created), Modified: names(p.Modified), Err: p.Error, Duration: p.Duration}}
	if !p.Success && in.Err == "" {
		in.Err = "the snippet failed"
	}
	in.Notes = f.take("")
	f.rec.Steps = append(f.rec.Steps, in)
}

func (f *fold) toolCallCompleted(p run.ToolCallCompleted) error {
	pc := f.calls[p.CallID]
	if pc == nil {
		return fmt.Errorf("tool_call_completed names call %q, which was never scheduled", p.CallID)
	}
	delete(f.calls, p.CallID)
	if i := slices.Index(f.asking, p.CallID); i >= 0 {
		f.asking = slices.Delete(f.asking, i, i+1)
	}
	if p.Action != nil {
		id := *p.Action
		if id.Name == "" {
			id.Name = pc.call.Name
		}
		f.identity(id)
	}
	in, err := callInstruction(pc.step, f.reasons[pc.step], pc.call, p)
	if err != nil {
		return err
	}
	in.Notes, in.Denied, in.Child = f.take(p.CallID), f.denied[p.CallID], f.children[p.CallID]
	if ans, ok := f.answers[p.CallID]; ok && in.Action == action.AskUserName {
		in.Answer = &ans
	}
	if ans, ok := f.clientAnswers[p.CallID]; ok {
		in.Client, in.ClientAnswer = true, ans
		delete(f.clientAnswers, p.CallID)
	}
	delete(f.denied, p.CallID)
	f.index[p.CallID] = len(f.rec.Steps)
	f.rec.Steps = append(f.rec.Steps, in)
	return nil
}

func names(infos []run.VariableInfo) []string {
	var out []string
	for _, v := range infos {
		out = append(out, v.Name)
	}
	return out
}

// callInstruction is a call as its events recorded it: the arguments as
// they were resolved when the call was scheduled (run.Resolution), never
// parsed again.
func callInstruction(step int, reason string, c run.ToolCall, done run.ToolCallCompleted) (Instruction, error) {
	in := Instruction{Instruction: run.Instruction{Step: step, Kind: KindCall, Reason: reason, CallID: c.ID, Action: c.Name,
		Arguments: c.Arguments, Created: names(done.Created), Modified: names(done.Modified), Err: done.Error, Duration: done.Duration}}
	if !done.Success && in.Err == "" {
		in.Err = "the call failed"
	}
	if done.Resolution == nil {
		if in.Err == "" {
			return in, fmt.Errorf("call %s succeeded but its log records no resolution of its arguments (a log written before byref recorded them); run it again to replay it", c.ID)
		}
		return in, nil
	}
	in.Args = done.Resolution.Args
	if c.Name == runGoName {
		for _, a := range in.Args {
			var code string
			if a.Param == "code" && json.Unmarshal(a.Raw, &code) == nil {
				in.Code = interp.NormalizeCode(code)
			}
		}
		in.Kind, in.Action, in.Args = KindSnippet, "", nil
		return in, nil
	}
	if in.Err != "" {
		return in, nil
	}
	switch {
	case done.Resolution.Target != "":
		in.Return = done.Resolution.Target
	case done.Result != "":
		in.Return, in.ReturnCreated = done.Result, true
	}
	if in.Return != "" {
		if err := variable.ValidName(in.Return); err != nil {
			return in, fmt.Errorf("call %s returns into %q: %w", c.ID, in.Return, err)
		}
	}
	for _, a := range in.Args {
		if a.Ref != "" {
			if err := variable.ValidName(a.Ref); err != nil {
				return in, fmt.Errorf("call %s passes %q as %s: %w", c.ID, a.Ref, a.Param, err)
			}
		}
	}
	return in, nil
}

// checkNames checks the variable names an event holds: they end up in Go
// code, and a log can come from any store.
func checkNames(data run.Payload) error {
	var infos []run.VariableInfo
	switch p := data.(type) {
	case run.VariableCreated:
		infos = append(infos, p.Variable)
	case run.VariableModified:
		infos = append(infos, p.Variable)
	case run.SnippetExecuted:
		infos = append(append(infos, p.Created...), p.Modified...)
		for _, n := range append(slices.Clone(p.Snippet.Reads), p.Snippet.Writes...) {
			infos = append(infos, run.VariableInfo{Name: n})
		}
	case run.ToolCallCompleted:
		infos = append(append(infos, p.Created...), p.Modified...)
	}
	for _, v := range infos {
		if err := variable.ValidName(v.Name); err != nil {
			return fmt.Errorf("variable %q: %w", v.Name, err)
		}
	}
	return nil
}

// oneLine collapses white space, for a comment.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// SetStart records the starting value of the starting variable name, for a
// generated main, when the log does not hold it (a value too large to
// record). It refuses a secret (secrets are never written into replay
// code), an unknown or non-starting variable, and a value that is not JSON
// or not of the variable's type.
func (r *Recording) SetStart(name string, value any) error {
	for i := range r.Variables {
		v := &r.Variables[i]
		if v.Name != name {
			continue
		}
		switch {
		case !v.Start:
			return fmt.Errorf("codegen: %s is not a starting variable; a step created it", name)
		case v.Secret:
			return fmt.Errorf("codegen: %s is secret, so its value is never written into replay code; a generated main reads it from %s", name, envName(name))
		case v.Handle:
			return fmt.Errorf("codegen: %s is a live handle (%s), which is not written into replay code as JSON; supply it in the generated main, or call ReplayVariables with it", name, v.Type)
		case value != nil && run.GoType(reflect.TypeOf(value)) != v.Type:
			return fmt.Errorf("codegen: a %T cannot be the starting value of %s, a %s", value, name, v.Type)
		}
		b, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("codegen: the starting value of %s is not JSON: %w", name, err)
		}
		v.Value = b
		return nil
	}
	return fmt.Errorf("codegen: the recording has no variable %s", name)
}
