package agent

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/variable"
)

// snippetContext is the name under which snippets see the step's context.
const snippetContext = "ctx"

// extractCode returns the Go code blocks of a model's text.
func extractCode(text string) []string { return interp.ExtractCode(text) }

// interpreter returns the runtime's interpreter, creating it on first use.
func (sc *scope) interpreter() (*interp.Interpreter, error) {
	if sc.in == nil {
		in, err := interp.New(sc.opts.Snippets)
		if err != nil {
			return nil, err
		}
		sc.in = in
	}
	return sc.in, nil
}

// snippet runs one Go snippet as instruction of step n.
func (ex *executor) snippet(ctx context.Context, g gate, n int, callID, code string) SnippetResponse {
	code = interp.NormalizeCode(code)
	resp := SnippetResponse{CallID: callID, Code: code, start: time.Now()}
	fail := func(msg string) SnippetResponse {
		ex.st.mu.Lock()
		defer ex.st.mu.Unlock()
		msg = ex.st.s.redact(msg)
		resp.Success, resp.Error, resp.Duration = false, msg, time.Since(resp.start)
		resp.Stdout, resp.Stderr = ex.st.s.redact(resp.Stdout), ex.st.s.redact(resp.Stderr)
		return resp
	}

	ex.st.mu.Lock()
	ip, err := ex.st.s.interpreter()
	if err != nil {
		ex.st.mu.Unlock()
		return fail("the Go interpreter could not start: " + err.Error())
	}
	names := ex.st.s.vars.Names()
	types := make(map[string]reflect.Type, len(names))
	vars := make([]interp.Var, 0, len(names))
	before := make(map[string]uint64)
	for _, name := range names {
		value, t, _ := ex.st.s.vars.Value(name)
		types[name] = t
		vars = append(vars, interp.Var{Name: name, Value: typedValue(value, t)})
		if variable.NeedsFingerprint(t) {
			before[name] = variable.Fingerprint(value)
		}
	}
	guarded := ex.st.s.guardedActions(code)
	ex.st.mu.Unlock()

	access, aerr := interp.Analyze(code, types)
	resp.Reads, resp.Writes = access.Reads, access.Writes
	// A snippet that reads a sensitive variable (or that the analysis
	// cannot follow, while there are any) taints what it creates and
	// changes, and its output and errors are hidden.
	ex.st.mu.Lock()
	read := ex.st.s.anySensitive(slices.Concat(access.Reads, access.Writes))
	if aerr != nil && len(ex.st.s.secrets) > 0 {
		read = slices.Sorted(maps.Keys(ex.st.s.secrets))
	}
	tainted := len(read) > 0
	ex.st.mu.Unlock()

	if g != nil {
		if deny := g.approveSnippet(ctx, code, access, guarded); deny != "" {
			return fail(deny)
		}
	} else if len(guarded) > 0 {
		return fail("the snippet calls " + strings.Join(guarded, ", ") + ", which needs a person's approval, and nobody can approve here; call it as a tool call in a run")
	}

	evalCtx, cancel := ctx, context.CancelFunc(func() {})
	if ex.st.opts.CallTimeout > 0 {
		evalCtx, cancel = context.WithTimeout(ctx, ex.st.opts.CallTimeout)
	}
	defer cancel()
	// Actions called from the snippet run under its deadline, write into
	// its output and know their call, like tool calls.
	actionOut := &boundedBuffer{limit: ex.st.opts.MaxOutput}
	actionCtx := action.WithOutput(evalCtx, actionOut, actionOut)
	info := &callInfo{run: runOf(g), callID: callID}
	if tainted {
		info.sensitive = read
	}
	actionCtx = action.WithCall(context.WithValue(actionCtx, callKey{}, info), info)
	ex.st.mu.Lock()
	funcs := ex.st.s.snippetFuncs(actionCtx)
	ex.st.mu.Unlock()
	if _, taken := types[snippetContext]; !taken {
		// Methods of host values (a *browser.Browser) take a context:
		// snippets get the step's as ctx.
		vars = append(vars, interp.Var{Name: snippetContext, Value: reflect.ValueOf(&evalCtx).Elem()})
	}
	input := interp.Input{Code: code, Vars: vars, Funcs: funcs}
	live := ex.liveOutput(runOf(g), n, callID, tainted)
	if live != nil {
		input.Stdout = live
	}
	res, err := ip.Eval(evalCtx, input)
	if live != nil {
		live.flush()
	}
	resp.Stdout, resp.Stderr = res.Stdout+actionOut.String(), res.Stderr
	if tainted {
		resp.Stdout, resp.Stderr = hideOutput(resp.Stdout), hideOutput(resp.Stderr)
	}
	if err != nil {
		return fail(ex.snippetFailed(&resp, err, res, before, n, tainted))
	}

	ex.st.mu.Lock()
	defer ex.st.mu.Unlock()
	return ex.st.s.keepSnippetLocked(resp, res, names, before, n, tainted)
}

