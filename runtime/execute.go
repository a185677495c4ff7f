package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// Step is one turn of the model's instructions.
type Step struct {
	// Snippets are Go snippets (from fenced code blocks in the model's
	// text); they run first, in order.
	Snippets []string
	// Calls are tool calls exactly as the model sent them; they run after
	// the snippets, in order. A call to run_go runs its code as a snippet.
	Calls []ToolCall
	// Reason is the model's stated reason for the step, recorded in the
	// history (and in replay code as a comment). Optional.
	Reason string
}

// ToolCall is one call as a model sends it: llm.ToolCall, one type from the
// provider's answer to the step (ID, the action's Name, the Arguments
// object as text). The log records it as run.ToolCall.
type ToolCall = llm.ToolCall

// logged is c as the run's log records it: the one conversion between the
// two (package run, the log's core, imports no model package).
func logged(c ToolCall) run.ToolCall {
	return run.ToolCall{ID: c.ID, Action: c.Name, Arguments: c.Arguments, Signature: c.Signature}
}

// loggedWith is logged with the references as resolved, for a person.
func loggedWith(c ToolCall, refs map[string]run.VariableRef) *run.ToolCall {
	l := logged(c)
	l.References = refs
	return &l
}

// fromLog is a call of the log as a model sent it.
func fromLog(c run.ToolCall) ToolCall {
	return ToolCall{ID: c.ID, Name: c.Action, Arguments: c.Arguments, Signature: c.Signature}
}

// VariableChange is a variable a call created or changed, as the model sees
// it.
type VariableChange struct {
	// Name is the variable's name.
	Name string `json:"name"`
	// Type is its Go type.
	Type string `json:"type"`
	// Preview is its bounded, redacted preview after the change.
	Preview string `json:"preview"`
	// Change is "created", "assigned" or "modified".
	Change string `json:"change"`
}

// ToolResponse is the outcome of one call, to send back to the model.
type ToolResponse struct {
	// CallID and Name identify the call.
	CallID, Name string
	// Success reports whether the call ran and returned no error.
	Success bool
	// Error says what went wrong and how to fix the call.
	Error string
	// Stdout and Stderr are what the action wrote, bounded.
	Stdout, Stderr string
	// Variables are the variables the call created or changed.
	Variables []VariableChange
	// Result is the result's JSON in plain mode (Options.HideFromAI).
	Result json.RawMessage
	// Duration is how long the call ran.
	Duration time.Duration
	// Resolution is how the call's arguments were resolved (nil when they
	// could not be).
	Resolution *run.Resolution
	// Err is the typed failure behind Error, for the host: a
	// *RefusedError, an *ActionError, or a snippet's error (run_go). It is
	// not sent to the model.
	Err error

	resultVar string // the variable the result went to, for the log
	// start is when the call started, for the log.
	start time.Time
	// ran is what a run_go call ran, for the log; nil for any other
	// call, which keeps the response small.
	ran *ranSnippet
	// Failure is set when the action returned a *run.FailureError: the run
	// fails with it instead of going on.
	Failure *run.FailureError `json:"-"`
}

// ranSnippet is what a run_go call ran: its code, and the variables its
// snippet may have changed when it failed.
type ranSnippet struct {
	snippet *run.Snippet
	left    []VariableChange
}

// snippet returns the code a run_go call ran, or nil.
func (r *ToolResponse) snippet() *run.Snippet {
	if r.ran == nil {
		return nil
	}
	return r.ran.snippet
}

// left returns the variables a failed run_go snippet may have changed.
func (r *ToolResponse) left() []VariableChange {
	if r.ran == nil {
		return nil
	}
	return r.ran.left
}

// completed is the response's record in the log; its Kept is set by the
// caller when the content was kept as a variable.
func (r *ToolResponse) completed() run.ToolCallCompleted {
	return run.ToolCallCompleted{
		CallID: r.CallID, Success: r.Success, Error: r.Error, Duration: r.Duration, Stdout: r.Stdout, Stderr: r.Stderr,
		Created: infos(r.Variables, "created"), Modified: append(infos(r.Variables, "assigned", "modified"), infos(r.left(), "modified")...),
		Resolution: r.Resolution, Result: r.resultVar, Snippet: r.snippet(), Start: r.start,
	}
}

// folded is completed for a bare State's history fold, which keeps only
// the variables' names: its Created and Modified are written into *buf,
// reused from one call to the next, instead of slices of their own.
func (r *ToolResponse) folded(buf *[]run.VariableInfo) run.ToolCallCompleted {
	b := (*buf)[:0]
	b = appendInfos(b, r.Variables, "created")
	k := len(b)
	b = appendInfos(b, r.Variables, "assigned", "modified")
	b = appendInfos(b, r.left(), "modified")
	*buf = b
	c := run.ToolCallCompleted{
		CallID: r.CallID, Success: r.Success, Error: r.Error, Duration: r.Duration, Stdout: r.Stdout, Stderr: r.Stderr,
		Resolution: r.Resolution, Result: r.resultVar, Snippet: r.snippet(), Start: r.start,
	}
	if k > 0 {
		c.Created = b[:k:k]
	}
	if len(b) > k {
		c.Modified = b[k:]
	}
	return c
}

