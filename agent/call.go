package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/byref/byref/action"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
	"github.com/byref/byref/variable"
)

// needsApproval reports whether the named action always needs approval.
func (ex *executor) needsApproval(name string) bool {
	ex.st.mu.Lock()
	defer ex.st.mu.Unlock()
	r, ok := ex.st.s.m.byName[name]
	return ok && r.act.NeedsApproval()
}

// resolve parses and resolves a call once, into p: the action, its
// arguments (each a reference, a raw value or a default) and its return
// target. Its error is a *RefusedError whose text is what the model gets.
func (ex *executor) resolve(c ToolCall, p *prepared) error {
	ex.st.mu.Lock()
	err := ex.st.s.prepare(c, p)
	if err == nil {
		p.secretIn = ex.st.s.sensitiveArgs(p)
	}
	ex.st.mu.Unlock()
	if err != nil {
		p.row = nil
		return &RefusedError{Action: c.Name, CallID: c.ID, Msg: err.Error()}
	}
	return nil
}

// call executes one tool call of job j, resolved as p (or refused with
// perr). need is set when the action asked for authorization or input (the
// response is then failed, and the call may be retried after the run's user
// answered); gone is set when the watchdog abandoned the call, whose
// response it made: the caller's goroutine must then end.
func (ex *executor) call(ctx context.Context, j *stepJob, endCall func(SpanEnd), c ToolCall, p *prepared, perr error) (_ ToolResponse, _ *action.Termination, need error, gone bool) {
	resp := ToolResponse{CallID: c.ID, Name: c.Name, start: time.Now()}
	if perr != nil {
		return ex.failErr(resp, perr), nil, nil, false
	}
	resp.Resolution = p.resolution()
	if b := p.row.builtin; b != nil {
		resp, term := b(ex.st, ctx, j, c, p, resp)
		return resp, term, nil, false
	}
	a := p.row.act
	if err := ctx.Err(); err != nil {
		return ex.fail(resp, "the step was cancelled before "+a.Name()+" ran ("+err.Error()+")"), nil, nil, false
	}
	f := &p.flight
	*f = inflight{index: j.next, resp: resp, secret: len(p.secretIn) > 0, step: j.n, timeout: ex.st.opts.CallTimeout, ctx: ctx, callCtx: ctx, endCall: endCall}
	if a.TakesContext() {
		// An action that takes a context gets one with the call's
		// deadline, its own output writers and its call.
		var cancel context.CancelFunc
		f.callCtx, cancel = ex.callContext(ctx, runOf(j.g), c, p, f)
		defer cancel()
	}
	var res callResult
	d, bounded := ex.callBound(ctx, a)
	switch {
	case !bounded:
		res.value, res.err = a.Call(f.callCtx, p.args)
	case j.watched:
		// Once abandoned, this goroutine touches j no more: it is the
		// fresh goroutine's.
		w := ex.steps
		w.arm(f, d)
		res.value, res.err = a.Call(f.callCtx, p.args)
		if !w.disarm(f) {
			return ToolResponse{}, nil, nil, true // late: the result is discarded
		}
	default:
		// A bare State's step runs on the host's goroutine, which only
		// the action can give back: a result later than the deadline is
		// discarded (a failure changes nothing, and keeps its error).
		start := time.Now()
		res.value, res.err = a.Call(f.callCtx, p.args)
		if res.err == nil && time.Since(start) > d {
			return ex.abandoned(f), nil, nil, false
		}
	}
	resp, need = ex.returned(resp, j.n, p, f.out, res)
	return resp, nil, need, false
}

// callContext is the context of a call of an action that takes one: the
// call's deadline, its output writers (f.out) and its call's information,
// with h, the run the call is part of (nil for a bare Execute).
func (ex *executor) callContext(ctx context.Context, h *Handle, c ToolCall, p *prepared, f *inflight) (context.Context, context.CancelFunc) {
	cancel := context.CancelFunc(func() {})
	if ex.st.opts.CallTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, ex.st.opts.CallTimeout)
	}
	f.out = &callOutput{stdout: boundedBuffer{limit: ex.st.opts.MaxOutput}, stderr: boundedBuffer{limit: ex.st.opts.MaxOutput}}
	ctx = action.WithOutput(ctx, &f.out.stdout, &f.out.stderr)
	info := &callInfo{run: h, callID: c.ID, sensitive: p.secretIn, sampled: &f.out.sampled}
	if h == nil {
		// A bare Execute (an MCP server's call): progress goes to the
		// caller's own call, if its context carries one.
		info.outer, _ = action.CallOf(ctx)
	}
	ctx = action.WithCall(context.WithValue(ctx, callKey{}, info), info)
	return ctx, cancel
}