// keepSnippetLocked keeps the changes of snippet step n, which returned
// res, and completes its response: all of them or, when one cannot be
// kept, none. names are the variables the snippet was given, and before
// their fingerprints.
func (sc *scope) keepSnippetLocked(resp SnippetResponse, res interp.Result, names []string, before map[string]uint64, n int, tainted bool) SnippetResponse {
	// Check every change before making any: a snippet's changes are kept
	// all together or not at all.
	var assigns []string
	for _, name := range res.Created {
		if err := variable.ValidName(name); err != nil {
			return sc.failSnippetLocked(resp, fmt.Sprintf("the snippet declared %s, which cannot be a variable: %v; rename it", name, err))
		}
		if _, isAction := sc.m.byName[name]; isAction {
			return sc.failSnippetLocked(resp, fmt.Sprintf("the snippet declared %s, which is the name of an action; rename it", name))
		}
	}
	for _, name := range names {
		v, ok := res.Values[name]
		if !ok {
			continue
		}
		old, t, exists := sc.vars.Value(name)
		if !exists || !(slices.Contains(res.Assigned, name) || slices.Contains(res.Created, name)) || sameValue(old, v) {
			continue
		}
		if v.IsValid() && !v.Type().AssignableTo(t) {
			return sc.failSnippetLocked(resp, fmt.Sprintf("the snippet gave %s a %s, but it is a %s", name, v.Type(), variable.TypeName(t)))
		}
		assigns = append(assigns, name)
	}
	for _, name := range res.Created {
		if _, _, exists := sc.vars.Value(name); exists {
			continue // re-declared: an assignment
		}
		v := res.Values[name]
		if err := sc.define(variable.Spec{Name: name, Value: v.Interface(), Type: v.Type(), Tainted: tainted}, n, "snippet"); err != nil {
			return sc.failSnippetLocked(resp, err.Error()) // checked above; cannot happen
		}
		resp.Variables = append(resp.Variables, sc.change(name, variable.Created))
	}
	for _, name := range names {
		if slices.Contains(assigns, name) {
			if tainted {
				sc.taint(name)
			}
			_ = sc.vars.Assign(name, valueOf(res.Values[name]), n, "snippet") // checked above
			resp.Variables = append(resp.Variables, sc.change(name, variable.Assigned))
			continue
		}
		old, t, exists := sc.vars.Value(name)
		if fp, had := before[name]; exists && had && variable.NeedsFingerprint(t) && variable.Fingerprint(old) != fp {
			if tainted {
				sc.taint(name)
			}
			_ = sc.vars.Touch(name, n, "snippet")
			resp.Variables = append(resp.Variables, sc.change(name, variable.Modified))
		}
	}
	resp.Success = true
	resp.Stdout, resp.Stderr = sc.redact(resp.Stdout), sc.redact(resp.Stderr)
	resp.Duration = time.Since(resp.start)
	return resp
}

// snippetFailed records in resp the failure err of snippet step n, which
// returned res, and returns the model's message: what the snippet may have
// changed in place before failing is told and recorded.
func (ex *executor) snippetFailed(resp *SnippetResponse, err error, res interp.Result, before map[string]uint64, n int, tainted bool) string {
	resp.Err = err
	// The interpreter put back what it saved; whatever still differs,
	// or could not be saved, is told to the model and recorded.
	ex.st.mu.Lock()
	changed := ex.st.s.leftChangedLocked(before, res.Unrestored, n, tainted)
	for _, name := range changed {
		resp.left = append(resp.left, ex.st.s.change(name, variable.Modified))
	}
	ex.st.mu.Unlock()
	msg := err.Error()
	if tainted {
		msg = hideError("the snippet", err)
	}
	if len(changed) > 0 {
		msg += fmt.Sprintf("\nThe snippet failed, but it may have changed %s in place before failing (a change that could not be undone); check before relying on it.", strings.Join(changed, ", "))
	}
	return msg
}