// toolContent is the JSON shape of a ToolResponse for the model.
type toolContent struct {
	Success   bool             `json:"success"`
	Error     string           `json:"error,omitempty"`
	Stdout    string           `json:"stdout,omitempty"`
	Stderr    string           `json:"stderr,omitempty"`
	Variables []VariableChange `json:"variables,omitempty"`
	Result    json.RawMessage  `json:"result,omitempty"`
}

// Content returns the response as the JSON text sent to the model as the
// tool result.
func (r ToolResponse) Content() string {
	if r.Result == nil {
		// The common case, written directly: the same text as
		// encoding/json's without HTML escaping, in one allocation.
		var buf [512]byte // on the stack when it fits: the string is the one allocation
		return string(appendContent(buf[:0], r.Success, r.Error, r.Stdout, r.Stderr, r.Variables))
	}
	b, err := marshal(toolContent{r.Success, r.Error, r.Stdout, r.Stderr, r.Variables, r.Result})
	if err != nil { // only a Result that is not JSON could cause this
		b, _ = marshal(toolContent{Success: false, Error: "the result could not be written as JSON: " + err.Error()})
	}
	return string(b)
}

// marshal is json.Marshal without HTML escaping, so that <<var:name>> stays
// readable for the model.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// StepResult is the outcome of a step.
type StepResult struct {
	// Step is the step's number, from 1.
	Step int
	// Snippets has one entry per snippet of Step.Snippets, in order.
	Snippets []SnippetResponse
	// Responses has one entry per call, in order.
	Responses []ToolResponse
	// Termination is set when the step called terminate successfully.
	Termination *action.Termination
}

// Execute runs one step: every call in order, each independent of the
// others' failures. It never returns an error: a bad call gets a failed
// ToolResponse and changes nothing. A cancelled ctx fails the calls that had
// not finished. Steps are serialised: a concurrent Execute waits.
func (st *State) Execute(ctx context.Context, step Step) StepResult {
	return st.execute(ctx, step, nil)
}

// maxHumanRetries bounds how often one call may ask for authorization or
// input before it counts as failed.
const maxHumanRetries = 3

// execute runs a step, asking g (when not nil) for approvals and answers.
// A run's step (g is its Handle) runs on the State's step goroutine, watched
// from this one; a bare State's runs on the caller's goroutine (see
// watchdog.go).
func (st *State) execute(ctx context.Context, step Step, g gate) StepResult {
	st.execMu.Lock()
	defer st.execMu.Unlock()
	res := StepResult{}
	var one *oneCall
	if len(step.Calls) == 1 {
		one = new(oneCall)
		res.Responses = one.resp[:0:1]
	} else {
		res.Responses = make([]ToolResponse, 0, len(step.Calls))
	}
	st.mu.Lock()
	st.step++
	n := st.step
	if one != nil {
		st.change1 = one.change[:0:1]
	}
	st.mu.Unlock()
	res.Step = n

	ctx, endStep := st.startSpan(ctx, Span{Kind: SpanStep, Name: "step", Step: n})
	defer endStep(SpanEnd{})
	if st.steps == nil {
		st.steps = new(stepper)
	}
	j := &st.steps.job
	*j = stepJob{st: st, ctx: ctx, step: step, g: g, n: n, res: res, watched: g != nil}
	if j.watched {
		st.steps.run(j)
	} else {
		st.runJob(j)
	}
	res = j.res
	*j = stepJob{}
	st.logStep(n, step, res)
	return res
}

// runJob runs what is left of step j: its snippets, then its calls. It
// reports false when the watchdog abandoned one of its calls: a fresh
// goroutine goes on with j, and this one must end.
func (st *State) runJob(j *stepJob) bool {
	for len(j.res.Snippets) < len(j.step.Snippets) {
		sctx, endSnippet := st.startSpan(j.ctx, Span{Kind: SpanSnippet, Name: "snippet", Step: j.n})
		s := st.snippet(sctx, j.g, j.n, "", j.step.Snippets[len(j.res.Snippets)])
		var err error
		if !s.Success {
			err = errors.New(s.Error)
		}
		endSnippet(SpanEnd{Err: err})
		j.res.Snippets = append(j.res.Snippets, s)
	}
	for j.next < len(j.step.Calls) {
		c := j.step.Calls[j.next]
		p := newPrepared()
		d := st.dispatch(j, c, p)
		putPrepared(p) // an abandoned call's too: its action returned
		if d.gone {
			return false
		}
		j.res.Responses = append(j.res.Responses, d.resp)
		if d.term != nil && j.res.Termination == nil {
			j.res.Termination = d.term
		}
		j.next++
	}
	return true
}

// oneCall is the result of a step of one call and the first variable
// that call changed, in one allocation: most steps are one call that
// stores its result.
type oneCall struct {
	resp   [1]ToolResponse
	change [1]VariableChange
}