// callBound returns how long a call of a may run from now: CallTimeout, or
// less when the step's deadline comes first; bounded is false when nothing
// bounds it. An action that takes a context sees the deadline: it is given
// a moment more to return with its own error before it is abandoned.
func (ex *executor) callBound(ctx context.Context, a *action.Action) (d time.Duration, bounded bool) {
	d = ex.st.opts.CallTimeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); d <= 0 || left < d {
			d = max(left, 1)
		}
	}
	if d > 0 && a.TakesContext() {
		d += min(max(d/10, 50*time.Millisecond), time.Second)
	}
	return d, d > 0
}

// returned completes the response of a call whose action returned res.
func (ex *executor) returned(resp ToolResponse, step int, p *prepared, out *callOutput, res callResult) (_ ToolResponse, need error) {
	a := p.row.act
	secret := len(p.secretIn) > 0
	resp.Stdout, resp.Stderr = out.texts(secret)
	if out != nil { // an action that takes a context
		resp.sampled = out.sampled.total()
	}
	if secret && res.err != nil && !errors.Is(res.err, action.ErrNeedsHuman) {
		return ex.failErr(resp, &ActionError{Action: a.Name(), CallID: resp.CallID, Step: step, Msg: hideError(a.Name(), res.err), Err: res.err}), nil
	}
	if (resp.Stdout != "" || resp.Stderr != "") && ex.st.hasSecrets() {
		ex.st.mu.Lock()
		resp.Stdout, resp.Stderr = ex.st.s.redact(resp.Stdout), ex.st.s.redact(resp.Stderr)
		ex.st.mu.Unlock()
	}
	if res.err != nil {
		return ex.failed(resp, step, a, res.err)
	}

	// Fingerprints are taken before locking: the value may be large.
	changed := make([]bool, len(p.tracked))
	for i, t := range p.tracked {
		v, _, _ := ex.peek(t.name)
		changed[i] = variable.Fingerprint(v) != t.before
	}

	ex.st.mu.Lock()
	defer ex.st.mu.Unlock()
	if secret {
		// Taint before the changes are described, so that their
		// previews are redacted.
		p.tainted = true
	}
	return ex.st.s.commit(resp, step, a, p, res.value, changed), nil
}

// failed completes the response of a call whose action returned err (or
// panicked).
func (ex *executor) failed(resp ToolResponse, step int, a *action.Action, err error) (_ ToolResponse, need error) {
	var pe *action.PanicError
	if errors.As(err, &pe) {
		msg := fmt.Sprintf("%s panicked: %v. The action has a bug or was given a value it cannot handle; try other arguments or another action.", a.Name(), pe.Value)
		return ex.failErr(resp, &ActionError{Action: a.Name(), CallID: resp.CallID, Step: step, Msg: msg, Err: err}), nil
	}
	if errors.Is(err, action.ErrNeedsHuman) {
		need = err
	}
	if f := (*run.FailureError)(nil); errors.As(err, &f) {
		resp.Failure = f
	}
	return ex.failErr(resp, &ActionError{Action: a.Name(), CallID: resp.CallID, Step: step, Msg: a.Name() + " failed: " + err.Error(), Err: err}), need
}