// liveOutput is the writer that shows the output of snippet step n to the
// followers of h, the run it is part of, line by line (live.go); nil for a
// bare Execute (h is nil), or a tainted snippet.
func (ex *executor) liveOutput(h *Handle, n int, callID string, tainted bool) *lineWriter {
	if h == nil || tainted {
		return nil
	}
	live := &lineWriter{h: h, step: n, callID: callID}
	if callID == "" { // a code block of the model's text
		live.callID = "snippet-" + strconv.Itoa(n) + "-" + strconv.FormatInt(h.snippets.Add(1), 10)
	}
	ex.st.mu.Lock()
	if len(ex.st.s.secrets) > 0 {
		live.red = ex.st.s.redactor()
	}
	ex.st.mu.Unlock()
	return live
}

// leftChangedLocked names the variables a failed snippet may have left
// changed: those whose fingerprint differs from before it ran, and those
// whose storage the interpreter could not save. Each gets a Modified entry
// in its history at step n, and is tainted when the snippet was.
func (sc *scope) leftChangedLocked(before map[string]uint64, unrestored []string, n int, tainted bool) []string {
	var changed []string
	for _, name := range sc.vars.Names() {
		old, _, _ := sc.vars.Value(name)
		fp, had := before[name]
		if (had && variable.Fingerprint(old) != fp) || slices.Contains(unrestored, name) {
			_ = sc.vars.Touch(name, n, "snippet")
			if tainted {
				sc.taint(name)
			}
			changed = append(changed, name)
		}
	}
	return changed
}

func (sc *scope) failSnippetLocked(resp SnippetResponse, msg string) SnippetResponse {
	msg = sc.redact(msg)
	resp.Success, resp.Error, resp.Duration = false, msg, time.Since(resp.start)
	return resp
}

// typedValue returns value as a reflect.Value of the variable's type t.
func typedValue(value any, t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	if value != nil {
		v.Set(reflect.ValueOf(value))
	}
	return v
}

func valueOf(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	return v.Interface()
}

// sameValue reports whether a snippet left a variable's value as it was,
// by fingerprint (== could panic: a comparable struct may hold a slice in
// an interface field).
func sameValue(old any, v reflect.Value) bool {
	nv := valueOf(v)
	if old == nil || nv == nil {
		return old == nil && nv == nil
	}
	return reflect.TypeOf(old) == reflect.TypeOf(nv) && variable.Fingerprint(old) == variable.Fingerprint(nv)
}

// guardedActions names the actions declared NeedsApproval that code calls
// (a scan of its identifiers).
func (sc *scope) guardedActions(code string) []string {
	var guarded []string
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", fset.Base(), len(code)), []byte(code), nil, 0)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return guarded
		}
		if tok != token.IDENT || slices.Contains(guarded, lit) {
			continue
		}
		if r, ok := sc.m.byName[lit]; ok && r.act.NeedsApproval() && sc.isAttached(lit) {
			guarded = append(guarded, lit)
		}
	}
}

// snippetFuncs makes every available action callable from a snippet as a Go
// function with the action's own signature (without the context, which is
// the step's); an action that takes its arguments as a struct takes them
// as positional arguments, one per field in the order of its tool schema,
// so that a snippet needs neither the struct's type nor its package.
func (sc *scope) snippetFuncs(ctx context.Context) map[string]reflect.Value {
	funcs := make(map[string]reflect.Value, len(sc.m.rows))
	for _, r := range sc.m.rows {
		a := r.act
		if r.builtin != nil || !sc.isAttached(a.Name()) {
			continue
		}
		ft := reflect.TypeOf(a.Func())
		in := make([]reflect.Type, 0, max(ft.NumIn(), a.NumParams()))
		for i := 0; i < a.NumParams(); i++ {
			in = append(in, a.Param(i).Type)
		}
		out := make([]reflect.Type, ft.NumOut())
		for i := range out {
			out[i] = ft.Out(i)
		}
		funcs[a.Name()] = reflect.MakeFunc(reflect.FuncOf(in, out, false), func(args []reflect.Value) []reflect.Value {
			res, err := a.Call(ctx, args)
			if pe := (*action.PanicError)(nil); errors.As(err, &pe) {
				panic(fmt.Sprintf("%s panicked: %v", a.Name(), pe.Value))
			}
			results := make([]reflect.Value, 0, 2)
			if a.Result() != nil {
				if !res.IsValid() {
					res = reflect.Zero(a.Result())
				}
				results = append(results, res)
			}
			if a.ReturnsError() {
				ev := reflect.New(reflect.TypeFor[error]()).Elem()
				if err != nil {
					ev.Set(reflect.ValueOf(err))
				}
				results = append(results, ev)
			}
			return results
		})
	}
	return funcs
}
