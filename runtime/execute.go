package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/byref/byref/action"
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

// ToolCall is one call as a model sends it.
type ToolCall struct {
	// ID is the provider's call ID, echoed in the response.
	ID string
	// Name is the action's name.
	Name string
	// Arguments is the JSON object of arguments, as text.
	Arguments string
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
	for _, code := range step.Snippets {
		sctx, endSnippet := st.startSpan(ctx, Span{Kind: SpanSnippet, Name: "snippet", Step: n})
		s := st.snippet(sctx, g, n, "", code)
		var err error
		if !s.Success {
			err = errors.New(s.Error)
		}
		endSnippet(SpanEnd{Err: err})
		res.Snippets = append(res.Snippets, s)
	}
	for _, c := range step.Calls {
		resp, term := st.dispatch(ctx, g, n, c)
		res.Responses = append(res.Responses, resp)
		if term != nil && res.Termination == nil {
			res.Termination = term
		}
	}
	st.logStep(n, step, res)
	return res
}

// oneCall is the result of a step of one call and the first variable
// that call changed, in one allocation: most steps are one call that
// stores its result.
type oneCall struct {
	resp   [1]ToolResponse
	change [1]VariableChange
}

// dispatch runs call c of step n, asking g (when not nil) for approvals
// and answers.
func (st *State) dispatch(ctx context.Context, g gate, n int, c ToolCall) (ToolResponse, *action.Termination) {
	// The call is parsed and resolved once, here; only arguments an
	// approver edited are resolved again. A call that does not resolve
	// fails without asking anybody.
	p, perr := st.resolve(c)
	defer st.release()
	var refs func() map[string]run.VariableRef
	if g == nil {
		if perr == nil && p.row.act.NeedsApproval() || perr != nil && st.needsApproval(c.Name) {
			// An action that needs approval never runs where nobody can
			// give it (a bare Execute, an MCP call).
			return st.refuse(c, c.Name+" needs a person's approval, and nobody can approve here; call it in a run"), nil
		}
	} else {
		a, deny := st.approve(ctx, g, c, p, perr)
		if deny != "" {
			return st.refuse(a.call, deny), nil
		}
		c, p, perr, refs = a.call, a.p, a.perr, a.refs
	}
	callCtx, endCall := st.startSpan(ctx, Span{Kind: SpanTool, Name: c.Name, Step: n, CallID: c.ID})
	var resp ToolResponse
	var term *action.Termination
	for attempt := 0; ; attempt++ {
		var need error
		resp, term, need = st.call(callCtx, g, n, c, p, perr)
		if need == nil || g == nil || attempt == maxHumanRetries {
			break
		}
		retry, deny := g.human(ctx, c, refs, need)
		if deny != "" {
			resp.Error = deny
			break
		}
		callCtx = retry
	}
	var callErr error
	if !resp.Success {
		callErr = errors.New(resp.Error)
		st.log().Debug("call failed", "action", c.Name, "call", c.ID, "step", n, "err", resp.Error)
	}
	endCall(SpanEnd{Err: callErr})
	return resp, term
}

// approval is a call as its approver let it run: the call (its arguments
// maybe edited), its resolution or why it has none, and its resolved
// references, for the approver.
type approval struct {
	call ToolCall
	p    *prepared
	perr error
	refs func() map[string]run.VariableRef
}

// approve asks g to approve the resolved call p (refused with perr) and
// resolves it again when the approver edited its arguments. deny says why
// the call must not run, or is "".
func (st *State) approve(ctx context.Context, g gate, c ToolCall, p *prepared, perr error) (a approval, deny string) {
	a = approval{call: c, p: p, perr: perr}
	a.refs = func() map[string]run.VariableRef { return st.refsOf(a.p) }
	if perr == nil && !p.row.builtin {
		sent := c.Arguments
		if deny := g.approveCall(ctx, &a.call, a.refs, p.row.act.NeedsApproval()); deny != "" {
			return a, deny
		}
		if a.call.Arguments != sent {
			a.p, a.perr = st.resolve(a.call)
		}
	}
	return a, ""
}

// refuse returns the response of call c, refused.
func (st *State) refuse(c ToolCall, why string) ToolResponse {
	return st.fail(ToolResponse{CallID: c.ID, Name: c.Name, start: time.Now()}, why)
}