// commit stores a successful call's result and the changes it made and
// completes the response.
func (sc *scope) commit(resp ToolResponse, step int, a *action.Action, p *prepared, value reflect.Value, changed []bool) ToolResponse {
	if p.tainted && !a.Declassifies() {
		sc.taint(sc.carriers(p)...)
	}
	var modified []string // by name, to describe each variable once
	if a.Result() != nil {
		name, created, err := sc.assignResult(step, p.row, p.target, value, p.tainted && !a.Declassifies())
		if err != nil {
			return sc.failLocked(resp, err.Error())
		}
		resp.resultVar = name
		kind := variable.Assigned
		if created {
			kind = variable.Created
		} else {
			modified = append(modified, name)
		}
		if resp.Variables == nil {
			resp.Variables, sc.change1 = sc.change1, nil
		}
		resp.Variables = append(resp.Variables, sc.change(name, kind))
		if sc.opts.HideFromAI {
			resp.Result = resultJSON(value)
		}
	}
	for i, t := range p.tracked {
		if i >= len(changed) || !changed[i] || t.name == resp.resultVar || slices.Contains(modified, t.name) {
			continue
		}
		if sc.vars.Touch(t.name, step, a.Name()) == nil {
			modified = append(modified, t.name)
			resp.Variables = append(resp.Variables, sc.change(t.name, variable.Modified))
		}
	}
	resp.Success = true
	resp.Duration = time.Since(resp.start)
	return resp
}

// peek reads a variable's value under the lock.
func (ex *executor) peek(name string) (any, reflect.Type, bool) {
	ex.st.mu.Lock()
	defer ex.st.mu.Unlock()
	return ex.st.s.vars.Value(name)
}

// change describes a variable as the model sees it after a change.
func (sc *scope) change(name string, kind variable.ChangeKind) VariableChange {
	v, _ := sc.vars.Head(name)
	last := v.History.Last() // the preview was made when the change was recorded
	shown := last.Preview
	if len(sc.secrets) > 0 {
		shown = sc.redact(shown)
	}
	return VariableChange{Name: name, Type: last.Type, Preview: shown, Change: string(kind)}
}

func resultJSON(v reflect.Value) json.RawMessage {
	if !v.IsValid() {
		return json.RawMessage("null")
	}
	b, err := marshal(v.Interface())
	if err != nil {
		b, _ = marshal(variable.Preview(v.Interface(), 0))
	}
	return b
}

// assignResult stores a call's result in target, or in a new variable.
func (sc *scope) assignResult(step int, r *row, target string, value reflect.Value, tainted bool) (name string, created bool, err error) {
	a := r.act
	var v any
	if value.IsValid() {
		v = value.Interface()
	}
	if target != "" {
		if old, ok := sc.vars.Head(target); ok {
			if tainted && !old.Sensitive() {
				// Mark it before the assignment records its preview.
				sc.taint(target)
			}
			if err := sc.vars.Assign(target, v, step, a.Name()); err != nil {
				return "", false, fmt.Errorf("the result could not be assigned to %s: %w; pass null as return to create a new variable", target, err)
			}
			return target, false, nil
		}
		// The host deleted the target while the call ran: fall through.
	}
	t := a.Result()
	if v != nil && t.Kind() == reflect.Interface {
		t = reflect.TypeOf(v)
	}
	name = sc.freeName(r.resultBase())
	if err := sc.defineNew(variable.Spec{Name: name, Value: v, Type: t, Tainted: tainted}, step, a.Name()); err != nil {
		return "", false, err
	}
	return name, true, nil
}

// fail completes a failed response.
func (ex *executor) fail(resp ToolResponse, msg string) ToolResponse {
	ex.st.mu.Lock()
	defer ex.st.mu.Unlock()
	return ex.st.s.failLocked(resp, msg)
}

// failErr is fail with a typed error, kept in the response (Err) for the
// host; the model gets its text.
func (ex *executor) failErr(resp ToolResponse, err error) ToolResponse {
	ex.st.mu.Lock()
	defer ex.st.mu.Unlock()
	resp = ex.st.s.failLocked(resp, err.Error())
	resp.Err = err
	return resp
}

func (sc *scope) failLocked(resp ToolResponse, msg string) ToolResponse {
	if len(sc.secrets) > 0 { // an action's error or output may quote a secret argument
		msg = sc.redact(msg)
		resp.Stdout, resp.Stderr = sc.redact(resp.Stdout), sc.redact(resp.Stderr)
	}
	resp.Duration = time.Since(resp.start)
	resp.Success = false
	resp.Error = msg
	return resp
}

var nullJSON = []byte("null")