// dispatched is what became of a call: its response and termination, or
// gone when the watchdog abandoned it.
type dispatched struct {
	resp ToolResponse
	term *action.Termination
	gone bool
}

// dispatch runs call c of step j, resolved into p, asking j.g (when not
// nil) for approvals and answers.
func (st *State) dispatch(j *stepJob, c ToolCall, p *prepared) dispatched {
	ctx, g, n := j.ctx, j.g, j.n
	// The call is parsed and resolved once, here; only arguments an
	// approver edited are resolved again. A call that does not resolve
	// fails without asking anybody.
	perr := st.resolve(c, p)
	var refs func() map[string]run.VariableRef
	if g == nil {
		if perr == nil && p.row.act.NeedsApproval() || perr != nil && st.needsApproval(c.Name) {
			// An action that needs approval never runs where nobody can
			// give it (a bare Execute, an MCP call).
			return dispatched{resp: st.refuse(c, c.Name+" needs a person's approval, and nobody can approve here; call it in a run")}
		}
	} else {
		a, deny := st.approve(ctx, g, c, p, perr)
		if deny != "" {
			return dispatched{resp: st.refuse(a.call, deny)}
		}
		c, perr, refs = a.call, a.perr, a.refs
	}
	callCtx, endCall := st.startSpan(ctx, Span{Kind: SpanTool, Name: c.Name, Step: n, CallID: c.ID})
	var d dispatched
	for attempt := 0; ; attempt++ {
		var need error
		d.resp, d.term, need, d.gone = st.call(callCtx, j, endCall, c, p, perr)
		if d.gone {
			return d // the watchdog ended the call's span
		}
		if need == nil || g == nil || attempt == maxHumanRetries {
			break
		}
		retry, deny := g.human(ctx, c, refs, need)
		if deny != "" {
			d.resp.Error = deny
			break
		}
		callCtx = retry
	}
	var callErr error
	if !d.resp.Success {
		callErr = errors.New(d.resp.Error)
		st.log().Debug("call failed", "action", c.Name, "call", c.ID, "step", n, "err", d.resp.Error)
	}
	endCall(SpanEnd{Err: callErr})
	return d
}

// approval is a call as its approver let it run: the call (its arguments
// maybe edited), why it has no resolution, and its resolved references,
// for the approver.
type approval struct {
	call ToolCall
	perr error
	refs func() map[string]run.VariableRef
}

// approve asks g to approve the call resolved into p (refused with perr)
// and resolves it again, into p, when the approver edited its arguments.
// deny says why the call must not run, or is "".
func (st *State) approve(ctx context.Context, g gate, c ToolCall, p *prepared, perr error) (a approval, deny string) {
	a = approval{call: c, perr: perr}
	a.refs = func() map[string]run.VariableRef {
		if a.perr != nil {
			return st.refsOf(nil)
		}
		return st.refsOf(p)
	}
	if perr == nil && p.row.builtin == nil {
		sent := c.Arguments
		if deny := g.approveCall(ctx, &a.call, a.refs, p.row.act.NeedsApproval()); deny != "" {
			return a, deny
		}
		if a.call.Arguments != sent {
			p.reset()
			a.perr = st.resolve(a.call, p)
		}
	}
	return a, ""
}

// refuse returns the response of call c, refused.
func (st *State) refuse(c ToolCall, why string) ToolResponse {
	return st.fail(ToolResponse{CallID: c.ID, Name: c.Name, start: time.Now()}, why)
}

func infos(changes []VariableChange, kinds ...string) []run.VariableInfo {
	return appendInfos(nil, changes, kinds...)
}

// appendInfos is infos appended to out.
func appendInfos(out []run.VariableInfo, changes []VariableChange, kinds ...string) []run.VariableInfo {
	for _, c := range changes {
		for _, k := range kinds {
			if c.Change == k {
				out = append(out, run.VariableInfo{Name: c.Name, Type: c.Type, Preview: c.Preview})
			}
		}
	}
	return out
}

// gate is how execute asks a human, when the loop drives it: it is nil for
// a bare Execute, which never waits.
type gate interface {
	// approveCall may edit c's arguments; it returns why the call must not
	// run, or "".
	// refs gives the call's references as resolved, for the approver.
	approveCall(ctx context.Context, c *ToolCall, refs func() map[string]run.VariableRef, needsApproval bool) (deny string)
	// approveSnippet returns why the snippet must not run, or "". guarded
	// names the actions declared NeedsApproval that the snippet calls: it
	// then needs approval whatever the strategy.
	approveSnippet(ctx context.Context, code string, access interp.Access, guarded []string) (deny string)
	// human waits for the authorization or input an action asked for and
	// returns the context to retry the call with, or why not to.
	human(ctx context.Context, c ToolCall, refs func() map[string]run.VariableRef, need error) (retry context.Context, deny string)
	// ask waits for the user's answer to a question.
	ask(ctx context.Context, c ToolCall, question string) (answer string, deny string)
}
