package runtime

import (
	"reflect"

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
		v, exists := st.vars.Head(a.Ref)
		if !exists {
			continue
		}
		if refs == nil {
			refs = map[string]run.VariableRef{}
		}
		refs[a.Param] = run.VariableRef{Variable: a.Ref, Type: v.TypeName(), Preview: st.redact(v.Preview(st.opts.PreviewLimit))}
	}
	return refs
}

// variableEvents records the named variables as created (the starting
// variables of a run); callers hold mu.
func (st *State) variableEvents(names []string, created bool) []run.Payload {
	out := make([]run.Payload, 0, len(names))
	for _, n := range names {
		v, ok := st.vars.Head(n)
		if !ok {
			continue
		}
		info := run.VariableInfo{Name: n, Type: v.TypeName(), Preview: st.redact(v.Preview(st.opts.PreviewLimit))}
		step := v.History.Last().Step
		gt, types := st.goTypeOf(v.Type, info.Type)
		if created {
			out = append(out, run.VariableCreated{Step: step, Variable: info, Secret: v.Secret, Tainted: v.Tainted, Value: st.valueJSON(v), MediaType: mediaType(v.Value), GoType: gt, Types: types})
		} else {
			out = append(out, run.VariableModified{Step: step, Variable: info, Secret: v.Secret, Tainted: v.Tainted, Value: st.valueJSON(v), MediaType: mediaType(v.Value), GoType: gt, Types: types})
		}
	}
	return out
}

// variableChangeEvents records the variables a call or snippet changed;
// callers hold mu.
func (st *State) variableChangeEvents(step int, changes []VariableChange) []run.Payload {
	out := make([]run.Payload, 0, len(changes))
	for _, c := range changes {
		v, ok := st.vars.Head(c.Name)
		if !ok {
			continue
		}
		info := run.VariableInfo{Name: c.Name, Type: c.Type, Preview: c.Preview}
		gt, types := st.goTypeOf(v.Type, info.Type)
		if c.Change == string(variable.Created) {
			out = append(out, run.VariableCreated{Step: step, Variable: info, Secret: v.Secret, Tainted: v.Tainted, Value: st.valueJSON(v), MediaType: mediaType(v.Value), GoType: gt, Types: types})
		} else {
			out = append(out, run.VariableModified{Step: step, Variable: info, Secret: v.Secret, Tainted: v.Tainted, Value: st.valueJSON(v), MediaType: mediaType(v.Value), GoType: gt, Types: types})
		}
	}
	return out
}

// valueJSON is a variable's value as JSON when it can be restored from it
// and may be logged: not secret, not holding a secret's value,
// JSON-representable and not too large; callers hold mu.
func (st *State) valueJSON(v variable.Variable) []byte {
	if v.Sensitive() || schema.Representable(v.Type) != nil {
		return nil
	}
	b, err := marshal(v.Value)
	limit := maxValueJSON
	if isOutput(v.Type) {
		limit = maxMediaJSON
	}
	if err != nil || len(b) > limit || st.holdsSecret(string(b)) {
		return nil
	}
	return b
}