// prepare finds the action, checks the arguments and resolves them. Its
// errors are the messages the model gets.
func (sc *scope) prepare(c ToolCall, p *prepared) error {
	r, ok := sc.m.byName[c.Name]
	if !ok {
		return sc.unknownAction(c.Name)
	}
	if !sc.isAttached(c.Name) {
		return fmt.Errorf("action %s is not attached to this run; attached actions: %s", c.Name, strings.Join(sc.attachedNames(), ", "))
	}
	plain := sc.opts.HideFromAI
	if why := r.unavailable(plain); why != "" {
		return fmt.Errorf("action %s is not available now: %s%s", c.Name, strings.TrimPrefix(why, c.Name+": "), sc.creators(r))
	}
	a := r.act
	text := []byte(c.Arguments)
	if len(text) == 0 || (text[0] <= ' ' || text[0] >= utf8.RuneSelf) && len(bytes.TrimSpace(text)) == 0 {
		text = []byte("{}")
	}
	fs, err := splitObject(text, p.fields)
	p.fields = fs
	if err != nil {
		return fmt.Errorf("the arguments of %s are not a JSON object (%v); send one object such as %s", c.Name, err, example(r, plain))
	}
	if k, dup := fs.duplicate(); dup {
		return fmt.Errorf("the key %q appears more than once in the arguments of %s; send each parameter once", k, c.Name)
	}
	at, ok := p.members(r, fs, plain)
	if !ok {
		return checkNames(r, fs, plain)
	}
	p.row, p.res = r, newResolution(a.NumParams())
	p.record = p.res.Args
	if n := a.NumParams(); n <= len(p.argsBuf) {
		p.args = p.argsBuf[:n:n]
	} else {
		p.args = make([]reflect.Value, n)
	}
	for i := range p.args {
		var raw json.RawMessage
		if k := at[i]; k >= 0 {
			raw = fs[k].raw
		}
		if err := sc.resolveArg(p, i, raw, plain); err != nil {
			return err
		}
	}
	if !plain {
		if raw, ok := fs.get(schema.ReturnProperty); ok && !bytes.Equal(raw, nullJSON) {
			target, err := sc.returnTarget(r, raw)
			if err != nil {
				return err
			}
			p.target = target
		}
	}
	return nil
}

