package codegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/run"
	"github.com/byref/byref/runtime"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// Recording is a run as Generate needs it: its variables, the instructions
// it executed in order, its result, and the actions it called. Build one
// with FromState or FromEvents; its fields are plain data, so a caller can
// adjust it (give a starting value, drop a step) before generating.
type Recording struct {
	// RunID names the run in the generated comments; optional.
	RunID run.ID
	// Actions are the actions the run could call. Generate reads their
	// functions (to call them by import path), parameters and results.
	Actions *action.Set
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
	// Type is its Go type; nil when it could not be resolved from a stored
	// log (a type no action mentions), in which case TypeName is all there
	// is and the replay holds it as any.
	Type reflect.Type
	// TypeName is the type as the run recorded it ("[]shop.Item").
	TypeName string
	// Secret variables are never written as literals: they stay parameters,
	// and a generated main reads them from the environment.
	Secret bool
	// Start reports a starting variable: one the host set rather than a
	// step (step 0, or set by the host between steps).
	Start bool
	// Value is the starting value as JSON, for a generated main. Nil when it
	// is unknown (a starting variable changed by the run, when the recording
	// came from a live runtime), secret, or not JSON-representable.
	Value json.RawMessage
}

// Instruction is one executed instruction: a call or a snippet as the
// runtime recorded it, with what a stored log adds.
type Instruction struct {
	runtime.Instruction
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

// FromState builds a recording from a run's live State: its history, its
// variables and its actions. result is the run's result (Outcome.Result), or
// nil for a State driven by Execute with no run.
//
// A State keeps current values only, so a starting variable that the run
// assigned or changed has no known starting value (Value is nil); set it in
// the recording, or use FromEvents on the run's log, which has it.
func FromState(rt *runtime.State, result json.RawMessage) *Recording {
	rec := &Recording{Actions: rt.Actions(), Result: result}
	for _, v := range rt.Variables() {
		cv := Variable{Name: v.Name, Type: v.Type, TypeName: v.TypeName(), Secret: v.Secret}
		if len(v.History) > 0 {
			first := v.History[0]
			cv.Start = first.Step == variable.HostStep || first.By == "host"
			changed := false
			for _, c := range v.History[1:] {
				changed = changed || c.By != "host"
			}
			if cv.Start && !changed && !v.Secret {
				cv.Value = valueJSON(v.Value, v.Type)
			}
		}
		rec.Variables = append(rec.Variables, cv)
	}
	hist := rt.History()
	for i, in := range hist {
		ci := Instruction{Instruction: in}
		if in.Kind == runtime.KindCall && in.Action == action.AskUserName && in.OK() && in.Return != "" {
			ci.Answer = answerKept(rt, hist[i+1:], in.Return)
		}
		rec.Steps = append(rec.Steps, ci)
	}
	return rec
}

// answerKept is the answer ask_user assigned to the variable name, when no
// later instruction changed it: a live runtime keeps current values only.
func answerKept(rt *runtime.State, later []runtime.Instruction, name string) *string {
	for _, in := range later {
		if in.Return == name || slices.Contains(in.Created, name) || slices.Contains(in.Modified, name) || slices.Contains(in.Writes, name) {
			return nil
		}
	}
	for _, v := range rt.Variables() {
		if v.Name == name && !v.Secret {
			if s, ok := v.Value.(string); ok {
				return &s
			}
		}
	}
	return nil
}

// valueJSON is a value's JSON when its type is JSON-representable.
func valueJSON(v any, t reflect.Type) json.RawMessage {
	if t == nil || schema.Representable(t) != nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// ErrEvents is the condition of an event log FromEvents cannot use.
var ErrEvents = errors.New("codegen: unusable event log")

// FromEvents builds a recording from a run's stored event log and the
// actions the run could call (their parameters and results are not in the
// log). Types are resolved by name against the types the actions mention;
// a variable whose type no action mentions keeps only its TypeName.
//
// Child runs (ChildRunStarted/Finished) attach to the call that started
// them; approvals and questions (AwaitRequested/Resolved) become notes, and
// a denied call is marked Denied. The user's answer to a call of the
// built-in ask_user becomes its Answer. Built-in actions (terminate,
// ask_user, run_go) need not be in actions.
//
// The log is not trusted: every variable name, return target and reference
// it holds must be a valid variable name ([variable.ValidName]), or
// FromEvents fails with ErrEvents.
func FromEvents(events []run.Event, actions *action.Set) (*Recording, error) {
	if actions == nil {
		actions = &action.Set{}
	}
	rec := &Recording{Actions: actions}
	reg := newTypeRegistry(actions)
	type pending struct {
		step int
		call run.ToolCall
	}
	calls := map[string]*pending{}
	reasons := map[int]string{}
	notes := map[string][]string{} // by call ID; "" for the next instruction
	denied := map[string]string{}
	children := map[string]*ChildRun{}
	awaits := map[string]run.AwaitRequested{}
	asking := []string{}              // ask_user calls scheduled, not completed, in order
	questionOf := map[string]string{} // await ID -> the ask_user call it asks for
	answers := map[string]string{}    // ask_user call ID -> the user's answer
	index := map[string]int{}         // call ID -> index in rec.Steps
	vars := map[string]int{}          // name -> index in rec.Variables
	started := false
	take := func(id string) []string {
		n := notes[id]
		delete(notes, id)
		if id != "" {
			n = append(notes[""], n...)
			delete(notes, "")
		}
		return n
	}
	addVar := func(step int, info run.VariableInfo, secret bool, value json.RawMessage, t reflect.Type) {
		if _, ok := vars[info.Name]; ok {
			return
		}
		if t == nil {
			t = reg.resolve(info.Type)
		}
		v := Variable{Name: info.Name, Type: t, TypeName: info.Type, Secret: secret, Start: step == variable.HostStep && !started}
		if v.Start && !secret {
			v.Value = value
		}
		vars[info.Name] = len(rec.Variables)
		rec.Variables = append(rec.Variables, v)
	}
	for _, e := range events {
		if rec.RunID == "" {
			rec.RunID = e.RunID
		}
		if err := checkNames(e.Data); err != nil {
			return nil, fmt.Errorf("%w: event %d (%s): %w", ErrEvents, e.Seq, e.Type(), err)
		}
		switch p := e.Data.(type) {
		case run.AssistantMessage:
			reasons[p.Step] = p.Text
		case run.ToolCallScheduled:
			started = true
			c := p.Call
			calls[c.ID] = &pending{step: p.Step, call: c}
			if c.Action == action.AskUserName {
				asking = append(asking, c.ID)
			}
		case run.AwaitRequested:
			awaits[p.ID] = p
			// A question with no call is ask_user's: calls run one at a
			// time, so it is the first ask_user call not yet completed.
			if p.Await == run.AwaitQuestion && p.Call == nil && len(asking) > 0 {
				questionOf[p.ID] = asking[0]
				break
			}
			if p.Await != run.AwaitApproval && p.Await != run.AwaitAuthorization {
				notes[""] = append(notes[""], fmt.Sprintf("The run asked (%s): %s", p.Await, oneLine(p.Message)))
			}
		case run.AwaitResolved:
			req := awaits[p.ID]
			id := ""
			if req.Call != nil {
				id = req.Call.ID
			}
			switch {
			case questionOf[p.ID] != "":
				answers[questionOf[p.ID]] = p.Answer.Text
			case req.Await == run.AwaitQuestion || req.Await == run.AwaitInput:
				ans := p.Answer.Text
				if ans == "" && len(p.Answer.Input) > 0 {
					ans = string(p.Answer.Input)
				}
				notes[""] = append(notes[""], "Answer: "+oneLine(ans))
			case p.Answer.Decision == run.Denied:
				why := p.Answer.Reason
				if why == "" {
					why = "no reason given"
				}
				denied[id] = why
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
					if pc := calls[id]; pc != nil {
						pc.call.Arguments = p.Answer.Arguments
					}
				}
				notes[id] = append(notes[id], n)
			}
		case run.ChildRunStarted:
			children[p.CallID] = &ChildRun{ID: p.Child, Name: p.Name}
		case run.ChildRunFinished:
			c := children[p.CallID]
			if c == nil {
				c = &ChildRun{ID: p.Child}
				children[p.CallID] = c
			}
			c.Status, c.Result, c.Error = p.Status, p.Result, p.Error
			if i, ok := index[p.CallID]; ok {
				rec.Steps[i].Child = c
			}
		case run.VariableCreated:
			var t reflect.Type
			addVar(p.Step, p.Variable, p.Secret, p.Value, t)
		case run.SnippetExecuted:
			started = true
			in := runtime.Instruction{Step: p.Step, Kind: runtime.KindSnippet, Reason: reasons[p.Step],
				Code: interp.NormalizeCode(p.Snippet.Code), Reads: p.Snippet.Reads, Writes: p.Snippet.Writes,
				Created: names(p.Created), Modified: names(p.Modified), Err: p.Error, Duration: p.Duration}
			if !p.Success && in.Err == "" {
				in.Err = "the snippet failed"
			}
			rec.Steps = append(rec.Steps, Instruction{Instruction: in, Notes: take("")})
		case run.ToolCallCompleted:
			pc := calls[p.CallID]
			if pc == nil {
				return nil, fmt.Errorf("%w: tool_call_completed event %d names call %q, which was never scheduled", ErrEvents, e.Seq, p.CallID)
			}
			delete(calls, p.CallID)
			if i := slices.Index(asking, p.CallID); i >= 0 {
				asking = slices.Delete(asking, i, i+1)
			}
			in, err := callInstruction(actions, pc.step, reasons[pc.step], pc.call, p)
			if err != nil {
				return nil, fmt.Errorf("%w: event %d: %w", ErrEvents, e.Seq, err)
			}
			if in.Kind == runtime.KindCall && in.OK() && in.Return != "" {
				if a, ok := lookupAction(actions, in.Action); ok && in.ReturnCreated {
					for _, c := range p.Created {
						if c.Name == in.Return && a.Result().Kind() != reflect.Interface {
							addVar(pc.step, c, false, nil, a.Result())
						}
					}
				}
			}
			ci := Instruction{Instruction: in, Notes: take(p.CallID), Denied: denied[p.CallID], Child: children[p.CallID]}
			if ans, ok := answers[p.CallID]; ok && in.Action == action.AskUserName {
				ci.Answer = &ans
			}
			delete(denied, p.CallID)
			index[p.CallID] = len(rec.Steps)
			rec.Steps = append(rec.Steps, ci)
		case run.Result:
			rec.Result = p.Value
		}
	}
	// Calls denied before they ran have no completion event.
	for id, why := range denied {
		if pc := calls[id]; pc != nil {
			in := runtime.Instruction{Step: pc.step, Kind: runtime.KindCall, Reason: reasons[pc.step], CallID: id,
				Action: pc.call.Action, Arguments: pc.call.Arguments, Err: "denied: " + why}
			rec.Steps = append(rec.Steps, Instruction{Instruction: in, Denied: why, Notes: take(id)})
		}
	}
	return rec, nil
}

func names(infos []run.VariableInfo) []string {
	var out []string
	for _, v := range infos {
		out = append(out, v.Name)
	}
	return out
}

// callInstruction rebuilds the runtime's record of a call from its events.
func callInstruction(actions *action.Set, step int, reason string, c run.ToolCall, done run.ToolCallCompleted) (runtime.Instruction, error) {
	in := runtime.Instruction{Step: step, Kind: runtime.KindCall, Reason: reason, CallID: c.ID, Action: c.Action,
		Arguments: c.Arguments, Created: names(done.Created), Modified: names(done.Modified), Err: done.Error, Duration: done.Duration}
	if !done.Success && in.Err == "" {
		in.Err = "the call failed"
	}
	fields := map[string]json.RawMessage{}
	if strings.TrimSpace(c.Arguments) != "" {
		if err := json.Unmarshal([]byte(c.Arguments), &fields); err != nil {
			if in.Err == "" {
				return in, fmt.Errorf("the arguments of call %s are not a JSON object: %w", c.ID, err)
			}
			return in, nil // a failed call with bad JSON: left out anyway
		}
	}
	if c.Action == runtime.RunGoName {
		var code string
		_ = json.Unmarshal(fields["code"], &code)
		in.Kind, in.Code, in.Action = runtime.KindSnippet, interp.NormalizeCode(code), ""
		return in, nil
	}
	a, ok := lookupAction(actions, c.Action)
	if !ok {
		if in.Err != "" {
			return in, nil
		}
		return in, fmt.Errorf("call %s succeeded but the action set has no action %q; pass the actions the run used", c.ID, c.Action)
	}
	if in.Err != "" {
		return in, nil
	}
	for i := 0; i < a.NumParams(); i++ {
		p := a.Param(i)
		arg := runtime.Argument{Param: p.Name}
		raw := fields[p.Name]
		switch {
		case raw == nil || bytes.Equal(raw, []byte("null")):
			arg.Default = true
		default:
			var s string
			if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
				if name, ok := parseRef(s); ok {
					arg.Ref = name
					break
				}
			}
			arg.Raw = raw
		}
		in.Args = append(in.Args, arg)
	}
	if a.Result() != nil && c.Action != action.TerminateName {
		var target string
		if raw := fields["return"]; raw != nil && json.Unmarshal(raw, &target) == nil && target != "" {
			if name, ok := parseRef(target); ok {
				target = name
			}
			if err := variable.ValidName(target); err != nil {
				return in, fmt.Errorf("call %s returns into %q: %w", c.ID, target, err)
			}
			in.Return = target
		} else if len(done.Created) > 0 {
			in.Return, in.ReturnCreated = done.Created[0].Name, true
		}
	}
	return in, nil
}

// lookupAction finds an action the run called: a built-in (terminate,
// ask_user), which every runtime has whatever its set, or one of actions.
// The runtime refuses actions named as built-ins.
func lookupAction(actions *action.Set, name string) (*action.Action, bool) {
	switch name {
	case action.TerminateName:
		return action.Terminate(), true
	case action.AskUserName:
		return action.AskUser(), true
	}
	if actions == nil {
		return nil, false
	}
	return actions.Get(name)
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

// parseRef returns NAME from exactly "<<var:NAME>>".
func parseRef(s string) (string, bool) {
	name, ok := strings.CutPrefix(s, "<<var:")
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, ">>")
	return name, ok && variable.ValidName(name) == nil
}

// oneLine collapses white space, for a comment.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// SetStart records the starting value of the starting variable name, for a
// generated main: FromState cannot know the starting value of a variable
// the run changed. It refuses a secret (secrets are never written into
// replay code), an unknown or non-starting variable, and a value that is not
// JSON or not assignable to the variable's type.
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
		case v.Type != nil && value != nil && !reflect.TypeOf(value).AssignableTo(v.Type):
			return fmt.Errorf("codegen: a %T cannot be the starting value of %s, a %s", value, name, v.TypeName)
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
