package agent

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// maxValueJSON bounds the JSON of a variable's value kept in its event; a
// larger value is recorded by preview only. maxMediaJSON is the bound for
// output (run.Media, run.Artifact), whose value is what a server shows.
const (
	maxValueJSON = 64 << 10
	maxMediaJSON = 8 << 20
)

// mediaType is the media type of a value whose type implements run.Media,
// or "".
func mediaType(v any) string {
	if m, ok := v.(run.Media); ok {
		return m.MediaType()
	}
	return ""
}

// isOutput reports whether values of type t are output: media, or
// artifacts.
func isOutput(t reflect.Type) bool {
	return t != nil && (t.Implements(mediaIface) || t == artifactType || t == reflect.PointerTo(artifactType) || t == reflect.SliceOf(artifactType))
}

var (
	mediaIface   = reflect.TypeFor[run.Media]()
	artifactType = reflect.TypeFor[run.Artifact]()
)

// refsOf describes the references of a resolved call, for a person who
// approves it: each parameter given a reference, with the variable's type
// and redacted preview. Nil for a call that did not resolve.
func (st *State) refsOf(p *prepared) map[string]run.VariableRef {
	if p == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var refs map[string]run.VariableRef
	for _, a := range p.record {
		if a.Ref == "" {
			continue
		}
		v, exists := st.s.vars.Head(a.Ref)
		if !exists {
			continue
		}
		if refs == nil {
			refs = map[string]run.VariableRef{}
		}
		refs[a.Param] = run.VariableRef{Variable: a.Ref, Type: v.TypeName(), Preview: st.s.redact(v.Preview(st.opts.PreviewLimit))}
	}
	return refs
}

// variableEvents records the named variables as created (the starting
// variables of a run).
func (sc *scope) variableEvents(names []string, created bool) []run.Payload {
	out := make([]run.Payload, 0, len(names))
	for _, n := range names {
		v, ok := sc.vars.Head(n)
		if !ok {
			continue
		}
		info := run.VariableInfo{Name: n, Type: v.TypeName(), Preview: sc.redact(v.Preview(sc.opts.PreviewLimit))}
		step := v.History.Last().Step
		gt, types := sc.ids.goTypeOf(v.Type, info.Type)
		if created {
			out = append(out, run.VariableCreated{Step: step, Variable: info, Secret: v.Secret, Tainted: v.Tainted, RunOnly: v.RunOnly, Handle: isHandle(v), Value: sc.valueJSON(v), MediaType: mediaType(v.Value), GoType: gt, Types: types})
		} else {
			out = append(out, run.VariableModified{Step: step, Variable: info, Secret: v.Secret, Tainted: v.Tainted, RunOnly: v.RunOnly, Handle: isHandle(v), Value: sc.valueJSON(v), MediaType: mediaType(v.Value), GoType: gt, Types: types})
		}
	}
	return out
}

// variableChangeEvents records the variables a call or snippet changed.
func (sc *scope) variableChangeEvents(step int, changes []VariableChange) []run.Payload {
	out := make([]run.Payload, 0, len(changes))
	for _, c := range changes {
		v, ok := sc.vars.Head(c.Name)
		if !ok {
			continue
		}
		info := run.VariableInfo{Name: c.Name, Type: c.Type, Preview: c.Preview}
		gt, types := sc.ids.goTypeOf(v.Type, info.Type)
		if c.Change == string(variable.Created) {
			out = append(out, run.VariableCreated{Step: step, Variable: info, Secret: v.Secret, Tainted: v.Tainted, RunOnly: v.RunOnly, Handle: isHandle(v), Value: sc.valueJSON(v), MediaType: mediaType(v.Value), GoType: gt, Types: types})
		} else {
			out = append(out, run.VariableModified{Step: step, Variable: info, Secret: v.Secret, Tainted: v.Tainted, RunOnly: v.RunOnly, Handle: isHandle(v), Value: sc.valueJSON(v), MediaType: mediaType(v.Value), GoType: gt, Types: types})
		}
	}
	return out
}