// checkNames refuses arguments that name no parameter.
func checkNames(r *row, fs fields, plain bool) error {
	var unknown []string
	for _, f := range fs {
		if string(f.key) == schema.ReturnProperty && !plain {
			continue
		}
		known := false
		for i := 0; i < r.act.NumParams() && !known; i++ {
			known = string(f.key) == r.param(i).Name
		}
		if !known {
			unknown = append(unknown, string(f.key))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("%s has no parameter %s; its parameters are: %s", r.act.Name(), quoteList(unknown), paramList(r, plain))
}

// resolveArg decodes argument i of a call.
//
// The reference rule: in reference mode, a string argument is a reference
// if and only if it is exactly <<var:NAME>> (schema.ParseRef). For a
// parameter that can take references, a string that resembles one without
// being one (schema.ResemblesRef) is refused with the exact form and the
// compatible variables, never passed on as text. A parameter that cannot
// take references (raw-only, or an enum) refuses an exact reference, and
// takes a string that merely resembles one as the text it is: run_go's
// code may mention the syntax.
func (sc *scope) resolveArg(p *prepared, i int, raw json.RawMessage, plain bool) error {
	a := p.row.act
	param := p.row.param(i)
	p.record[i].Param = param.Name
	if raw == nil || bytes.Equal(raw, nullJSON) {
		if !param.Optional {
			return fmt.Errorf("%s needs parameter %q (%s); it was %s", a.Name(), param.Name, describeParam(p.row, i, plain), missingOrNull(raw))
		}
		p.args[i] = a.Default(i)
		p.record[i].Default = true
		return nil
	}
	// Every reference, and every string that resembles one, holds '<' or
	// ':'; other strings go straight to decoding.
	if !plain && raw[0] == '"' && (bytes.IndexByte(raw, '<') >= 0 || bytes.IndexByte(raw, ':') >= 0) {
		s, err := unquote(raw)
		if err != nil {
			return fmt.Errorf("parameter %q of %s: %v", param.Name, a.Name(), err)
		}
		if name, ok := schema.ParseRef(s); ok {
			if param.RawOnly && param.Type.Kind() == reflect.String {
				// A raw-only text parameter (run_go's code) takes the
				// text as it is.
			} else {
				return sc.resolveRef(p, i, name)
			}
		} else if param.Refs() && schema.ResemblesRef(s) {
			return fmt.Errorf("parameter %q of %s: %q is not a reference, and text that looks like one is refused: a reference is exactly %s, with no spaces, other case, brackets or text around it; compatible variables: %s", param.Name, a.Name(), s, schema.Ref("NAME"), refList(p.row.params[i]))
		}
	}
	if param.Raw == nil {
		return fmt.Errorf("parameter %q of %s takes a reference only (%s); send one of: %s", param.Name, a.Name(), param.Why, refList(p.row.params[i]))
	}
	v := p.arg(i)
	if err := a.DecodeTo(v, i, raw); err != nil {
		return fmt.Errorf("parameter %q of %s: %s; expected %s", param.Name, a.Name(), strings.TrimPrefix(err.Error(), schema.ErrInvalid.Error()+": "), describeParam(p.row, i, plain))
	}
	p.args[i] = v
	p.record[i].Raw = raw
	return nil
}

// resolveRef resolves a reference to the variable name.
func (sc *scope) resolveRef(p *prepared, i int, name string) error {
	a := p.row.act
	param := p.row.param(i)
	g := p.row.params[i]
	if !param.Refs() {
		if param.RawOnly {
			return fmt.Errorf("parameter %q of %s takes a raw value, not a reference; send %s", param.Name, a.Name(), describeParam(p.row, i, false))
		}
		return fmt.Errorf("parameter %q of %s takes one of %s, not a reference", param.Name, a.Name(), enumList(param.Enum))
	}
	v, t, exists := sc.vars.Value(name)
	if !exists {
		return fmt.Errorf("%s is not a variable; compatible variables for %q are: %s", schema.Ref(name), param.Name, refList(g))
	}
	if g == nil || !slices.Contains(g.vars, name) {
		return fmt.Errorf("variable %s is a %s, which cannot be passed as %q (%s); compatible variables: %s", name, variable.TypeName(t), param.Name, variable.TypeName(param.Type), refList(g))
	}
	if v == nil {
		p.args[i] = reflect.Zero(param.Type)
	} else {
		p.args[i] = reflect.ValueOf(v)
	}
	p.record[i].Ref, p.record[i].Type = name, variable.TypeName(t)
	if variable.NeedsFingerprint(t) && !slices.ContainsFunc(p.tracked, func(x trackedRef) bool { return x.name == name }) {
		p.tracked = append(p.tracked, trackedRef{name: name, before: variable.Fingerprint(v)})
	}
	return nil
}

// returnTarget checks the variable named in "return".
func (sc *scope) returnTarget(r *row, raw json.RawMessage) (string, error) {
	a := r.act
	if r.result == nil {
		return "", fmt.Errorf("%s returns no value, so \"return\" must be null or left out", a.Name())
	}
	name, err := unquote(raw)
	if err != nil {
		return "", fmt.Errorf("\"return\" must be the name of a variable (a string) or null, not %s; existing variables that can hold the result: %s", raw, nameList(r.result.vars))
	}
	if ref, ok := schema.ParseRef(name); ok || schema.ResemblesRef(name) {
		if ok {
			name = fmt.Sprintf("%q", ref)
		} else {
			name = "the bare name of one"
		}
		return "", fmt.Errorf("\"return\" takes a variable's bare name, not a reference: send %s, null to create a new variable, or one of: %s", name, nameList(r.result.vars))
	}
	if err := variable.ValidName(name); err != nil {
		return "", fmt.Errorf("\"return\": %q is not a variable name; pass null to create a new variable, or one of: %s", name, nameList(r.result.vars))
	}
	_, t, exists := sc.vars.Value(name)
	if !exists {
		return "", fmt.Errorf("\"return\": there is no variable %s; pass null to create a new variable, or one of: %s", name, nameList(r.result.vars))
	}
	if !slices.Contains(r.result.vars, name) {
		return "", fmt.Errorf("\"return\": variable %s is a %s, which cannot hold the result of %s (%s); pass null to create a new variable, or one of: %s", name, variable.TypeName(t), a.Name(), variable.TypeName(a.Result()), nameList(r.result.vars))
	}
	return name, nil
}
