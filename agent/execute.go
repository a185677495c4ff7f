package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/run"
)

// executor runs a State's steps, one at a time: it resolves, calls and
// commits a step's calls and runs its snippets, on the State's scope under
// the State's lock. Its own lock serialises the steps and guards the
// stepper that runs them.
type executor struct {
	st *State
	mu sync.Mutex // serialises steps
	// steps runs the steps on their goroutine and watches their calls
	// (watchdog.go); made by the first step.
	steps *stepper
}

// Execute runs one step: every call in order, each independent of the
// others' failures. It never returns an error: a bad call gets a failed
// ToolResponse and changes nothing. A cancelled ctx fails the calls that had
// not finished. Steps are serialised: a concurrent Execute waits.
//
// The step is recorded in the State's History when the State has no run
// (Agent.NewState). On the State of a run (Handle.State) it changes the
// run's variables but is not one of the run's steps: the model did not
// ask for it, so the run's log, its History and its conversation with the
// model do not get it.
func (st *State) Execute(ctx context.Context, step Step) StepResult {
	// With no gate the step goes to the State's own log (logStep): a bare
	// State's fold, or nothing for a run's State; neither can fail.
	res, _ := st.exec.execute(ctx, step, nil)
	return res
}

// maxHumanRetries bounds how often one call may ask for authorization or
// input before it counts as failed.
const maxHumanRetries = 3

// execute runs a step, asking g (when not nil) for approvals and answers,
// and records it behind stepLog (logStep): in the log of the run g names,
// or, with no gate, in the State's own; the error is the log's. A run's step (g is its Handle) runs on the
// State's step goroutine, watched from this one; a bare State's runs on the
// caller's goroutine (see watchdog.go).
func (ex *executor) execute(ctx context.Context, step Step, g gate) (StepResult, error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	res := StepResult{}
	var one *oneCall
	if len(step.Calls) == 1 {
		one = new(oneCall)
		res.Responses = one.resp[:0:1]
	} else {
		res.Responses = make([]ToolResponse, 0, len(step.Calls))
	}
	ex.st.mu.Lock()
	ex.st.s.step++
	n := ex.st.s.step
	if one != nil {
		ex.st.s.change1 = one.change[:0:1]
	}
	ex.st.mu.Unlock()
	res.Step = n

	stepCtx, endStep := ex.st.startSpan(ctx, Span{Kind: SpanStep, Name: "step", Step: n})
	defer endStep(SpanEnd{})
	if ex.steps == nil {
		ex.steps = new(stepper)
	}
	j := &ex.steps.job
	*j = stepJob{ex: ex, ctx: stepCtx, step: step, g: g, n: n, res: res, watched: g != nil}
	if j.watched {
		ex.steps.run(j)
	} else {
		ex.runJob(j)
	}
	res = j.res
	*j = stepJob{}
	return res, ex.logStep(ctx, n, step, res, g)
}

// logStep records step n, asked for through g, and returns the log's
// error; callers hold the executor's lock. The log is chosen per step: a step the
// run's loop asks for goes to the run g names (runLog of g.owner()); a
// step with no gate to the State's own log (ownLog), which cannot fail.
func (ex *executor) logStep(ctx context.Context, n int, step Step, res StepResult, g gate) error {
	ex.st.mu.Lock()
	ex.st.s.change1 = nil
	var l stepLog
	if h := runOf(g); h != nil {
		l = runLog{h}
	} else {
		l = ex.st.s.ownLog()
	}
	ex.st.mu.Unlock()
	return l.step(ctx, n, step, res)
}

// runJob runs what is left of step j: its snippets, then its calls. It
// reports false when the watchdog abandoned one of its calls: a fresh
// goroutine goes on with j, and this one must end.
func (ex *executor) runJob(j *stepJob) bool {
	for len(j.res.Snippets) < len(j.step.Snippets) {
		sctx, endSnippet := ex.st.startSpan(j.ctx, Span{Kind: SpanSnippet, Name: "snippet", Step: j.n})
		s := ex.snippet(sctx, j.g, j.n, "", j.step.Snippets[len(j.res.Snippets)])
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
		d := ex.dispatch(j, c, p)
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
func (ex *executor) dispatch(j *stepJob, c ToolCall, p *prepared) dispatched {
	ctx, g, n := j.ctx, j.g, j.n
	// The call is parsed and resolved once, here; only arguments an
	// approver edited are resolved again. A call that does not resolve
	// fails without asking anybody.
	perr := ex.resolve(c, p)
	var refs func() map[string]run.VariableRef
	if g == nil {
		if perr == nil && p.row.act.NeedsApproval() || perr != nil && ex.needsApproval(c.Name) {
			// An action that needs approval never runs where nobody can
			// give it (a bare Execute, an MCP call).
			return dispatched{resp: ex.refuse(c, c.Name+" needs a person's approval, and nobody can approve here; call it in a run")}
		}
	} else {
		a, deny := ex.approve(ctx, g, c, p, perr)
		if deny != "" {
			return dispatched{resp: ex.refuse(a.call, deny)}
		}
		c, perr, refs = a.call, a.perr, a.refs
	}
	callCtx, endCall := ex.st.startSpan(ctx, Span{Kind: SpanTool, Name: c.Name, Step: n, CallID: c.ID})
	var d dispatched
	for attempt := 0; ; attempt++ {
		var need error
		d.resp, d.term, need, d.gone = ex.call(callCtx, j, endCall, c, p, perr)
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
		ex.st.log().Debug("call failed", "action", c.Name, "call", c.ID, "step", n, "err", d.resp.Error)
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
func (ex *executor) approve(ctx context.Context, g gate, c ToolCall, p *prepared, perr error) (a approval, deny string) {
	a = approval{call: c, perr: perr}
	a.refs = func() map[string]run.VariableRef {
		if a.perr != nil {
			return ex.st.refsOf(nil)
		}
		return ex.st.refsOf(p)
	}
	if perr == nil && p.row.builtin == nil {
		sent := c.Arguments
		if deny := g.approveCall(ctx, &a.call, a.refs, p.row.act.NeedsApproval()); deny != "" {
			return a, deny
		}
		if a.call.Arguments != sent {
			p.reset()
			a.perr = ex.resolve(a.call, p)
		}
	}
	return a, ""
}

// refuse returns the response of call c, refused.
func (ex *executor) refuse(c ToolCall, why string) ToolResponse {
	return ex.fail(ToolResponse{CallID: c.ID, Name: c.Name, start: time.Now()}, why)
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
	// question waits for the user's answer to a question.
	question(ctx context.Context, c ToolCall, question string) (answer string, deny string)
	// owner is the run whose loop asks for the step: its calls report
	// their progress to it, its snippets' output reaches its followers.
	owner() *Handle
}

// runOf is the run whose loop asks for a step through g; nil for a bare
// Execute, which has no gate. The State keeps no link to its run: the run
// hands itself in with each step.
func runOf(g gate) *Handle {
	if g == nil {
		return nil
	}
	return g.owner()
}