// isHandle reports whether v holds a handle (variable.IsHandle): a live
// resource whose value the log never records.
func isHandle(v variable.Variable) bool {
	return variable.IsHandle(v.Type) || variable.IsHandle(reflect.TypeOf(v.Value))
}

// valueJSON is a variable's value as JSON when it can be restored from it
// and may be logged: not secret, not holding a secret's value,
// JSON-representable and not too large.
func (sc *scope) valueJSON(v variable.Variable) []byte {
	if v.Sensitive() || schema.Representable(v.Type) != nil {
		return nil
	}
	b, err := marshal(v.Value)
	limit := maxValueJSON
	if isOutput(v.Type) {
		limit = maxMediaJSON
	}
	if err != nil || len(b) > limit || sc.holdsSecret(string(b)) {
		return nil
	}
	return b
}

// stepEvents turns a step's outcome into the events that record it (the
// conversation applies them: conversation.apply).
func (st *State) stepEvents(res StepResult, lim Limits) (events []run.Payload) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, s := range res.Snippets {
		e := s.executed(res.Step)
		e.Actions = st.s.ids.snippet(st.s.m, s.Code)
		// Variable events are made before a large result is kept, so
		// that they describe the snippet's own changes.
		changes := st.s.variableChangeEvents(res.Step, slices.Concat(s.Variables, s.left))
		content, name, kept := st.s.bound(res.Step, "snippet", s.Content(), lim)
		e.Kept = name
		if content != sentSnippet(e, lim.LargeResult) {
			e.Content = content
		}
		events = append(append(append(events, e), changes...), kept...)
	}
	for i := range res.Responses {
		r := &res.Responses[i]
		e := r.completed()
		e.Action = st.s.ids.action(st.s.m, r.Name)
		changes := st.s.variableChangeEvents(res.Step, slices.Concat(r.Variables, r.left()))
		content, name, kept := st.s.bound(res.Step, r.Name, r.Content(), lim)
		e.Kept = name
		if content != sentTool(e, lim.LargeResult) {
			e.Content = content
		}
		events = append(append(append(events, e), changes...), kept...)
	}
	return events
}

// bound keeps a tool result of more than lim.LargeResult bytes as a
// variable and returns what the model gets instead, the variable's name and
// its event. The variable is the instruction's, like any
// the call made: its record in the log names it (Kept).
func (sc *scope) bound(step int, source, content string, lim Limits) (string, string, []run.Payload) {
	if len(content) <= lim.LargeResult {
		return content, "", nil
	}
	if sc.opts.HideFromAI {
		// Plain mode has no references: the model gets the start of the
		// result and is told it was cut, never a name it cannot use.
		return clipJSON(content, lim.LargeResult), "", nil
	}
	name := sc.freeName(source + "_output")
	if err := sc.define(variable.Spec{Name: name, Value: content, Description: "a tool result too large for the conversation"}, step, source); err != nil {
		return clipJSON(content, lim.LargeResult), "", nil
	}
	kept := sc.variableChangeEvents(step, []VariableChange{sc.change(name, variable.Created)})
	head := []rune(content)
	if len(head) > sc.opts.PreviewLimit {
		head = append(head[:sc.opts.PreviewLimit], '…')
	}
	b, _ := marshal(largeResult{
		Note:      fmt.Sprintf("the result was %d characters, so it was stored in the string variable %s; pass <<var:%s>> to actions or read it in Go code", len(content), name, name),
		Variable:  name,
		Reference: schema.Ref(name),
		Start:     string(head),
	})
	return string(b), name, kept
}

// largeResult is what the model gets instead of a result too large for the
// conversation.
type largeResult struct {
	Note      string `json:"note"`
	Variable  string `json:"variable"`
	Reference string `json:"reference"`
	Start     string `json:"start"`
}
